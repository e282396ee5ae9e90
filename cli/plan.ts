import { Command } from "commander";
import { PlanError, findProjectDir, formatPlan, planStack } from "../ops/plan";
import { UserError } from "./errors";

export function planCommand(exit: (code: number) => void): Command {
    return new Command("plan")
        .description("List every resource this project's program would register for a stack, offline (Pulumi's mock runtime: no cloud, no cluster, no credentials)")
        .option("--stack <name>", "stack whose Pulumi.<name>.yaml to use", "dev")
        .option("--json", "print one JSON object")
        .action(async (opts: { stack: string; json?: boolean }) => {
            try {
                const plan = await planStack(findProjectDir(process.cwd()), opts.stack);
                console.log(opts.json ? JSON.stringify(plan, (k, v) => (k === "rawInputs" ? undefined : v), 2) : formatPlan(plan));
                exit(0);
            } catch (err) {
                if (err instanceof PlanError) {
                    throw new UserError(`plan for stack "${opts.stack}" stopped: ${err.message}`);
                }
                throw err;
            }
        });
}
