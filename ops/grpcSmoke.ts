/**
 * `tfs smoke --grpc`: the smoke test over TF Serving's gRPC API, with the REST smoke's outcomes
 * and exit codes. One channel: GetModelStatus until the model is AVAILABLE, GetModelMetadata for
 * the signature, a request built from it (or the user's REST body, converted), one Predict.
 */
import { DEFAULT_SIGNATURE, SignatureSpec } from "../contract/signature";
import { decodeSignatureDefMap, SIGNATURE_DEF_MAP_URL } from "../model/tfProto";
import { UnsupportedSignatureError } from "./predictRequest";
import { goldenOutcome, runGoldenCases } from "./goldenSmoke";
import { EndpointCredential, redact, refusalAdvice, refusalOfGrpc } from "./endpointCredential";
import {
    checkGolden,
    chooseSignature,
    credentialLine,
    endpointFromStackOutputs,
    endReport,
    exampleRequest,
    Poll,
    SmokeOptions,
    SmokeOutcome,
    SmokeReportBase,
    SmokeUsageError,
    isLoopbackHost,
    refusedText,
    waitUntilAvailable,
    withinDeadline,
} from "./smoke";
import { connectionError, hopelessGrpcProblem } from "./grpcTransport";
import {
    describeGrpcError,
    GrpcTransport,
    predictInputs,
    TensorObject,
    tensorToJson,
    TfServingGrpcClient,
    versionStatuses,
} from "./tfServingGrpc";

export interface GrpcSmokeOptions extends Omit<SmokeOptions, "restUrl">, GrpcTransport {
    /** host:port of TF Serving's gRPC port (the stack's grpcEndpoint). */
    grpcEndpoint: string;
}

/** The PredictResponse: the version that answered and each output as JSON. */
export interface GrpcPredictAnswer {
    model_spec: { name: string; version: string; signature_name: string };
    outputs: Record<string, unknown>;
}

export interface GrpcSmokeReport extends SmokeReportBase<GrpcPredictAnswer> {
    grpcEndpoint: string;
    tls: boolean;
    /** gRPC status of the Predict call ("OK", "INVALID_ARGUMENT"...). */
    grpcStatus?: string;
}

interface ModelSpecObject { name?: string; version?: { value?: string }; signature_name?: string }

/** Codes that mean nothing answered (yet): the channel could not connect, or the call timed out. */
const NO_ANSWER = new Set(["UNAVAILABLE", "DEADLINE_EXCEEDED"]);

/**
 * Runs the smoke test over gRPC. Never throws for a server's failure; throws SmokeUsageError for a
 * signature it cannot use, CaFileError for a CA file that cannot verify any server.
 */
