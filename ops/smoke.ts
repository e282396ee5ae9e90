import { assessReadiness, parseModelStatus, Readiness, VersionStatus } from "./modelStatus";
import { goldenProblems, restOutputs } from "../contract/golden";
import { DEFAULT_SIGNATURE, SignatureSpec } from "../contract/signature";
import { goldenOutcome, GoldenInput, GoldenReport, runGoldenCases } from "./goldenSmoke";
import { authorizationHeaders, challengeScheme, EndpointCredential, redact, Refusal, refusalAdvice, refusalOfHttp } from "./endpointCredential";
import {
    buildPredictRequest,
    parseModelMetadata,
    PredictRequestBody,
    UnsupportedSignatureError,
} from "./predictRequest";

/** How a smoke test ended; each has its own process exit code. */
export type SmokeOutcome = "ok" | "unreachable" | "not-available" | "predict-error" | "golden-mismatch" | "refused";

/**
 * ok 0; nothing answered 3; answers but the model never became AVAILABLE (or is unknown) 4;
 * predict failed 5; a golden case answered otherwise than expected 6; the endpoint refused the
 * caller 7 (HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED: a credential or a source range,
 * not the server); 2, bad usage, is the CLI's.
 */
export const SMOKE_EXIT_CODES: Readonly<Record<SmokeOutcome, number>> = {
    "ok": 0,
    "unreachable": 3,
    "not-available": 4,
    "predict-error": 5,
    "golden-mismatch": 6,
    "refused": 7,
};

export interface SmokeOptions {
    /** REST base URL of TF Serving, e.g. http://10.0.0.1:8501 (a path prefix is kept). */
    restUrl: string;
    /** Model name as served (`--model_name` / the model config's `name`). */
    model: string;
    /**
     * How long the whole run may take, in milliseconds: waiting for every version to be AVAILABLE
     * (0 = look once), then the metadata and predict requests. Each request still gets at least
     * `MIN_REQUEST_MS`, so a model that becomes ready at the deadline is tried once.
     */
    timeoutMs: number;
    /** Signature to build the request from; default `serving_default`. Ignored by a supplied `request` that names one. */
    signature?: string;
    /** A ready-made `:predict` body (`--input FILE`); skips reading the metadata. */
    request?: PredictRequestBody;
    /**
     * Golden cases (`--golden FILE`, read with readGoldenFile) to send instead of one request:
     * checked against the metadata's signatures first (SmokeUsageError listing every problem), then
     * sent one by one, each within the predict request's limit. `request` and `signature` do not apply.
     */
    golden?: GoldenInput;
    /**
     * Sent as the `authorization` header on every request (over gRPC, as metadata on every call);
     * never printed, and taken out of anything the server's answers put in the report.
     */
    credential?: EndpointCredential;
    /** Receives one line per wait attempt and step. */
    onProgress?: (line: string) => void;
    /** Limit for each single HTTP request while waiting, in milliseconds; default 5000. */
    pollTimeoutMs?: number;
    /** Limit for the metadata and predict requests, in milliseconds (within `timeoutMs`); default 30000. */
    predictTimeoutMs?: number;
    /** First pause between status polls, doubled each time up to `maxBackoffMs`; default 250. */
    initialBackoffMs?: number;
    /** Longest pause between status polls; default 5000. */
    maxBackoffMs?: number;
}

/** What a smoke report says over REST and gRPC alike; each transport's report adds its endpoint and the predict call's status. */
export interface SmokeReportBase<Answer> {
    outcome: SmokeOutcome;
    exitCode: number;
    /** One sentence saying what happened, for humans. */
    message: string;
    model: string;
    /** The last model status seen (empty if none). */
    versions: VersionStatus[];
    /** Status polls made while waiting. */
    attempts: number;
    /** Time spent waiting for AVAILABLE, in milliseconds. */
    waitedMs: number;
    signature?: string;
    /** The request in TF Serving's REST JSON form (over gRPC, what the PredictRequest's tensors hold). */
    request?: PredictRequestBody;
    /** Round trip of the predict call (REST: request sent to body read), in milliseconds. */
    latencyMs?: number;
    answer?: Answer;
    /** With `golden`: each case's result; `request` and `answer` are then unset. */
    golden?: GoldenReport;
}

