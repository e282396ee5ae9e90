/**
 * A component's refusal of its arguments, as `pulumi preview` shows it: a `pulumi.RunError`, whose
 * message the Node.js language host prints alone, one line under the stack, where any other error
 * comes with its JavaScript stack trace (`@pulumi/pulumi` cmd/run/run.js, its uncaught-error
 * handler). Thrown before the component registers anything.
 */
import * as pulumi from "@pulumi/pulumi";
import { ArgsIssue, ArgsRefusal, argsMessage } from "./argsIssues";
import { GoldenError } from "../contract/golden";
import { StagingError } from "../serving/stagingError";
import { SizingError } from "../serving/sizing";

/** The one error `component` `name` throws for `issues`, naming every field. */
export function argsError(component: string, name: string, issues: ArgsIssue[]): pulumi.RunError {
    return new pulumi.RunError(argsMessage(component, name, issues));
}

/**
 * `compute()`, a pure step of `component` `name` that refuses with its own error class (a
 * `SizingError`, `StagingError`, `GoldenError` or `ArgsRefusal`, which the pure modules keep free of
 * the SDK): that refusal becomes the component's one-line `argsError`, under `field` (a staging
 * error's `about` may pick it; a sizing error names its own `resources` field). Any other error is
 * a bug and keeps its stack.
 */
export function refusing<T>(component: string, name: string, field: string | ((err: StagingError) => string), compute: () => T): T {
    try {
        return compute();
    } catch (err) {
        if (err instanceof ArgsRefusal) {
            throw new pulumi.RunError(err.message);
        }
        if (err instanceof SizingError) {
            throw argsError(component, name, [{ field: `resources.${err.key}`, value: undefined, message: `(${err.message})` }]);
        }
        if (err instanceof StagingError || err instanceof GoldenError) {
            const named = typeof field === "string" ? field : err instanceof StagingError ? field(err) : "golden";
            throw argsError(component, name, [{ field: named, value: undefined, message: `(${err.message})` }]);
        }
        throw err;
    }
}
