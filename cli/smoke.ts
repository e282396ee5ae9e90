import { Command, InvalidArgumentError } from "commander";
import { GoldenError, readGoldenFile } from "../contract/golden";
import { DEFAULT_SIGNATURE } from "../contract/signature";
import { GoldenInput } from "../ops/goldenSmoke";
import { grpcAuthorityFromStackOutputs, grpcEndpointFromStackOutputs, grpcSmoke, GrpcSmokeReport } from "../ops/grpcSmoke";
import { hostnameProblem } from "../serving/gatewayAccess";
import { CaFileError, readCaFile, withoutIpServerNameWarning } from "../ops/grpcTransport";
import { PredictRequestBody } from "../ops/predictRequest";
import { endpointFromStackOutputs, smoke, SMOKE_EXIT_CODES, SmokeReport, SmokeReportBase, SmokeUsageError, StackEndpoint } from "../ops/smoke";
import { EndpointCredential } from "../ops/endpointCredential";
import { credentialOption, withCredentialOptions } from "./credentials";
import { UserError } from "./errors";
import { readPredictBodyFile } from "./requestFile";
import { readStack } from "./stack";

interface SmokeFlags {
    stack?: string;
    url?: string;
    model?: string;
    timeout: number;
    signature?: string;
    input?: string;
    golden?: string;
    json?: boolean;
    grpc?: boolean;
    tls?: boolean;
    ca?: string;
    authority?: string;
    tokenFile?: string;
    basicAuthFile?: string;
}

/** Bad flags, an unknown stack, a signature the model lacks: the command could not run as asked. */
const USAGE_EXIT = 2;
const DEFAULT_TIMEOUT_SECONDS = 120;

/**
 * `tfs smoke [--stack NAME | --url REST_URL] [--model NAME] [--timeout S] [--signature NAME] [--input FILE | --golden FILE] [--json]`:
 * waits until the model is AVAILABLE, calls `:predict` once and reports. Progress goes to stderr,
 * the answer to stdout. Exit codes: 0 ok, 2 bad usage, 3 unreachable, 4 not available, 5 predict
 * error, 6 a golden case answered otherwise, 7 the endpoint refused the caller (401/403). `--golden
 * FILE` sends every case of a golden file instead of one request, and prints one line per case.
 * `--token-file FILE` / `--basic-auth-file FILE` (or TFS_TOKEN / TFS_BASIC_AUTH) send a credential
 * with every request.
 * With `--grpc` the same over the gRPC port (`--url HOST:PORT` or the stack's `grpcEndpoint`):
 * GetModelStatus, GetModelMetadata, Predict; `--tls` verifies the server against `--ca FILE` or the system roots.
 */
export function smokeCommand(exit: (code: number) => void): Command {
    const command = new Command("smoke")
        .description("Wait until a deployed model is AVAILABLE, send one predict request (or every case of a golden file) and report "
            + `status, latency and answer (exit 0 ok, 2 bad usage, 3 unreachable, 4 not available, 5 predict error, ${SMOKE_EXIT_CODES["golden-mismatch"]} golden mismatch, `
            + `${SMOKE_EXIT_CODES.refused} refused: HTTP 401/403 or gRPC UNAUTHENTICATED/PERMISSION_DENIED)`)
        .option("--stack <name>", "read restUrl and its model from this stack's outputs (needs the Pulumi CLI)")
        .option("--url <rest-url>", "TF Serving's REST base URL, e.g. http://127.0.0.1:8501 (with --grpc: its gRPC HOST:PORT, e.g. 127.0.0.1:8500)")
        .option("--model <name>", "model name as served (default with --stack: the model the stack serves at restUrl)")
        .option("--timeout <seconds>", "how long to wait for AVAILABLE", parseSeconds, DEFAULT_TIMEOUT_SECONDS)
        .option("--signature <name>", `signature to build the request from (default ${DEFAULT_SIGNATURE})`)
        .option("--input <file>", "send this JSON predict body ({\"instances\": ...} or {\"inputs\": ...}) instead of a made-up example")
        .option("--golden <file>", "send every case of this golden file (JSON lines of requests and expected outputs) and compare the answers "
            + "(docs/guides/model-contract.md#golden-files)")
        .option("--json", "print one JSON object instead of text")
        .option("--grpc", "use TF Serving's gRPC API (GetModelStatus, GetModelMetadata, Predict) instead of REST")
        .option("--tls", "with --grpc: connect with TLS, verifying the server against --ca FILE or the system roots")
        .option("--ca <file>", "with --grpc --tls: PEM file of the CA that signed the server's certificate")
        .option("--authority <host>", "with --grpc: the host every call names (a Gateway that routes gRPC by host; default with --stack: the model's grpcAuthority output)");
    return withCredentialOptions(command)
        .exitOverride()
        .showHelpAfterError("(tfs smoke --help shows the usage)")
        .action(async (flags: SmokeFlags) => {
            checkTransportFlags(flags);
            const credential = credentialOption(flags, USAGE_EXIT);
            const request = flags.input === undefined ? undefined : readRequest(flags.input);
            const golden = flags.golden === undefined ? undefined : readGolden(flags);
            const inputs = { request, golden, credential };
            let report: SmokeReport | GrpcSmokeReport;
            try {
                report = flags.grpc ? await runGrpc(flags, inputs) : await runRest(flags, inputs);
            } catch (err) {
                if (err instanceof SmokeUsageError || err instanceof CaFileError) {
                    throw new UserError(err.message, USAGE_EXIT);
                }
                throw err;
            }
            if (flags.json) {
                console.log(JSON.stringify(report, null, 2));
            } else if (report.golden !== undefined) {
                report.golden.cases.forEach((c) => console.log(c.text));
                if (report.outcome === "ok") {
                    console.log(`ok: ${report.message}`);
                } else {
                    console.error(formatFailure(report));
                }
            } else if (report.outcome === "ok") {
                console.log("grpcEndpoint" in report ? formatGrpcAnswer(report) : formatAnswer(report));
            } else {
                console.error(formatFailure(report));
            }
            exit(report.exitCode);
        });
}

