import * as fs from "fs";
import { Command } from "commander";
import { ciDeploy, summaryMarkdown } from "../ops/ciDeploy";
import { CredentialFlags } from "../ops/endpointCredential";
import { PlanError, findProjectDir } from "../ops/plan";
import { credentialOption, withCredentialOptions } from "./credentials";
import { UserError } from "./errors";
import { parseSeconds } from "./smoke";

/**
 * `tfs deploy --stack NAME [--preview-only]` (also `npm run deploy -- ...`): the CI entry point.
 * Engine output and step lines go to stderr; one JSON summary goes to stdout (and, in GitHub
 * Actions, a Markdown table with the preview diff to the job summary). Exit 0 when every step
 * passed, 1 when one failed (the summary names it), 2 for bad usage. The smoke step sends the
 * credential of `--token-file` / `--basic-auth-file` (or TFS_TOKEN / TFS_BASIC_AUTH), read before
 * the first step.
 */
export function deployCommand(exit: (code: number) => void): Command {
    const command = new Command("deploy")
        .description("CI stack update: preflight, preview with the policy pack, update, smoke test; JSON summary on stdout")
        .requiredOption("--stack <name>", "stack to update")
        .option("--preview-only", "stop after the preview (pull requests)")
        .option("--smoke-timeout <seconds>", "how long the smoke test may take (waiting for AVAILABLE, then one predict)", parseSeconds, 300);
    return withCredentialOptions(command)
        .action(async (opts: { stack: string; previewOnly?: boolean; smokeTimeout: number } & CredentialFlags) => {
            // A credential that cannot be sent stops the run before the stack changes, not at its last step.
            const credential = credentialOption(opts, 2);
            const engineLines: string[] = [];
            let projectDir: string;
            try {
                projectDir = findProjectDir(process.cwd());
            } catch (err) {
                throw err instanceof PlanError ? new UserError(err.message, 2) : err;
            }
            const summary = await ciDeploy({
                projectDir,
                stack: opts.stack,
                previewOnly: opts.previewOnly ?? false,
                smokeTimeoutSeconds: opts.smokeTimeout,
                credential,
                onOutput: (line) => { engineLines.push(line); process.stderr.write(line.endsWith("\n") ? line : `${line}\n`); },
                onStep: (line) => console.error(line),
            });
            console.log(JSON.stringify(summary, null, 2));
            const jobSummary = process.env.GITHUB_STEP_SUMMARY;
            const written = jobSummary ? appendJobSummary(jobSummary, summaryMarkdown(summary, engineLines.join(""))) : undefined;
            if (written !== undefined) {
                console.error(written);
            }
            // The stack is as the steps left it whatever became of the job summary: the exit says how the steps went.
            exit(summary.ok ? 0 : 1);
        });
}

/** Appends the Markdown job summary to `file`; a warning line when it cannot (the deploy's outcome stands). */
export function appendJobSummary(file: string, markdown: string): string | undefined {
    try {
        fs.appendFileSync(file, markdown);
        return undefined;
    } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? String(err);
        return `warning: GITHUB_STEP_SUMMARY=${file}: cannot append the job summary (${code}); the JSON summary above is complete. `
            + "In GitHub Actions the runner sets this variable to a file it created: do not set it yourself, or point it at a writable file (see docs/guides/ci-deploys.md#the-job-summary)";
    }
}
