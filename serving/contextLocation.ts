/**
 * Where a model's build context is staged, and how resource inputs name it.
 *
 * Inputs must not depend on where the checkout lives or which machine runs `pulumi up`: a stack
 * updated from a workstation and then from CI (another folder) would otherwise see a changed
 * `build.context`, rebuild and push again. So the context is named relative to the project root,
 * which is the Pulumi program's working directory and the folder the Docker provider resolves
 * relative paths from, with '/' separators whatever the OS.
 */
import * as path from "path";
import { isInside } from "../contract/paths";
import { StagingError } from "./stagingError";

export interface ContextLocation {
    /** Absolute folder to stage into (this machine only; never a resource input). */
    stagingDir: string;
    /** The same folder relative to the project root, '/'-separated: the `build.context` input. */
    context: string;
    /** The Dockerfile relative to the project root: the `build.dockerfile` input. */
    dockerfile: string;
}

/** The folder, relative to the project root, where a stack stages a model's build context (ignored by git). */
export function contextFolder(stack: string, model: string): string {
    return `.tfs/build/${stack}/${model}`;
}

/**
 * `folder` (relative to `projectDir`, or absolute inside it) as a staging folder and the inputs
 * naming it. A folder outside the project cannot be named the same way on every machine: refused.
 */
export function projectRelative(projectDir: string, folder: string): ContextLocation {
    const root = path.resolve(projectDir);
    const stagingDir = path.resolve(root, folder);
    if (stagingDir === root || !isInside(stagingDir, root)) {
        throw new StagingError(`build context folder ${stagingDir} is not inside the project ${root}: stage it under the project (e.g. .tfs/build/<stack>/<model>) so every machine names it the same way`);
    }
    const context = path.relative(root, stagingDir).split(path.sep).join("/");
    return { stagingDir, context, dockerfile: `${context}/Dockerfile` };
}