function checkTransportFlags(flags: SmokeFlags): void {
    if (!flags.grpc && (flags.tls || flags.ca !== undefined)) {
        throw new UserError("--tls and --ca are for --grpc; for REST over TLS pass an https:// --url", USAGE_EXIT);
    }
    if (flags.ca !== undefined && !flags.tls) {
        throw new UserError(`--ca ${flags.ca} needs --tls (the CA verifies a TLS server)`, USAGE_EXIT);
    }
    if (flags.ca !== undefined) {
        try {
            readCaFile(flags.ca);
        } catch (err) {
            throw new UserError((err as CaFileError).message, USAGE_EXIT);
        }
    }
}

/** What the run sends, read from its files before anything is sent. */
interface SmokeInputs {
    request?: PredictRequestBody;
    golden?: GoldenInput;
    credential?: EndpointCredential;
}

async function runRest(flags: SmokeFlags, { request, golden, credential }: SmokeInputs): Promise<SmokeReport> {
    const endpoint = await resolveEndpoint(flags);
    return smoke({
        restUrl: endpoint.restUrl,
        model: endpoint.model,
        timeoutMs: flags.timeout * 1000,
        signature: flags.signature,
        request,
        golden,
        credential,
        onProgress: (line) => console.error(line),
    });
}

async function runGrpc(flags: SmokeFlags, { request, golden, credential }: SmokeInputs): Promise<GrpcSmokeReport> {
    if ((flags.stack === undefined) === (flags.url === undefined)) {
        throw new UserError("give exactly one of --stack NAME (read the stack's grpcEndpoint) or --url HOST:PORT", USAGE_EXIT);
    }
    let grpcEndpoint: string;
    let model = flags.model;
    let authority = flags.authority;
    if (authority !== undefined && hostnameProblem(authority) !== undefined) {
        throw new UserError(`--authority "${authority}" ${hostnameProblem(authority)}`, USAGE_EXIT);
    }
    if (flags.url !== undefined) {
        const problem = grpcTargetProblem(flags.url);
        if (problem !== undefined) {
            throw new UserError(`--url "${flags.url}" ${problem}`, USAGE_EXIT);
        }
        grpcEndpoint = flags.url;
    } else {
        const { outputs } = await readStack(flags.stack as string, "pass the endpoint directly with --grpc --url HOST:PORT --model NAME", USAGE_EXIT);
        let found;
        try {
            found = grpcEndpointFromStackOutputs(outputs, flags.stack as string);
        } catch (err) {
            throw new UserError((err as Error).message);
        }
        grpcEndpoint = found.grpcEndpoint;
        model ??= found.model;
        authority ??= model === undefined ? undefined : grpcAuthorityFromStackOutputs(outputs, model);
    }
    requireModel(flags, model);
    if (flags.tls) {
        withoutIpServerNameWarning();
    }
    return grpcSmoke({
        grpcEndpoint,
        tls: flags.tls === true,
        caFile: flags.ca,
        authority,
        model,
        timeoutMs: flags.timeout * 1000,
        signature: flags.signature,
        request,
        golden,
        credential,
        onProgress: (line) => console.error(line),
    });
}

/** What is wrong with a gRPC HOST:PORT (the end of a sentence about it), or undefined for a usable one. */
export function grpcTargetProblem(text: string): string | undefined {
    if (!/^(\[[0-9a-fA-F:.]+\]|[^\s/:[\]]+):\d{1,5}$/.test(text)) {
        return "is not HOST:PORT; pass TF Serving's gRPC endpoint such as 127.0.0.1:8500";
    }
    const port = Number(text.slice(text.lastIndexOf(":") + 1));
    if (port < 1 || port > 65535) {
        return `has port ${port}; a port is 1 to 65535 (TF Serving's gRPC port is 8500 by convention)`;
    }
    return undefined;
}

