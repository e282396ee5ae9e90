/**
 * What the Automation API's failures mean for a user: it runs the `pulumi` command, so a missing
 * CLI surfaces as a raw `spawn pulumi ENOENT` wrapped in the engine's "code: -2 stdout: stderr:" text.
 */

/** How to get the CLI: the bundled environment puts one on PATH, or the user installs it. */
export const PULUMI_CLI_FIX = "install the Pulumi CLI and put it on PATH "
    + "(or, for the loopback environment, `eval \"$(scripts/e2e-env env)\"` puts its own on PATH)";

/** True when the error says the `pulumi` command could not be started. */
export function isPulumiCliMissing(err: unknown): boolean {
    return /ENOENT: pulumi|spawn pulumi ENOENT/.test(String((err as Error)?.message ?? err));
}

/** The engine's own line from a failed command (its stderr), else the first line of the error. */
export function engineReason(err: unknown): string {
    const text = String((err as Error)?.message ?? err);
    return /stderr: ([^\n]+)/.exec(text)?.[1] ?? text.split("\n")[0];
}