export interface SmokeReport extends SmokeReportBase<unknown> {
    restUrl: string;
    /** HTTP status of the `:predict` answer. */
    httpStatus?: number;
}

/** The user asked for something the model cannot give (an unknown signature, an input with no JSON form). */
export class SmokeUsageError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "SmokeUsageError";
    }
}

interface HttpAnswer {
    status: number;
    body: unknown;
    text: string;
    /** The scheme of the answer's `WWW-Authenticate` challenge, if any. */
    challenge?: string;
}

/** Where and with what each REST request goes: the credential rides on every one. */
export interface RestTarget {
    /** `BASE/v1/models/NAME`. */
    modelUrl: string;
    credential?: EndpointCredential;
}

/**
 * Waits until the model is ready, builds a one-example request from its signature (or takes
 * `options.request`), calls `:predict` and reports. Never throws for a server's failure: those
 * are outcomes. Throws `SmokeUsageError` for a signature it cannot use.
 */
export async function smoke(options: SmokeOptions): Promise<SmokeReport> {
    const { credential } = options;
    const progress = (line: string) => options.onProgress?.(redact(line, credential));
    const base = options.restUrl.replace(/\/+$/, "");
    const modelUrl = `${base}/v1/models/${encodeURIComponent(options.model)}`;
    const target: RestTarget = { modelUrl, credential };
    const report: SmokeReport = {
        outcome: "ok", exitCode: 0, message: "", restUrl: base, model: options.model,
        versions: [], attempts: 0, waitedMs: 0,
    };
    const end = (outcome: SmokeOutcome, message: string): SmokeReport => endReport(report, outcome, message, credential);
    const deadline = Date.now() + options.timeoutMs;
    const requestLimit = () => withinDeadline(options.predictTimeoutMs ?? 30_000, deadline);
    if (credential !== undefined) {
        progress(credentialLine(credential, base));
    }

    const wait = await waitUntilAvailable(modelUrl, (timeoutMs) => pollRestStatus(target, timeoutMs), options, progress);
    Object.assign(report, { versions: wait.versions, attempts: wait.attempts, waitedMs: wait.waitedMs });
    if (wait.outcome !== "ok") {
        return end(wait.outcome, wait.message);
    }

    if (options.golden !== undefined) {
        return end(...await goldenOverRest(target, options, options.golden, { deadline, requestLimit }, progress, report));
    }

    let request = options.request;
    if (request === undefined) {
        const built = await requestFromMetadata(target, options, requestLimit(), progress);
        if ("failure" in built) {
            return end(built.outcome, built.failure);
        }
        request = built.request;
    } else if (options.signature !== undefined && request.signature_name === undefined) {
        request = { signature_name: options.signature, ...request };
    }
    report.signature = request.signature_name ?? DEFAULT_SIGNATURE;
    report.request = request;

    progress(`predict: POST ${modelUrl}:predict (signature ${report.signature})`);
    const started = performance.now();
    let answer: HttpAnswer;
    try {
        answer = await httpJson(`${modelUrl}:predict`, requestLimit(), PREDICT_ANSWER_BYTES, credential, request);
    } catch (err) {
        return end("predict-error", `predict request failed: ${describeFetchError(err)}`);
    }
    report.latencyMs = Math.round((performance.now() - started) * 10) / 10;
    report.httpStatus = answer.status;
    const refused = refusalMessage(answer, "predict", credential);
    if (refused !== undefined) {
        return end("refused", `${modelUrl} ${refused}`);
    }
    report.answer = answer.body;
    const error = errorOf(answer);
    if (error !== undefined) {
        return end("predict-error", `predict failed with HTTP ${answer.status}: ${error}`);
    }
    const versions = wait.readiness?.available.join(", ") ?? "?";
    return end("ok", `model "${options.model}" (version ${versions}) answered in ${report.latencyMs} ms`);
}

/**
 * Sets the report's outcome, exit code and message, with the credential taken out of every text a
 * server's answer may have put in it (the message, each golden case's line and error).
 */