function requireModel(flags: SmokeFlags, model: string | undefined): asserts model is string {
    if (model === undefined || model === "") {
        throw new UserError(flags.url !== undefined
            ? "--model NAME is required with --url (the name TF Serving serves the model under)"
            : `stack "${flags.stack}" has no models output; pass --model NAME`, USAGE_EXIT);
    }
}

/** A `--timeout`-style flag: a non-negative number of seconds. */
export function parseSeconds(value: string): number {
    const seconds = Number(value);
    if (value.trim() === "" || !Number.isFinite(seconds) || seconds < 0) {
        throw new InvalidArgumentError(`"${value}" is not a number of seconds such as 120.`);
    }
    return seconds;
}

async function resolveEndpoint(flags: SmokeFlags): Promise<{ restUrl: string; model: string }> {
    if ((flags.stack === undefined) === (flags.url === undefined)) {
        throw new UserError("give exactly one of --stack NAME (read the stack's outputs) or --url REST_URL", USAGE_EXIT);
    }
    let endpoint: StackEndpoint;
    if (flags.url !== undefined) {
        const problem = restUrlProblem(flags.url);
        if (problem !== undefined) {
            throw new UserError(`--url "${flags.url}" ${problem}; pass TF Serving's REST base URL such as http://127.0.0.1:8501`, USAGE_EXIT);
        }
        endpoint = { restUrl: flags.url };
    } else {
        endpoint = await stackEndpoint(flags.stack as string);
    }
    const model = flags.model ?? endpoint.model;
    requireModel(flags, model);
    return { restUrl: endpoint.restUrl, model };
}

/** What is wrong with a `--url`, or undefined for a usable REST base URL. */
export function restUrlProblem(text: string): string | undefined {
    if (!/^https?:\/\/[^/]/i.test(text)) {
        return "is not an http(s) URL";
    }
    let url: URL;
    try {
        url = new URL(text);
    } catch {
        return "does not parse as a URL (check the host and the port, 1 to 65535)";
    }
    if (url.port === "0") {
        return "has port 0 (check the host and the port, 1 to 65535)";
    }
    if (/\/v1\/models(\/|$)/.test(url.pathname)) {
        return "names a model path: give the base URL only (the model goes in --model NAME)";
    }
    return undefined;
}

/** The REST URL and model from a stack's outputs. */
async function stackEndpoint(stackName: string): Promise<StackEndpoint> {
    const { outputs } = await readStack(stackName, "pass the endpoint directly with --url REST_URL --model NAME", USAGE_EXIT);
    try {
        return endpointFromStackOutputs(outputs, stackName);
    } catch (err) {
        throw new UserError((err as Error).message);
    }
}

function readRequest(file: string): PredictRequestBody {
    return readPredictBodyFile(file, USAGE_EXIT);
}

/**
 * The golden file, read before any request: a file that cannot be used stops the run in its own
 * line rather than after a wait for the model. Each case names its signature, so `--signature`
 * and `--input` have no part in it.
 */
function readGolden(flags: SmokeFlags): GoldenInput {
    const file = flags.golden as string;
    if (flags.input !== undefined || flags.signature !== undefined) {
        throw new UserError(`--golden ${file} sends each case's own request (its "signature_name" chooses the signature); drop ${flags.input !== undefined ? "--input" : "--signature"}`, USAGE_EXIT);
    }
    try {
        return { file, cases: readGoldenFile(file) };
    } catch (err) {
        if (err instanceof GoldenError) {
            throw new UserError(err.message, USAGE_EXIT);
        }
        throw err;
    }
}

function formatAnswer(report: SmokeReport): string {
    return [
        `ok: ${report.message}`,
        `predict:   POST ${report.restUrl}/v1/models/${encodeURIComponent(report.model)}:predict -> HTTP ${report.httpStatus}`,
        `signature: ${report.signature}`,
        `request:   ${JSON.stringify(report.request)}`,
        `answer:    ${JSON.stringify(report.answer)}`,
    ].join("\n");
}

function formatGrpcAnswer(report: GrpcSmokeReport): string {
    return [
        `ok: ${report.message}`,
        `predict:   Predict ${report.tls ? "grpcs" : "grpc"}://${report.grpcEndpoint} (model ${report.model}) -> ${report.grpcStatus}`,
        `signature: ${report.signature}`,
        `request:   ${JSON.stringify(report.request)}`,
        `answer:    ${JSON.stringify(report.answer)}`,
    ].join("\n");
}

function formatFailure(report: Pick<SmokeReportBase<unknown>, "outcome" | "message" | "request">): string {
    const lines = [`tfs smoke: ${report.outcome}: ${report.message}`];
    if (report.request !== undefined) {
        lines.push(`request: ${JSON.stringify(report.request)}`);
    }
    return lines.join("\n");
}
