import * as assert from "assert";
import { diagnose } from "../../../ops/doctor/diagnose";
import { probeEndpoints } from "../../../ops/doctor/endpointProbe";
import { formatReport } from "../../../ops/doctor/report";
import { EndpointAnswer } from "../../../ops/doctor/snapshot";
import { endpointsFromStack } from "../../../ops/doctor/stackTarget";
import { MODEL, NOW, deployment, pod, service, snapshot } from "../../support/doctorFixtures";

const REST = { model: MODEL, transport: "REST", call: `GET http://203.0.113.7:8501/v1/models/${MODEL}` } as const;
const GRPC = { model: MODEL, transport: "gRPC", call: "GetModelStatus grpc://203.0.113.7:8500" } as const;
const TOKEN = { kind: "bearer", source: "--token-file /run/token" } as const;

/** A model server whose pods are all Ready, with what its endpoints answered. */
function healthyWith(endpoints: EndpointAnswer[], model?: string) {
    const s = snapshot({
        pods: [pod({ ready: true }), pod({ name: "other-6b7c9d8f5-x2kqp", model: "other", ready: true })],
        deployments: [deployment({ replicas: 1 }), deployment({ model: "other", replicas: 1 })],
        services: [service({ address: "203.0.113.7" }), service({ model: "other", address: "203.0.113.8" })],
        endpoints,
    });
    return diagnose(s, { now: NOW, model });
}

