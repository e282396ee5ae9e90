/**
 * The refusal of a build context (its Dockerfile, model config, folders and files) for a reason the
 * user can fix: a missing folder, a link out of the model, a version or label TF Serving would
 * refuse, a staging folder outside the project. Its own module, so the renderers the staging calls
 * (`dockerfile.ts`, `modelConfig.ts`, `contextLocation.ts`) throw it without importing the staging.
 */
export class StagingError extends Error {
    /** What the user should change: the model folder, or the output folder (`tfs build-context --out`). */
    constructor(message: string, readonly about: "model" | "out" = "model") {
        super(message);
        this.name = "StagingError";
    }
}