export function endReport<R extends SmokeReportBase<unknown>>(report: R, outcome: SmokeOutcome, message: string, credential: EndpointCredential | undefined): R {
    for (const c of report.golden?.cases ?? []) {
        c.text = redact(c.text, credential);
        if (c.error !== undefined) {
            c.error = redact(c.error, credential);
        }
    }
    return Object.assign(report, { outcome, exitCode: SMOKE_EXIT_CODES[outcome], message: redact(message, credential) });
}

export interface WaitResult {
    outcome: SmokeOutcome;
    message: string;
    versions: VersionStatus[];
    readiness?: Readiness;
    attempts: number;
    waitedMs: number;
}

/** What one status poll saw (over REST or gRPC); `hopeless`: no wait can help (a port fetch refuses, a server that does not speak HTTP/1.1). */
export type Poll =
    | { kind: "status"; versions: VersionStatus[] }
    | { kind: "unknown-model"; problem: string }
    | { kind: "hopeless"; problem: string }
    /** `status`: "HTTP 401", "UNAUTHENTICATED (...)"; `challenge`: the WWW-Authenticate scheme; `problem`: the sentence with its fix. */
    | { kind: "refused"; refusal: Refusal; status: string; challenge?: string; problem: string }
    | { kind: "problem"; problem: string; answered: boolean };

/** One GET of the model status, as a wait's poll (and `tfs doctor`'s look at the REST endpoint). */
export async function pollRestStatus({ modelUrl, credential }: RestTarget, timeoutMs: number): Promise<Poll> {
    let answer: HttpAnswer;
    try {
        answer = await httpJson(modelUrl, timeoutMs, STATUS_ANSWER_BYTES, credential);
    } catch (err) {
        const hopeless = hopelessFetchError(err, modelUrl);
        return hopeless !== undefined
            ? { kind: "hopeless", problem: hopeless }
            : { kind: "problem", problem: describeFetchError(err), answered: false };
    }
    const refusal = refusalOfHttp(answer.status);
    if (refusal !== undefined) {
        const status = `HTTP ${answer.status}`;
        return { kind: "refused", refusal, status, challenge: answer.challenge, problem: refusedText("the model status request", status, refusalAdvice(refusal, credential, answer.challenge)) };
    }
    const error = errorOf(answer);
    if (answer.status === 404) {
        return { kind: "unknown-model", problem: `HTTP 404: ${error}` };
    }
    if (error !== undefined) {
        return { kind: "problem", problem: `HTTP ${answer.status}: ${error}`, answered: true };
    }
    try {
        return { kind: "status", versions: parseModelStatus(answer.body) };
    } catch (err) {
        return { kind: "problem", problem: (err as Error).message, answered: true };
    }
}

/** Polls the model status at `modelUrl` (where `poll` asks) with exponential backoff until ready, unknown, or the deadline. */
export async function waitUntilAvailable(
    modelUrl: string,
    poll: (timeoutMs: number) => Promise<Poll>,
    options: Pick<SmokeOptions, "model" | "timeoutMs" | "pollTimeoutMs" | "initialBackoffMs" | "maxBackoffMs">,
    progress: (line: string) => void,
): Promise<WaitResult> {
    const started = Date.now();
    const deadline = started + options.timeoutMs;
    let backoff = options.initialBackoffMs ?? 250;
    let answered = false;
    let versions: VersionStatus[] = [];
    for (let attempts = 1; ; attempts++) {
        // Even a last look near the deadline gets a second: a remote load balancer can take that long to answer.
        const seen = await poll(withinDeadline(options.pollTimeoutMs ?? 5000, deadline));
        const waitedMs = Date.now() - started;
        const when = `(attempt ${attempts}, ${(waitedMs / 1000).toFixed(1)} s)`;
        let problem: string;
        if (seen.kind === "hopeless") {
            return { outcome: "unreachable", message: `cannot talk to TF Serving at ${modelUrl}: ${seen.problem}`, versions, attempts, waitedMs };
        } else if (seen.kind === "refused") {
            // A refusal is the endpoint's rule, not a server still starting: no wait changes it.
            return { outcome: "refused", message: `${modelUrl} ${seen.problem}`, versions, attempts, waitedMs };
        } else if (seen.kind === "unknown-model") {
            const message = `model "${options.model}" is not served at ${modelUrl} (${seen.problem}); check the model name`;
            return { outcome: "not-available", message, versions, attempts, waitedMs };
        } else if (seen.kind === "status") {
            answered = true;
            versions = seen.versions;
            const readiness = assessReadiness(versions);
            progress(`model "${options.model}": ${readiness.summary} ${when}`);
            if (readiness.ready) {
                return { outcome: "ok", message: "", versions, readiness, attempts, waitedMs };
            }
            problem = readiness.summary;
        } else {
            answered ||= seen.answered;
            problem = seen.problem;
            progress(`waiting for model "${options.model}" at ${modelUrl}: ${problem} ${when}`);
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
            const seconds = options.timeoutMs / 1000;
            return answered
                ? {
                    outcome: "not-available",
                    message: `model "${options.model}" did not become AVAILABLE within ${seconds} s: ${problem}`,
                    versions, attempts, waitedMs,
                }
                : {
                    outcome: "unreachable",
                    message: `nothing answered at ${modelUrl} within ${seconds} s: ${problem}`,
                    versions, attempts, waitedMs,
                };
        }
        await sleep(Math.min(backoff, remaining));
        backoff = Math.min(backoff * 2, options.maxBackoffMs ?? 5000);
    }
}

