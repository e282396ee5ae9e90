/**
 * `ModelImage`'s arguments checked, pure: where the build context is staged and how the Image's inputs
 * name it, or every problem keyed by field (`components/argsIssues.ts`), thrown before anything is
 * staged or registered.
 */
import * as path from "path";
import type { ArgsIssue } from "./argsIssues";
import { argsError } from "./refusal";
import { isInside } from "../contract/paths";
import { ContextLocation, projectRelative } from "../serving/contextLocation";

/** `ModelImageSettings`' fields that say where the build context goes. */
export interface ModelImageLocationArgs {
    projectDir: string;
    contextDir: string;
}

/**
 * What `ModelImage` would stage wrongly. A relative `projectDir` is refused: the staging resolves it
 * against this process's working directory (`serving/buildContext.ts`), while the Docker provider
 * resolves the Image's relative `build.context` against the program's own, so `projectDir: "app"`
 * would stage in `<cwd>/app/.tfs/...` and build from `<cwd>/.tfs/...`, another folder.
 */
export function modelImageIssues(args: ModelImageLocationArgs): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
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

/** Where `ModelImage` `name` stages its build context, resolved once; the one error naming every field it cannot take. */
export function resolveModelImageLocation(name: string, args: ModelImageLocationArgs): ContextLocation {
    const issues = modelImageIssues(args);
    if (issues.length > 0) {
        throw argsError("ModelImage", name, issues);
    }
    return projectRelative(args.projectDir, args.contextDir);
}