export async function grpcSmoke(options: GrpcSmokeOptions): Promise<GrpcSmokeReport> {
    const { credential } = options;
    const progress = (line: string) => options.onProgress?.(redact(line, credential));
    const target = options.grpcEndpoint;
    const report: GrpcSmokeReport = {
        outcome: "ok", exitCode: 0, message: "", grpcEndpoint: target, tls: options.tls, model: options.model,
        versions: [], attempts: 0, waitedMs: 0,
    };
    const end = (outcome: SmokeOutcome, message: string): GrpcSmokeReport => endReport(report, outcome, message, credential);
    const where = `${options.tls ? "grpcs" : "grpc"}://${target}`;
    const deadline = Date.now() + options.timeoutMs;
    const client = new TfServingGrpcClient(target, options);
    const spec = { name: options.model };
    if (credential !== undefined) {
        progress(credentialLine(credential, where) + (options.tls ? "" : grpcPlaintextNote(target)));
    }
    try {
        const wait = await waitUntilAvailable(where, (timeoutMs) => pollGrpcStatus(client, options.model, options, timeoutMs), options, progress);
        Object.assign(report, { versions: wait.versions, attempts: wait.attempts, waitedMs: wait.waitedMs });
        if (wait.outcome !== "ok") {
            return end(wait.outcome, wait.message);
        }

        // Each call ends by the run's deadline (but gets at least MIN_REQUEST_MS), as over REST.
        const callTimeout = () => withinDeadline(options.predictTimeoutMs ?? 30_000, deadline);
        const signatureName = options.request?.signature_name ?? options.signature ?? DEFAULT_SIGNATURE;
        progress(`metadata: GetModelMetadata ${where} (model ${options.model})`);
        let signatures: Record<string, SignatureSpec>;
        try {
            const metadata = await client.call<{ metadata?: Record<string, { type_url?: string; value?: Uint8Array }> }>(
                "GetModelMetadata", { model_spec: spec, metadata_field: ["signature_def"] }, callTimeout());
            const packed = metadata.metadata?.signature_def;
            if (packed?.type_url !== SIGNATURE_DEF_MAP_URL || packed.value === undefined) {
                return end("predict-error", `metadata answer is not TF Serving's: no signature_def entry of type ${SIGNATURE_DEF_MAP_URL}`);
            }
            signatures = decodeSignatureDefMap(packed.value);
        } catch (err) {
            const { code, details } = describeGrpcError(err);
            const refused = refusalMessage("GetModelMetadata", code, details, credential);
            return refused !== undefined ? end("refused", `${where} ${refused}`) : end("predict-error", `GetModelMetadata failed with ${code}: ${details}`);
        }
        if (options.golden !== undefined) {
            checkGolden(options.golden, signatures, options.model);
            progress(`predict: Predict ${where} (each case's own body, as tensors)`);
            report.golden = await runGoldenCases(options.golden, async (c) => {
                let inputs: Record<string, TensorObject>;
                try {
                    inputs = predictInputs(c.request, c.signatureName, signatures[c.signatureName]);
                } catch (err) {
                    return { error: `the request cannot be sent over gRPC: ${(err as Error).message}` };
                }
                let answer: { outputs?: Record<string, TensorObject> };
                try {
                    answer = await client.call("Predict", { model_spec: { ...spec, signature_name: c.signatureName }, inputs }, callTimeout());
                } catch (err) {
                    const { code, details } = describeGrpcError(err);
                    return { error: refusalMessage("Predict", code, details, credential) ?? `Predict failed with ${code}: ${details}` };
                }
                try {
                    return { outputs: outputsAsJson(answer.outputs) };
                } catch (err) {
                    return { error: `Predict answered, but ${(err as Error).message}` };
                }
            }, progress, deadline);
            const { outcome, message } = goldenOutcome(report.golden, options.model);
            return end(outcome, message);
        }
        const signature = chooseSignature(signatures, signatureName, options.model);
        report.request = options.request ?? exampleRequest(signatureName, signature);
        let inputs: Record<string, TensorObject>;
        try {
            inputs = predictInputs(report.request, signatureName, signature);
        } catch (err) {
            const fix = err instanceof UnsupportedSignatureError ? "write the request yourself and pass it with --input FILE" : "fix the request (--input FILE)";
            throw new SmokeUsageError(`${(err as Error).message}; ${fix}`);
        }
        report.signature = signatureName;

        progress(`predict: Predict ${where} (signature ${signatureName})`);
        const started = performance.now();
        let response: { model_spec?: ModelSpecObject; outputs?: Record<string, TensorObject> };
        try {
            response = await client.call("Predict", { model_spec: { ...spec, signature_name: signatureName }, inputs }, callTimeout());
        } catch (err) {
            report.latencyMs = elapsed(started);
            const { code, details } = describeGrpcError(err);
            report.grpcStatus = code;
            const refused = refusalMessage("Predict", code, details, credential);
            return refused !== undefined ? end("refused", `${where} ${refused}`) : end("predict-error", `Predict failed with ${code}: ${details}`);
        }
        report.latencyMs = elapsed(started);
        report.grpcStatus = "OK";
        let outputs: Record<string, unknown>;
        try {
            outputs = outputsAsJson(response.outputs);
        } catch (err) {
            return end("predict-error", `Predict answered, but ${(err as Error).message}`);
        }
        const ms = response.model_spec ?? {};
        report.answer = {
            model_spec: { name: ms.name ?? "", version: ms.version?.value ?? "", signature_name: ms.signature_name ?? "" },
            outputs,
        };
        return end("ok", `model "${options.model}" (version ${report.answer.model_spec.version}) answered Predict in ${report.latencyMs} ms`);
    } finally {
        client.close();
    }
}

