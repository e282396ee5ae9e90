/**
 * `ModelImage`'s arguments checked, pure: where the build context is staged and how the Image's inputs
 * name it, and how the model is delivered, or every problem keyed by field (`components/argsIssues.ts`),
 * thrown before anything is staged or registered.
 */
import * as path from "path";
import type { ArgsIssue } from "./argsIssues";
import { argsError } from "./refusal";
import { isInside } from "../contract/paths";
import { ContextLocation, projectRelative } from "../serving/contextLocation";
import { DEFAULT_MODEL_DELIVERY, ModelDelivery, modelDeliveryProblem } from "../serving/modelDelivery";

/** `ModelImageSettings`' fields that say where the build context goes and what it builds. */
export interface ModelImageLocationArgs {
    projectDir: string;
    contextDir: string;
    /** Checked here: one of `MODEL_DELIVERIES` (a YAML or config value may be any string). */
    modelDelivery?: string;
}

/** `ModelImage`'s checked arguments, resolved: where to stage, and what to build there. */
export interface ResolvedModelImageArgs {
    location: ContextLocation;
    modelDelivery: ModelDelivery;
}

/**
 * What `ModelImage` would stage wrongly. A relative `projectDir` is refused: the staging resolves it
 * against this process's working directory (`serving/buildContext.ts`), while the Docker provider
 * resolves the Image's relative `build.context` against the program's own, so `projectDir: "app"`
 * would stage in `<cwd>/app/.tfs/...` and build from `<cwd>/.tfs/...`, another folder.
 */
export function modelImageIssues(args: ModelImageLocationArgs): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const delivery = args.modelDelivery === undefined ? undefined : modelDeliveryProblem(args.modelDelivery);
    if (delivery !== undefined) {
        issues.push({ field: "modelDelivery", value: args.modelDelivery, message: delivery });
    }
    if (!path.isAbsolute(args.projectDir)) {
        issues.push({
            field: "projectDir", value: args.projectDir,
            message: `${JSON.stringify(args.projectDir)} is relative: the build context would be staged under this process's working directory ` +
                "and built from the program's, which need not be the same folder; pass an absolute path, the program's working directory " +
                "(`process.cwd()`; `${pulumi.cwd}` in YAML) (see docs/reference/library.md#example)",
        });
        return issues;
    }
    const root = path.resolve(args.projectDir);
    const stagingDir = path.resolve(root, args.contextDir);
    if (stagingDir === root || !isInside(stagingDir, root)) {
        issues.push({
            field: "contextDir", value: args.contextDir,
            message: `(${stagingDir}) is not inside the project ${root} (projectDir): stage it under the project (e.g. .tfs/build/<stack>/<model>) so every machine names it the same way`,
        });
    }
    return issues;
}

/** Where `ModelImage` `name` stages its build context and what it builds, resolved once; the one error naming every field it cannot take. */
export function resolveModelImageArgs(name: string, args: ModelImageLocationArgs): ResolvedModelImageArgs {
    const issues = modelImageIssues(args);
    if (issues.length > 0) {
        throw argsError("ModelImage", name, issues);
    }
    return { location: projectRelative(args.projectDir, args.contextDir), modelDelivery: (args.modelDelivery as ModelDelivery | undefined) ?? DEFAULT_MODEL_DELIVERY };
}