/** `--golden` over REST: the metadata's signatures, the cases checked against them, then each case's `:predict`. */
async function goldenOverRest(
    target: RestTarget,
    options: SmokeOptions,
    golden: GoldenInput,
    { deadline, requestLimit }: { deadline: number; requestLimit: () => number },
    progress: (line: string) => void,
    report: SmokeReport,
): Promise<[SmokeOutcome, string]> {
    const { modelUrl, credential } = target;
    const metadata = await readSignatures(target, requestLimit(), progress);
    if ("failure" in metadata) {
        return [metadata.outcome, metadata.failure];
    }
    const { signatures } = metadata;
    checkGolden(golden, signatures, options.model);
    progress(`predict: POST ${modelUrl}:predict (each case's own body)`);
    report.golden = await runGoldenCases(golden, async (c) => {
        let answer: HttpAnswer;
        try {
            answer = await httpJson(`${modelUrl}:predict`, requestLimit(), PREDICT_ANSWER_BYTES, credential, c.request);
        } catch (err) {
            return { error: `predict request failed: ${describeFetchError(err)}` };
        }
        const refused = refusalMessage(answer, "predict", credential);
        if (refused !== undefined) {
            return { error: refused };
        }
        const error = errorOf(answer);
        if (error !== undefined) {
            return { error: `predict failed with HTTP ${answer.status}: ${error}` };
        }
        try {
            // TF Serving leaves a single output unnamed in its answer: the signature names it.
            return { outputs: restOutputs(c, answer.body, Object.keys(signatures[c.signatureName].outputs)) };
        } catch (err) {
            return { error: (err as Error).message };
        }
    }, progress, deadline);
    const { outcome, message } = goldenOutcome(report.golden, options.model);
    return [outcome, message];
}

/**
 * "refused predict with HTTP 401: the endpoint asks callers for a credential ...", for an answer
 * that is a refusal (401, 403), else undefined. `what` names the request refused.
 */
function refusalMessage(answer: HttpAnswer, what: string, credential: EndpointCredential | undefined): string | undefined {
    const refusal = refusalOfHttp(answer.status);
    return refusal === undefined ? undefined : refusedText(what, `HTTP ${answer.status}`, refusalAdvice(refusal, credential, answer.challenge));
}

/** "refused WHAT with STATUS: ADVICE", over REST and gRPC alike (the endpoint's address goes before it). */
export function refusedText(what: string, status: string, advice: string): string {
    return `refused ${what} with ${status}: ${advice}`;
}

/** The progress line that says a credential goes with each request: its kind and source, never its value. */
export function credentialLine(credential: EndpointCredential, url: string): string {
    let plain = false;
    try {
        const { protocol, hostname } = new URL(url);
        plain = protocol === "http:" && !isLoopbackHost(hostname);
    } catch {
        // Not a URL (a gRPC HOST:PORT): the caller says whether it is plaintext.
    }
    return `credential: ${credential.kind === "bearer" ? "Bearer token" : "Basic user:password"} from ${credential.source} on every request`
        + (plain ? " (over plain http: anyone on the path can read it; prefer https)" : "");
}

