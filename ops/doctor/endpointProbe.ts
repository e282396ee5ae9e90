/**
 * `tfs doctor`'s look at each model's endpoint from outside the cluster: one model status call over
 * REST and one over gRPC, made as a client makes them (with the credential given, if any), each
 * answer kept in the snapshot for the rules. The calls are smoke's single polls, so both commands
 * read an answer alike.
 */
import { assessReadiness } from "../modelStatus";
import { EndpointCredential, redact } from "../endpointCredential";
import { Poll, pollRestStatus } from "../smoke";
import { EndpointAnswer } from "./snapshot";

/** Where one model is served. */
export interface ModelEndpoints {
    /** REST base URL (the stack's `restUrl`), e.g. http://203.0.113.7:8501. */
    restUrl?: string;
    /** gRPC HOST:PORT (the stack's `grpcEndpoint`). */
    grpcEndpoint?: string;
    /** The gRPC endpoint serves TLS (a Gateway with a certificate, whose `restUrl` is https). */
    tls?: boolean;
    /** The host gRPC calls name, where a Gateway routes gRPC by host (the `models` output's `grpcAuthority`). */
    grpcAuthority?: string;
}

export interface EndpointCheck {
    /** Each model's endpoints by name (a stack's `models` output). */
    models?: Record<string, ModelEndpoints>;
    /** The endpoints of a model `models` does not list (`--url`, `--grpc-url`). */
    fallback?: ModelEndpoints;
    /** PEM file of the CA a TLS gRPC endpoint is verified with; default the system roots. */
    caFile?: string;
    /** Sent with every call; the answers keep only its kind and source. */
    credential?: EndpointCredential;
    /** Limit for each call, in milliseconds; default 5000. */
    timeoutMs?: number;
}

/** Calls every endpoint of every model in `models` at once; never throws for an endpoint's failure. */
export async function probeEndpoints(models: string[], check: EndpointCheck): Promise<EndpointAnswer[]> {
    const timeoutMs = check.timeoutMs ?? 5000;
    const { credential } = check;
    const calls = models.flatMap((model) => {
        const endpoints = check.models?.[model] ?? check.fallback ?? {};
        const rest = endpoints.restUrl === undefined ? [] : [restCall(model, endpoints.restUrl, credential, timeoutMs)];
        const grpc = endpoints.grpcEndpoint === undefined ? [] : [grpcCall(model, endpoints.grpcEndpoint, endpoints.tls === true, check, timeoutMs, endpoints.grpcAuthority)];
        return [...rest, ...grpc];
    });
    return Promise.all(calls);
}

async function restCall(model: string, restUrl: string, credential: EndpointCredential | undefined, timeoutMs: number): Promise<EndpointAnswer> {
    const modelUrl = `${restUrl.replace(/\/+$/, "")}/v1/models/${encodeURIComponent(model)}`;
    const poll = await pollRestStatus({ modelUrl, credential }, timeoutMs);
    return answerOf(model, "REST", `GET ${modelUrl}`, poll, credential);
}

async function grpcCall(model: string, target: string, tls: boolean, check: EndpointCheck, timeoutMs: number, authority?: string): Promise<EndpointAnswer> {
    // gRPC loads only when an endpoint is checked over it: most of doctor's runs read the cluster alone.
    const [{ pollGrpcStatus }, { TfServingGrpcClient }] = await Promise.all([import("../grpcSmoke"), import("../tfServingGrpc")]);
    const transport = { tls, caFile: check.caFile, credential: check.credential, authority };
    const call = `GetModelStatus ${tls ? "grpcs" : "grpc"}://${target}`;
    if (target.startsWith(":")) {
        return answerOf(model, "gRPC", call, { kind: "hopeless", problem: "no host: the endpoint has no address yet" }, check.credential);
    }
    let client: InstanceType<typeof TfServingGrpcClient>;
    try {
        client = new TfServingGrpcClient(target, transport);
    } catch (err) {
        // A stack output without an address yet (":8500"), or a CA file gone since the flags were read.
        return answerOf(model, "gRPC", call, { kind: "hopeless", problem: (err as Error).message }, check.credential);
    }
    try {
        return answerOf(model, "gRPC", call, await pollGrpcStatus(client, model, transport, timeoutMs), check.credential);
    } finally {
        client.close();
    }
}

function answerOf(model: string, transport: EndpointAnswer["transport"], call: string, poll: Poll, credential: EndpointCredential | undefined): EndpointAnswer {
    const origin = credential === undefined ? {} : { credential: { kind: credential.kind, source: credential.source } };
    const text = (answer: string) => redact(answer, credential);
    switch (poll.kind) {
        case "status":
            return { model, transport, call, answer: assessReadiness(poll.versions).summary, ...origin };
        case "unknown-model":
            return { model, transport, call, answer: text(`answered, but serves no model "${model}" (${poll.problem})`), ...origin };
        case "refused":
            return {
                model, transport, call, answer: text(poll.status), refusal: poll.refusal,
                ...(poll.challenge === undefined ? {} : { challenge: poll.challenge }), ...origin,
            };
        default:
            return { model, transport, call, answer: text(`no usable answer: ${poll.problem}`), ...origin };
    }
}
