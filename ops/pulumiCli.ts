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

/** The Automation API's failed command: `CommandError.commandResult`, else its message's `stdout:` and `stderr:` parts. */
function commandOutput(err: unknown): { stdout: string; stderr: string } {
    const result = (err as { commandResult?: { stdout?: string; stderr?: string } } | undefined)?.commandResult;
    if (result !== undefined) {
        return { stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
    }
    // CommandResult.toString(): "code: N\n stdout: ...\n stderr: ...\n err?: ...\n".
    const text = String((err as Error)?.message ?? err);
    const part = (name: string, next: string) => new RegExp(`\\b${name}: ([\\s\\S]*?)\\n ${next}: `).exec(text)?.[1] ?? "";
    return { stdout: part("stdout", "stderr"), stderr: part("stderr", "err\\?") || (/\bstderr: ([\s\S]*)$/.exec(text)?.[1] ?? "") };
}

/** Lines that say only that the command failed, not why: kept only when nothing better was said. */
const GENERIC = /^error: (preview|update|refresh|destroy) failed$|^error: an error occurred while advancing the (preview|update)/;

/**
 * The engine's own error lines from a failed command: the `error:` lines of its stderr, then of its
 * stdout (a preview's diagnostics), the specific before the generic, at most three; else the first
 * non-empty line of stderr, else the first line of the error.
 */
export function engineReason(err: unknown): string {
    const { stdout, stderr } = commandOutput(err);
    const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
    // A policy pack's mandatory violations print as "[mandatory]" lines in the preview's output.
    const errors = [...new Set([...lines(stderr), ...lines(stdout)].filter((l) => /^error: |\[mandatory\]/.test(l)))];
    const specific = errors.filter((l) => !GENERIC.test(l));
    const chosen = (specific.length > 0 ? specific : errors).slice(0, 3);
    if (chosen.length > 0) {
        return chosen.join("; ");
    }
    const text = String((err as Error)?.message ?? err);
    return lines(stderr)[0] ?? text.split("\n")[0];
}

/**
 * What to do about a failed Pulumi command, by what its output says, or undefined. The texts are
 * the CLI's (and the Automation API's own classification, `automation/errors.ts`:
 * "the stack is currently locked by", "[409] Conflict: Another update is currently in progress").
 */
export function engineAdvice(err: unknown, stack: string): string | undefined {
    const { stdout, stderr } = commandOutput(err);
    const text = `${stderr}\n${stdout}\n${(err as Error)?.name ?? ""}`;
    if (/ConcurrentUpdateError|the stack is currently locked by|Another update is currently in progress/.test(text)) {
        return `another update holds the stack's lock: wait for it to end; if none is running (a job cancelled mid-update), \`pulumi cancel --stack ${stack}\` releases it, then \`pulumi refresh --stack ${stack}\` `
            + "reads what the cancelled update left (see docs/troubleshooting.md#the-stack-is-locked)";
    }
    if (/StackNotFoundError|no stack named .* found/.test(text)) {
        return `\`pulumi stack ls\` shows the stacks of the backend you are logged in to; \`pulumi stack init ${stack}\` creates it (see docs/guides/ci-deploys.md#the-stack)`;
    }
    if (/PULUMI_ACCESS_TOKEN|pulumi login|not logged in|Unauthorized|401/.test(text)) {
        return "log in to the stack's backend: set PULUMI_ACCESS_TOKEN in CI, or run `pulumi login` (with the backend's URL for a self-managed one) (see docs/guides/ci-deploys.md#credentials)";
    }
    if (/passphrase/i.test(text)) {
        return "the stack's secrets use a passphrase: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) in the job's environment (see docs/guides/ci-deploys.md#credentials)";
    }
    return undefined;
}

/** The engine's reason, with what to do about it when that is known. */
export function engineFailure(err: unknown, stack: string): string {
    const advice = engineAdvice(err, stack);
    return `${engineReason(err)}${advice === undefined ? "" : ` (${advice})`}`;
}