/** 127.0.0.0/8, ::1 and localhost: a credential sent there in plain text never leaves the machine. */
export function isLoopbackHost(host: string): boolean {
    const bare = host.replace(/^\[|\]$/g, "");
    return bare === "localhost" || bare === "::1" || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** SmokeUsageError listing every case TF Serving would refuse or that could never match, one per line. */
export function checkGolden(golden: GoldenInput, signatures: Record<string, SignatureSpec>, model: string): void {
    const problems = goldenProblems(golden.cases, signatures, golden.file);
    if (problems.length > 0) {
        throw new SmokeUsageError(`${golden.file} does not fit model "${model}"'s signatures; nothing was sent:\n${problems.join("\n")}`);
    }
}

/** Reads the metadata and builds the request from the chosen signature. */
async function requestFromMetadata(
    target: RestTarget,
    options: SmokeOptions,
    timeoutMs: number,
    progress: (line: string) => void,
): Promise<{ request: PredictRequestBody } | MetadataFailure> {
    const metadata = await readSignatures(target, timeoutMs, progress);
    if ("failure" in metadata) {
        return metadata;
    }
    const name = options.signature ?? DEFAULT_SIGNATURE;
    return { request: exampleRequest(name, chooseSignature(metadata.signatures, name, options.model)) };
}

/** Why the metadata could not be read, and the outcome that makes. */
interface MetadataFailure {
    outcome: "predict-error" | "refused";
    failure: string;
}

/** The model's signatures from its REST metadata. */
async function readSignatures(
    { modelUrl, credential }: RestTarget,
    timeoutMs: number,
    progress: (line: string) => void,
): Promise<{ signatures: Record<string, SignatureSpec> } | MetadataFailure> {
    progress(`metadata: GET ${modelUrl}/metadata`);
    let answer: HttpAnswer;
    try {
        answer = await httpJson(`${modelUrl}/metadata`, timeoutMs, STATUS_ANSWER_BYTES, credential);
    } catch (err) {
        return { outcome: "predict-error", failure: `metadata request failed: ${describeFetchError(err)}` };
    }
    const refused = refusalMessage(answer, "the metadata request", credential);
    if (refused !== undefined) {
        return { outcome: "refused", failure: `${modelUrl} ${refused}` };
    }
    const error = errorOf(answer);
    if (error !== undefined) {
        return { outcome: "predict-error", failure: `metadata request failed with HTTP ${answer.status}: ${error}` };
    }
    try {
        return { signatures: parseModelMetadata(answer.body).signatures };
    } catch (err) {
        return { outcome: "predict-error", failure: `metadata answer is not TF Serving's: ${(err as Error).message}` };
    }
}

/** The signature `name` of a model's signatures; SmokeUsageError listing them when it has none of that name. */
export function chooseSignature(signatures: Record<string, SignatureSpec>, name: string, model: string): SignatureSpec {
    const signature = signatures[name];
    if (signature === undefined) {
        const known = Object.keys(signatures).sort().join(", ") || "none";
        throw new SmokeUsageError(`model "${model}" has no signature "${name}"; its signatures are: ${known} (choose one with --signature NAME)`);
    }
    return signature;
}

/** A one-example request for the signature; SmokeUsageError when the user must write one. */
export function exampleRequest(name: string, signature: SignatureSpec): PredictRequestBody {
    try {
        return buildPredictRequest(name, signature);
    } catch (err) {
        if (err instanceof UnsupportedSignatureError) {
            throw new SmokeUsageError(`${err.message}; write the request yourself and pass it with --input FILE`);
        }
        throw err;
    }
}

/** The `error` TF Serving puts in a failed answer, or why the answer is unusable; undefined for a good answer. */
function errorOf(answer: HttpAnswer): string | undefined {
    const body = answer.body as { error?: unknown } | undefined;
    if (body !== undefined && typeof body === "object" && body !== null && typeof body.error === "string") {
        return body.error;
    }
    if (answer.status < 200 || answer.status >= 300) {
        return answer.text.trim().slice(0, 300) || "(empty body)";
    }
    if (body === undefined) {
        return `answer is not JSON: ${answer.text.trim().slice(0, 300)}`;
    }
    return undefined;
}

/** Status and metadata answers are a few kilobytes; more is not TF Serving. */
const STATUS_ANSWER_BYTES = 8 * 2 ** 20;
/** A predict answer holds the model's outputs for one example: generous, but bounded. */
const PREDICT_ANSWER_BYTES = 64 * 2 ** 20;
/** Even a last request near the deadline gets a second: a remote load balancer can take that long to answer. */
export const MIN_REQUEST_MS = 1000;

/** A request's time limit: `limitMs`, cut to what is left until `deadline`, but at least MIN_REQUEST_MS. */
export function withinDeadline(limitMs: number, deadline: number): number {
    return Math.max(MIN_REQUEST_MS, Math.min(limitMs, deadline - Date.now()));
}

/** The answer passed its size cap; reading stopped there. */
class AnswerTooLargeError extends Error {
    constructor(readonly limitBytes: number) {
        super(`the answer is larger than ${limitBytes / 2 ** 20} MiB`);
        this.name = "AnswerTooLargeError";
    }
}

/**
 * GET (or POST `body` as JSON) and parse the answer; throws only when no usable HTTP answer came
 * back. The whole exchange, body included, ends by `timeoutMs` on a timer of our own that keeps
 * the process alive: AbortSignal.timeout's timer does not, and fetch on a connection the server
 * closes at once can stay pending forever, so the process would exit 0 with nothing said.
 */
async function httpJson(
    url: string,
    timeoutMs: number,
    limitBytes: number,
    credential: EndpointCredential | undefined,
    body?: unknown,
): Promise<HttpAnswer> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
            const err = Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: "TimeoutError" });
            controller.abort(err);
            reject(err);
        }, timeoutMs);
    });
    const exchange = (async () => {
        const response = await fetch(url, {
            method: body === undefined ? "GET" : "POST",
            headers: { ...authorizationHeaders(credential), ...(body === undefined ? {} : { "content-type": "application/json" }) },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: controller.signal,
        });
        const text = await readText(response, limitBytes);
        return { status: response.status, body: parseTfServingJson(text), text, challenge: challengeScheme(response.headers.get("www-authenticate")) };
    })();
    // Once the timer wins, the aborted exchange rejects with nobody waiting for it.
    exchange.catch(() => undefined);
    try {
        return await Promise.race([exchange, expired]);
    } finally {
        clearTimeout(timer);
        controller.abort();
    }
}

