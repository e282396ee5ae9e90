import * as path from "path";
import { PlanError, findProjectDir } from "../ops/plan";
import { PULUMI_CLI_FIX, engineReason, isPulumiCliMissing } from "../ops/pulumiCli";
import { UserError } from "./errors";

/**
 * The Pulumi project `--stack` refers to: the nearest folder at or above the working directory
 * holding a Pulumi.yaml, else this checkout (where `tfs` itself lives).
 */
export function projectDir(): string {
    try {
        return findProjectDir(process.cwd());
    } catch (err) {
        if (err instanceof PlanError) {
            return path.resolve(__dirname, "..");
        }
        throw err;
    }
}

export type StackValues = Record<string, { value: unknown; secret?: boolean }>;

/**
 * Reads a stack's outputs and config with the Automation API (loaded only here: it is slow to
 * load and needs the Pulumi CLI). A missing CLI or an unknown stack is a usage error that says
 * what to do instead (`alternative`, e.g. "pass --url REST_URL --model NAME").
 */
export async function readStack(stackName: string, alternative: string, exitCode: number): Promise<{ outputs: StackValues; config: StackValues }> {
    const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
    const workDir = projectDir();
    try {
        const stack = await LocalWorkspace.selectStack({ stackName, workDir });
        const [outputs, config] = await Promise.all([stack.outputs(), stack.getAllConfig()]);
        return { outputs, config };
    } catch (err) {
        if (isPulumiCliMissing(err)) {
            throw new UserError(`--stack needs the Pulumi CLI, which is not on PATH: ${PULUMI_CLI_FIX}; or ${alternative}`, exitCode);
        }
        throw new UserError(`cannot read stack "${stackName}" in ${workDir}: ${engineReason(err)} (pulumi stack ls shows the stacks)`, exitCode);
    }
}