/**
 * One GetModelStatus call on `client`'s channel, as a wait's poll (and `tfs doctor`'s look at the
 * gRPC endpoint): the versions, an unknown model, a refusal, or what went wrong and whether a wait can help.
 */
export async function pollGrpcStatus(client: TfServingGrpcClient, model: string, transport: GrpcTransport, timeoutMs: number): Promise<Poll> {
    try {
        return { kind: "status", versions: versionStatuses(await client.call("GetModelStatus", { model_spec: { name: model } }, timeoutMs)) };
    } catch (err) {
        const { code, details } = describeGrpcError(err);
        if (code === "NOT_FOUND") {
            return { kind: "unknown-model", problem: `${code}: ${details}` };
        }
        const refusal = refusalOfGrpc(code);
        if (refusal !== undefined) {
            const status = `${code} (${details})`;
            return { kind: "refused", refusal, status, problem: refusedText("GetModelStatus", status, refusalAdvice(refusal, transport.credential)) };
        }
        const hopeless = hopelessGrpcProblem(details, transport);
        if (hopeless !== undefined) {
            return { kind: "hopeless", problem: hopeless };
        }
        return { kind: "problem", problem: `${code}: ${connectionError(details) ?? details}`, answered: !NO_ANSWER.has(code) };
    }
}

/**
 * "refused GetModelStatus with UNAUTHENTICATED (Received HTTP status code 401): the endpoint asks ...",
 * for a refusal's status code, else undefined. TF Serving itself answers neither code.
 */
function refusalMessage(method: string, code: string, details: string, credential: EndpointCredential | undefined): string | undefined {
    const refusal = refusalOfGrpc(code);
    return refusal === undefined ? undefined : refusedText(method, `${code} (${details})`, refusalAdvice(refusal, credential));
}

/** A plaintext channel to another machine carries the credential in the clear. */
function grpcPlaintextNote(target: string): string {
    const host = target.slice(0, target.lastIndexOf(":"));
    return isLoopbackHost(host) ? "" : " (over plaintext gRPC: anyone on the path can read it; prefer --tls)";
}

/** A PredictResponse's tensors as TF Serving's REST JSON, by output name; throws for a tensor it cannot read. */
function outputsAsJson(tensors: Record<string, TensorObject> | undefined): Record<string, unknown> {
    const outputs: Record<string, unknown> = {};
    for (const name of Object.keys(tensors ?? {}).sort()) {
        outputs[name] = tensorToJson((tensors ?? {})[name]);
    }
    return outputs;
}

function elapsed(started: number): number {
    return Math.round((performance.now() - started) * 10) / 10;
}

/** The host `model`'s gRPC clients name, from the stack's `models` output (`grpcAuthority`), where its Gateway routes gRPC by host. */
export function grpcAuthorityFromStackOutputs(outputs: Record<string, { value: unknown }>, model: string): string | undefined {
    const models = outputs.models?.value as Record<string, { grpcAuthority?: unknown }> | undefined;
    const authority = models?.[model]?.grpcAuthority;
    return typeof authority === "string" && authority !== "" ? authority : undefined;
}

/**
 * The gRPC endpoint and model from stack outputs: `grpcEndpoint` (the first model's, as
 * `restUrl`), and the model served there. Throws naming the missing output.
 */
export function grpcEndpointFromStackOutputs(outputs: Record<string, { value: unknown }>, stackName: string): { grpcEndpoint: string; model?: string } {
    const grpcEndpoint = outputs.grpcEndpoint?.value;
    if (typeof grpcEndpoint !== "string" || grpcEndpoint === "") {
        const names = Object.keys(outputs).sort().join(", ") || "none";
        throw new Error(`stack "${stackName}" has no grpcEndpoint output (its outputs: ${names}); deploy it first, or pass --url HOST:PORT`);
    }
    // restUrl and grpcEndpoint are the same (first) model's: its name is found by restUrl.
    return { grpcEndpoint, model: endpointFromStackOutputs(outputs, stackName).model };
}