/** The body as text, refusing to hold more than `limitBytes` of it. */
async function readText(response: Response, limitBytes: number): Promise<string> {
    if (Number(response.headers.get("content-length") ?? 0) > limitBytes) {
        throw new AnswerTooLargeError(limitBytes);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    for (;;) {
        const chunk = reader === undefined ? { done: true as const } : await reader.read();
        if (chunk.done) {
            return Buffer.concat(chunks).toString("utf8");
        }
        size += chunk.value.byteLength;
        if (size > limitBytes) {
            void reader?.cancel().catch(() => undefined);
            throw new AnswerTooLargeError(limitBytes);
        }
        chunks.push(chunk.value);
    }
}

/**
 * TF Serving writes float NaN and infinities as bare NaN / Infinity tokens, which JSON.parse
 * rejects; they are read back as strings. Returns undefined for text that is not JSON at all.
 */
export function parseTfServingJson(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        try {
            return JSON.parse(quoteNonFiniteNumbers(text));
        } catch {
            return undefined;
        }
    }
}

const NON_FINITE = ["-Infinity", "Infinity", "NaN"];

/** Quotes bare NaN / Infinity / -Infinity outside strings, in one pass (a regular expression with lookbehind was quadratic). */
function quoteNonFiniteNumbers(text: string): string {
    const parts: string[] = [];
    let copied = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
            if (c === "\\") {
                i++;
            } else if (c === "\"") {
                inString = false;
            }
            continue;
        }
        if (c === "\"") {
            inString = true;
            continue;
        }
        if (c !== "N" && c !== "I" && c !== "-") {
            continue;
        }
        const token = NON_FINITE.find((t) => text.startsWith(t, i));
        if (token !== undefined) {
            parts.push(text.slice(copied, i), `"${token}"`);
            i += token.length - 1;
            copied = i + 1;
        }
    }
    parts.push(text.slice(copied));
    return parts.join("");
}