describe("tfs doctor: the endpoint's answer", () => {
    it("lists each call and its answer, and finds nothing in an answer", () => {
        const d = healthyWith([{ ...REST, answer: "version 123 AVAILABLE" }, { ...GRPC, answer: "version 123 AVAILABLE", credential: TOKEN }]);
        assert.deepStrictEqual(d.findings, []);
        assert.strictEqual(d.healthy, true);
        assert.deepStrictEqual(d.checked.endpoints, [
            { model: MODEL, call: REST.call, answer: "version 123 AVAILABLE" },
            { model: MODEL, call: GRPC.call, answer: "version 123 AVAILABLE" },
        ]);
        const text = formatReport({ diagnosis: d, cluster: { server: "https://203.0.113.1" }, unreadLogs: [] });
        assert.match(text, new RegExp(`^endpoint of ${MODEL}: GET http://203\\.0\\.113\\.7:8501/v1/models/${MODEL}: version 123 AVAILABLE$`, "m"));
    });

    it("names a 401 without a credential as the endpoint asking for one (information: the pods are fine), with both options", () => {
        const d = healthyWith([{ ...REST, answer: "HTTP 401", refusal: "unauthenticated", challenge: "Basic" }]);
        const [f] = d.findings;
        assert.strictEqual(d.findings.length, 1);
        assert.strictEqual(f.kind, "endpoint-refused");
        assert.strictEqual(f.severity, "info");
        assert.strictEqual(d.healthy, true);
        assert.strictEqual(f.object, `endpoint/http://203.0.113.7:8501/v1/models/${MODEL}`);
        assert.strictEqual(f.model, MODEL);
        assert.strictEqual(f.summary, "the REST endpoint asks callers for a credential (HTTP 401): authentication, not a dead server");
        assert.deepStrictEqual(f.evidence, [
            `${REST.call}: HTTP 401`,
            "WWW-Authenticate: Basic (the endpoint's challenge)",
            "no credential sent (neither --token-file/TFS_TOKEN nor --basic-auth-file/TFS_BASIC_AUTH)",
        ]);
        assert.match(f.fix, /^The endpoint asks callers for a credential and none was sent \(it asks for Basic credentials\): pass --token-file FILE or set TFS_TOKEN .*--basic-auth-file FILE or set TFS_BASIC_AUTH/);
        assert.match(f.fix, /\.$/);
    });

    it("names a credential refused over gRPC (UNAUTHENTICATED) as an error naming its source", () => {
        const d = healthyWith([{ ...GRPC, answer: "UNAUTHENTICATED (Received HTTP status code 401)", refusal: "unauthenticated", credential: TOKEN }]);
        const [f] = d.findings;
        assert.strictEqual(f.severity, "error");
        assert.strictEqual(d.healthy, false);
        assert.strictEqual(f.object, "endpoint/grpc://203.0.113.7:8500");
        assert.strictEqual(f.summary, "the gRPC endpoint did not accept the credential from --token-file /run/token (UNAUTHENTICATED (Received HTTP status code 401))");
        assert.ok(f.evidence.includes("sent the bearer token from --token-file /run/token"), f.evidence.join("\n"));
        assert.match(f.fix, /^The endpoint did not accept the bearer token from --token-file \/run\/token: check that/);
    });

    it("names a 403 (PERMISSION_DENIED) as a range that leaves the caller out: a warning without a credential, an error with one", () => {
        const [bare] = healthyWith([{ ...REST, answer: "HTTP 403", refusal: "forbidden" }]).findings;
        assert.strictEqual(bare.severity, "warning");
        assert.strictEqual(bare.summary, "the REST endpoint refused this caller (HTTP 403): a source range or a missing right, not a dead server");
        assert.match(bare.fix, /outside the ranges the endpoint allows \(loadBalancerSourceRanges in the stack's config/);
        const [sent] = healthyWith([{ ...GRPC, answer: "PERMISSION_DENIED (caller not allowed)", refusal: "forbidden", credential: TOKEN }]).findings;
        assert.strictEqual(sent.severity, "error");
        assert.match(sent.fix, /or the credential from --token-file \/run\/token lacks a right the endpoint requires/);
    });

    it("keeps only the chosen model's calls with --model", () => {
        const d = healthyWith([
            { ...REST, answer: "HTTP 401", refusal: "unauthenticated" },
            { model: "other", transport: "REST", call: "GET http://203.0.113.8:8501/v1/models/other", answer: "HTTP 403", refusal: "forbidden" },
        ], "other");
        assert.deepStrictEqual(d.findings.map((f) => [f.kind, f.model]), [["endpoint-refused", "other"]]);
        assert.deepStrictEqual(d.checked.endpoints.map((e) => e.model), ["other"]);
    });
});

describe("the doctor's calls to an endpoint", () => {
    it("answer without a call for a stack whose load balancer has no address yet, and make no finding", async () => {
        const answers = await probeEndpoints([MODEL], { fallback: { restUrl: "http://:8501", grpcEndpoint: ":8500" }, timeoutMs: 500 });
        assert.deepStrictEqual(answers, [
            { model: MODEL, transport: "REST", call: `GET http://:8501/v1/models/${MODEL}`, answer: `no usable answer: "http://:8501/v1/models/${MODEL}" is not a valid URL` },
            { model: MODEL, transport: "gRPC", call: "GetModelStatus grpc://:8500", answer: "no usable answer: no host: the endpoint has no address yet" },
        ]);
        assert.deepStrictEqual(healthyWith(answers).findings, []);
    });
});

describe("a stack's endpoints for the doctor", () => {
    it("are each model's restUrl and grpcEndpoint from the models output, TLS where the restUrl is https", () => {
        assert.deepStrictEqual(endpointsFromStack({
            restUrl: { value: "https://203.0.113.7" },
            models: { value: {
                a: { restUrl: "https://203.0.113.7", grpcEndpoint: "203.0.113.7:443", modelStatusUrl: "x" },
                b: { restUrl: "http://203.0.113.8:8501", grpcEndpoint: "203.0.113.8:8500", grpcAuthority: "b.grpc.example.com" },
            } },
        }), { models: {
            a: { restUrl: "https://203.0.113.7", grpcEndpoint: "203.0.113.7:443", tls: true },
            b: { restUrl: "http://203.0.113.8:8501", grpcEndpoint: "203.0.113.8:8500", tls: false, grpcAuthority: "b.grpc.example.com" },
        } });
    });

    it("are restUrl and grpcEndpoint for every model without a models output, and none without either", () => {
        assert.deepStrictEqual(endpointsFromStack({ restUrl: { value: "http://127.0.0.1:8501" }, grpcEndpoint: { value: "127.0.0.1:8500" } }),
            { fallback: { restUrl: "http://127.0.0.1:8501", grpcEndpoint: "127.0.0.1:8500", tls: false } });
        assert.deepStrictEqual(endpointsFromStack({ kubeconfig: { value: "..." } }), {});
    });
});
