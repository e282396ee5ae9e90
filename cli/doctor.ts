import { Command, InvalidArgumentError } from "commander";
import {
    ClusterTarget, ClusterUnreachableError, DEFAULT_LB_GRACE_SECONDS, DOCTOR_EXIT_CODES, EndpointCheck, TargetError, doctorJson, formatReport, runDoctor,
} from "../ops/doctor";
import { endpointsFromStack, targetFromStack } from "../ops/doctor/stackTarget";
import { CREDENTIAL_SOURCES, CredentialFlags } from "../ops/endpointCredential";
import { CaFileError, readCaFile } from "../ops/grpcTransport";
import { credentialOption, withCredentialOptions } from "./credentials";
import { UserError } from "./errors";
import { grpcTargetProblem, restUrlProblem } from "./smoke";
import { StackValues, projectDir, readStack } from "./stack";

interface DoctorFlags extends CredentialFlags {
    stack?: string;
    kubeconfig?: string;
    context?: string;
    namespace?: string;
    model?: string;
    json?: boolean;
    logLines: number;
    lbGrace: number;
    url?: string;
    grpcUrl?: string;
    tls?: boolean;
    ca?: string;
}

const PROJECT = "tf-serving";

/**
 * `tfs doctor [--stack NAME | --kubeconfig FILE [--context CTX] --namespace NS] [--model NAME] [--json]`:
 * reads the model server's pods, events, container statuses and logs and names each known failure
 * with its evidence and fix. With `--stack` (or `--url`/`--grpc-url`) it also calls each model's
 * endpoint once, as a client does (with `--token-file`/`--basic-auth-file`, or TFS_TOKEN/TFS_BASIC_AUTH),
 * and names a refusal (401/403) as the endpoint's authentication or source ranges.
 * Exit codes: 0 healthy, 1 problems found, 2 bad usage, 3 cluster unreachable.
 */
export function doctorCommand(exit: (code: number) => void): Command {
    const command = new Command("doctor")
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
        .option("--url <rest-url>", "call each model's status here, as a client does (default with --stack: each model's restUrl)")
        .option("--grpc-url <host:port>", "call each model's GetModelStatus here (default with --stack: each model's grpcEndpoint)")
        .option("--tls", "with --grpc-url: connect with TLS, verifying the server against --ca FILE or the system roots")
        .option("--ca <file>", "PEM file of the CA that signed a TLS gRPC endpoint's certificate");
    return withCredentialOptions(command)
        .exitOverride()
        .showHelpAfterError("(tfs doctor --help shows the usage)")
        .action(async (flags: DoctorFlags) => {
            const credential = credentialOption(flags, DOCTOR_EXIT_CODES.usage);
            checkEndpointFlags(flags);
            const { target, outputs } = await resolveTarget(flags);
            try {
                const result = await runDoctor(target, {
                    model: flags.model,
                    logLines: flags.logLines,
                    loadBalancerGraceSeconds: flags.lbGrace,
                    endpoints: endpointCheck(flags, outputs, credential),
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

/** The cluster and namespace to read, and the stack's outputs with `--stack`. */
async function resolveTarget(flags: DoctorFlags): Promise<{ target: ClusterTarget; outputs?: StackValues }> {
    if (flags.stack !== undefined) {
        if (flags.kubeconfig !== undefined || flags.context !== undefined) {
            throw new UserError("--stack reads the cluster from the stack: drop --kubeconfig/--context, or drop --stack", DOCTOR_EXIT_CODES.usage);
        }
        return stackTarget(flags.stack, flags.namespace);
    }
    if (flags.namespace === undefined) {
        throw new UserError("give --stack NAME, or --namespace NS (with --kubeconfig FILE, or the ambient kubeconfig)", DOCTOR_EXIT_CODES.usage);
    }
    return { target: { kubeconfigFile: flags.kubeconfig, context: flags.context, namespace: flags.namespace } };
}

/** The cluster and namespace of a stack, from its outputs and config. */
async function stackTarget(stackName: string, namespace: string | undefined): Promise<{ target: ClusterTarget; outputs: StackValues }> {
    const { outputs, config } = await readStack(stackName, "pass --kubeconfig FILE --namespace NS", DOCTOR_EXIT_CODES.usage);
    return { target: targetFromStack({ outputs, config, project: PROJECT, projectDir: projectDir(), namespace }), outputs };
}

/** Refuses endpoint flags that cannot work together, before the cluster is read. */
function checkEndpointFlags(flags: DoctorFlags): void {
    const usage = (message: string) => new UserError(message, DOCTOR_EXIT_CODES.usage);
    if (flags.url !== undefined) {
        const problem = restUrlProblem(flags.url);
        if (problem !== undefined) {
            throw usage(`--url "${flags.url}" ${problem}; pass TF Serving's REST base URL such as http://127.0.0.1:8501`);
        }
    }
    if (flags.grpcUrl !== undefined) {
        const problem = grpcTargetProblem(flags.grpcUrl);
        if (problem !== undefined) {
            throw usage(`--grpc-url "${flags.grpcUrl}" ${problem}`);
        }
    }
    if (flags.tls && flags.grpcUrl === undefined) {
        throw usage("--tls is for --grpc-url (with --stack, the gRPC endpoint is TLS where the restUrl is https)");
    }
    if (flags.ca !== undefined) {
        if (!flags.tls && flags.stack === undefined) {
            throw usage(`--ca ${flags.ca} needs a TLS gRPC endpoint: add --grpc-url HOST:PORT --tls, or --stack`);
        }
        try {
            readCaFile(flags.ca);
        } catch (err) {
            throw usage((err as CaFileError).message);
        }
    }
    // A variable set for other commands is no mistake here; a file option with nothing to call is.
    const file = flags.tokenFile !== undefined ? CREDENTIAL_SOURCES.bearer.option : flags.basicAuthFile !== undefined ? CREDENTIAL_SOURCES.basic.option : undefined;
    if (file !== undefined && flags.stack === undefined && flags.url === undefined && flags.grpcUrl === undefined) {
        throw usage(`${file} is for the endpoint's check: add --url REST_URL or --grpc-url HOST:PORT, or use --stack NAME (its endpoints), or drop ${file}`);
    }
}

/**
 * The endpoints to call: `--url`/`--grpc-url` for every model when given, else the stack's; none
 * without either (the cluster alone is read).
 */
function endpointCheck(flags: DoctorFlags, outputs: StackValues | undefined, credential: EndpointCheck["credential"]): EndpointCheck | undefined {
    const given = flags.url !== undefined || flags.grpcUrl !== undefined;
    if (!given && outputs === undefined) {
        return undefined;
    }
    const where = given
        ? { fallback: { restUrl: flags.url, grpcEndpoint: flags.grpcUrl, tls: flags.tls === true } }
        : endpointsFromStack(outputs ?? {});
    return { ...where, caFile: flags.ca, credential };
}