/**
 * Why no retry can help, with the fix: a port fetch refuses to connect to, an answer that is not
 * HTTP/1.1 (TF Serving's gRPC port), TLS to a plain HTTP port, a URL that does not parse.
 * Undefined for failures a wait may cure.
 */
export function hopelessFetchError(err: unknown, url: string): string | undefined {
    const e = err as { cause?: { code?: string; message?: string; name?: string } };
    // Node 20's fetch names a parse failure by its llhttp code (HPE_...); Node 24's gives an HTTPParserError without one.
    const code = e?.cause?.code ?? (e?.cause?.name === "HTTPParserError" ? "HPE_" : "");
    const message = e?.cause?.message ?? "";
    if (message === "bad port") {
        const port = portOf(url);
        return `Node's fetch refuses to connect to port ${port} (a port browsers block for other protocols); `
            + "serve the REST API on another port, such as 8501 (the convention), or reach it through a port-forward on one";
    }
    if (code.startsWith("HPE_")) {
        return `the answer is not HTTP/1.1 (${message || code}); if this is TF Serving's gRPC port (8500 by convention), `
            + "point at its REST port instead (--rest_api_port, 8501 by convention)";
    }
    if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "EPROTO") {
        return "the server does not speak TLS on this port: use http:// instead of https://";
    }
    if (code === "ERR_INVALID_URL") {
        return `"${url}" is not a valid URL`;
    }
    return undefined;
}

function portOf(url: string): string {
    try {
        const u = new URL(url);
        return u.port || (u.protocol === "https:" ? "443" : "80");
    } catch {
        return "?";
    }
}

const CLOSED_WITHOUT_ANSWER = "the server accepted the connection and closed it without an answer "
    + "(not an HTTP server, or a proxy or load balancer with no backend ready)";

/** "connection refused", "timed out after 5000 ms", "host not found"... from a fetch failure. */
export function describeFetchError(err: unknown): string {
    const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (e?.name === "TimeoutError" || e?.name === "AbortError") {
        return "timed out waiting for an answer";
    }
    if (err instanceof AnswerTooLargeError) {
        return `${err.message}: not a TF Serving answer, or a model whose outputs are too large for a smoke test`;
    }
    const code = e?.cause?.code;
    const known: Record<string, string> = {
        ECONNREFUSED: "connection refused",
        ECONNRESET: CLOSED_WITHOUT_ANSWER,
        ENOTFOUND: "host not found (DNS)",
        EAI_AGAIN: "DNS lookup failed (try again)",
        EHOSTUNREACH: "host unreachable",
        ENETUNREACH: "network unreachable",
        ETIMEDOUT: "connection timed out",
        UND_ERR_SOCKET: CLOSED_WITHOUT_ANSWER,
    };
    if (code !== undefined) {
        return known[code] ?? `${code}: ${e.cause?.message ?? ""}`.trim();
    }
    return e?.cause?.message ?? e?.message ?? String(err);
}

function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Where a deployed stack serves: read from its outputs. */
export interface StackEndpoint {
    restUrl: string;
    model?: string;
}

/**
 * Picks the REST URL and model name from stack outputs: `restUrl` (the first model's) and the model
 * in `models` (endpoints keyed by model name) served there. Throws naming the missing output.
 */
export function endpointFromStackOutputs(outputs: Record<string, { value: unknown }>, stackName: string): StackEndpoint {
    const restUrl = outputs.restUrl?.value;
    if (typeof restUrl !== "string" || restUrl === "") {
        const names = Object.keys(outputs).sort().join(", ") || "none";
        throw new Error(
            `stack "${stackName}" has no restUrl output (its outputs: ${names}); deploy it first, or pass --url REST_URL`,
        );
    }
    const models = outputs.models?.value;
    const entries = models !== null && typeof models === "object" && !Array.isArray(models) ? Object.entries(models) : [];
    // The engine may hand the map back sorted by name: find the model by its endpoint, not its position.
    const served = entries.find(([, endpoints]) => (endpoints as { restUrl?: unknown } | null)?.restUrl === restUrl) ?? entries[0];
    return { restUrl, model: served?.[0] };
}
