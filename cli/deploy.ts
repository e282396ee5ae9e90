import * as fs from "fs";
import { Command } from "commander";
import { ciDeploy, summaryMarkdown } from "../ops/ciDeploy";
import { PlanError, findProjectDir } from "../ops/plan";
import { UserError } from "./errors";
import { parseSeconds } from "./smoke";

/**
 * `tfs deploy --stack NAME [--preview-only]` (also `npm run deploy -- ...`): the CI entry point.
 * Engine output and step lines go to stderr; one JSON summary goes to stdout (and, in GitHub
 * Actions, a Markdown table with the preview diff to the job summary). Exit 0 when every step
 * passed, 1 when one failed (the summary names it).
 */
export function deployCommand(exit: (code: number) => void): Command {
    return new Command("deploy")
        .description("CI stack update: preflight, preview with the policy pack, update, smoke test; JSON summary on stdout")
        .requiredOption("--stack <name>", "stack to update")
        .option("--preview-only", "stop after the preview (pull requests)")
        .option("--smoke-timeout <seconds>", "how long the smoke test may take (waiting for AVAILABLE, then one predict)", parseSeconds, 300)
        .action(async (opts: { stack: string; previewOnly?: boolean; smokeTimeout: number }) => {
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
                onOutput: (line) => { engineLines.push(line); process.stderr.write(line.endsWith("\n") ? line : `${line}\n`); },
                onStep: (line) => console.error(line),
            });
            console.log(JSON.stringify(summary, null, 2));
            const jobSummary = process.env.GITHUB_STEP_SUMMARY;
            if (jobSummary) {
                fs.appendFileSync(jobSummary, summaryMarkdown(summary, engineLines.join("")));
            }
            exit(summary.ok ? 0 : 1);
        });
}
