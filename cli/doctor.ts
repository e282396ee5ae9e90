import { Command, InvalidArgumentError } from "commander";
import {
    ClusterTarget, ClusterUnreachableError, DEFAULT_LB_GRACE_SECONDS, DOCTOR_EXIT_CODES, TargetError, doctorJson, formatReport, runDoctor,
} from "../ops/doctor";
import { targetFromStack } from "../ops/doctor/stackTarget";
import { UserError } from "./errors";
import { projectDir, readStack } from "./stack";

interface DoctorFlags {
    stack?: string;
    kubeconfig?: string;
    context?: string;
    namespace?: string;
    model?: string;
    json?: boolean;
    logLines: number;
    lbGrace: number;
}

const PROJECT = "tf-serving";

/**
 * `tfs doctor [--stack NAME | --kubeconfig FILE [--context CTX] --namespace NS] [--model NAME] [--json]`:
 * reads the model server's pods, events, container statuses and logs and names each known failure
 * with its evidence and fix. Exit codes: 0 healthy, 1 problems found, 2 bad usage, 3 cluster unreachable.
 */
export function doctorCommand(exit: (code: number) => void): Command {
    return new Command("doctor")
        .description("Diagnose a deployed model server from its pods, events, container states and logs "
            + "(exit 0 healthy, 1 problems found, 2 bad usage, 3 cluster unreachable)")
        .option("--stack <name>", "read the cluster and namespace from this stack (needs the Pulumi CLI)")
        .option("--kubeconfig <file>", "kubeconfig file (default: KUBECONFIG or ~/.kube/config)")
        .option("--context <name>", "kubeconfig context (default: its current context)")
        .option("--namespace <ns>", "namespace of the model servers (required without --stack)")
        .option("--model <name>", "only this model (default: every model server in the namespace)")
        .option("--log-lines <n>", "lines of each container's log to read", parseCount, 100)
        .option("--lb-grace <seconds>", "how long a LoadBalancer may lack an address before it is an error",
            parseCount, DEFAULT_LB_GRACE_SECONDS)
        .option("--json", "print one JSON object {healthy, findings, checked}")
        .exitOverride()
        .showHelpAfterError("(tfs doctor --help shows the usage)")
        .action(async (flags: DoctorFlags) => {
            const target = await resolveTarget(flags);
            try {
                const result = await runDoctor(target, {
                    model: flags.model,
                    logLines: flags.logLines,
                    loadBalancerGraceSeconds: flags.lbGrace,
                });
                console.log(flags.json ? JSON.stringify(doctorJson(result), null, 2) : formatReport(result));
                exit(result.diagnosis.healthy ? DOCTOR_EXIT_CODES.healthy : DOCTOR_EXIT_CODES.problems);
            } catch (err) {
                if (err instanceof TargetError) {
                    throw new UserError(err.message, DOCTOR_EXIT_CODES.usage);
                }
                if (err instanceof ClusterUnreachableError) {
                    if (flags.json) {
                        console.log(JSON.stringify({ healthy: false, error: { exitCode: DOCTOR_EXIT_CODES.unreachable, message: err.message } }, null, 2));
                    }
                    throw new UserError(err.message, DOCTOR_EXIT_CODES.unreachable);
                }
                throw err;
            }
        });
}

function parseCount(value: string): number {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
        throw new InvalidArgumentError(`"${value}" is not a whole number such as 100.`);
    }
    return n;
}

async function resolveTarget(flags: DoctorFlags): Promise<ClusterTarget> {
    if (flags.stack !== undefined) {
        if (flags.kubeconfig !== undefined || flags.context !== undefined) {
            throw new UserError("--stack reads the cluster from the stack: drop --kubeconfig/--context, or drop --stack", DOCTOR_EXIT_CODES.usage);
        }
        return stackTarget(flags.stack, flags.namespace);
    }
    if (flags.namespace === undefined) {
        throw new UserError("give --stack NAME, or --namespace NS (with --kubeconfig FILE, or the ambient kubeconfig)", DOCTOR_EXIT_CODES.usage);
    }
    return { kubeconfigFile: flags.kubeconfig, context: flags.context, namespace: flags.namespace };
}

/** The cluster and namespace of a stack, from its outputs and config. */
async function stackTarget(stackName: string, namespace: string | undefined): Promise<ClusterTarget> {
    const { outputs, config } = await readStack(stackName, "pass --kubeconfig FILE --namespace NS", DOCTOR_EXIT_CODES.usage);
    return targetFromStack({ outputs, config, project: PROJECT, projectDir: projectDir(), namespace });
}
