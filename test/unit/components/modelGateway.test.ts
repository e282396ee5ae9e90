import * as assert from "assert";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ModelGateway, ModelGatewayArgs, modelGatewayIssues } from "../../../components/modelGateway";
import { GatewayPlatformSettings } from "../../../components/clouds/gateways";
import { MockOptions } from "../../../ops/planRuntime";
import { MockRun, settleOutput, startMockRuntime } from "../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway";
const HTTP_ROUTE = "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute";
const GRPC_ROUTE = "kubernetes:gateway.networking.k8s.io/v1:GRPCRoute";
const ADDRESS: MockOptions = { state: ({ type }) => (type === GATEWAY ? { status: { addresses: [{ type: "IPAddress", value: "192.0.2.9" }] } } : undefined) };

async function gateway(args: Partial<Pick<ModelGatewayArgs, "className" | "tlsSecretName" | "canary" | "sourceRanges" | "basicAuthUsers">> & GatewayPlatformSettings = {}, mock: MockOptions = ADDRESS): Promise<{ rec: MockRun; gw: ModelGateway }> {
    const rec = await startMockRuntime(mock);
    const provider = new k8s.Provider("test", {});
    const gw = new ModelGateway("half-plus-two", { model: "half-plus-two", namespace: "serving", className: "traefik", tlsSecretName: "tfs-tls", ...args }, { provider });
    await rec.settle();
    return { rec, gw };
}

const MIDDLEWARE = "kubernetes:traefik.io/v1alpha1:Middleware";
const SECRET = "kubernetes:core/v1:Secret";
const USERS = `alice:{SHA}${"A".repeat(27)}=`;

describe("ModelGateway", () => {
    it("on EKS refuses a certificate that is no ACM ARN and a drain time the ALB refuses, in one line, before registering any child", async () => {
        const rec = await startMockRuntime(ADDRESS);
        const provider = new k8s.Provider("test", {});
        assert.throws(() => new ModelGateway("half-plus-two", {
            model: "half-plus-two", namespace: "serving", className: "tf-serving-alb", platform: "eks", certificateArn: "my-cert", drainSeconds: -5,
        }, { provider }), (e: Error) => /^ModelGateway half-plus-two: certificateArn must be an ACM certificate ARN[^\n]*; drainSeconds must be a whole number of seconds from 0 to 3600/.test(e.message));
        await rec.settle();
        // The platform's objects are rendered, and so checked, before the component registers anything.
        assert.deepStrictEqual(rec.resources.map((r) => r.type), ["pulumi:providers:kubernetes"]);
    });

    it("with Traefik: the callers' Secret, then the ranges' and the credentials' Middlewares, before the routes that reference them", async () => {
        const { rec } = await gateway({ controller: "traefik", sourceRanges: ["127.0.0.0/8"], basicAuthUsers: USERS, canary: true });
        const secret = rec.one(SECRET).inputs as any;
        assert.deepStrictEqual([secret.metadata.name, secret.metadata.namespace, secret.type], ["half-plus-two-callers", "serving", "Opaque"]);
        assert.strictEqual(secret.stringData, "[secret]", "the callers reach the engine as a secret (the recorder shows no secret's value)");
        assert.deepStrictEqual(rec.ofType(MIDDLEWARE).map((m) => (m.inputs as any).metadata.name).sort(), ["half-plus-two-basic-auth", "half-plus-two-source-ranges"]);
        const auth = rec.ofType(MIDDLEWARE).find((m) => (m.inputs as any).metadata.name === "half-plus-two-basic-auth")!;
        assert.strictEqual((auth.inputs as any).spec.basicAuth.secret, "half-plus-two-callers");
        for (const type of [HTTP_ROUTE, GRPC_ROUTE]) {
            assert.deepStrictEqual((rec.one(type).inputs as any).spec.rules[0].filters.map((f: any) => f.extensionRef.name), ["half-plus-two-source-ranges", "half-plus-two-basic-auth"], type);
        }
    });

    it("refuses, before registering anything, what it cannot enforce: ranges without the controller, a malformed range, plain passwords, credentials on GKE", async () => {
        const rec = await startMockRuntime(ADDRESS);
        const provider = new k8s.Provider("test", {});
        const refused = (args: Partial<ModelGatewayArgs>) => assert.throws(
            () => new ModelGateway("m", { model: "m", namespace: "serving", className: "traefik", ...args } as ModelGatewayArgs, { provider }), (err: Error) => {
                assert.doesNotMatch(err.message, /hunter2|AAAA/, "the callers never appear in a message");
                return /^ModelGateway m: /.test(err.message) ? (assert.ok(err.message.length > 20), true) : false;
            });
        refused({ sourceRanges: ["127.0.0.0/8"] });
        refused({ controller: "traefik", sourceRanges: ["10.0.0.1/8"] } as Partial<ModelGatewayArgs>);
        refused({ controller: "traefik", basicAuthUsers: "alice:hunter2" } as Partial<ModelGatewayArgs>);
        refused({ platform: "gke", basicAuthUsers: USERS } as Partial<ModelGatewayArgs>);
        refused({ controller: "traefik", grpcHostname: "10.0.0.1" } as Partial<ModelGatewayArgs>);
        await rec.settle();
        assert.deepStrictEqual(rec.resources.filter((r) => r.type !== "pulumi:providers:kubernetes").map((r) => r.type), [], "nothing registered");
    });

    it("callers known only as an Output (a config secret) are checked once known: a one-line RunError, no route registered", async () => {
        // The SDK rethrows an input's error while serializing it; the Node.js host prints a RunError's message alone.
        const seen: unknown[] = [];
        const keep = process.listeners("unhandledRejection");
        process.removeAllListeners("unhandledRejection");
        process.on("unhandledRejection", (e) => seen.push(e));
        let rec: MockRun | undefined;
        try {
            rec = await startMockRuntime(ADDRESS);
            const provider = new k8s.Provider("test", {});
            new ModelGateway("m", { model: "m", namespace: "serving", className: "traefik", controller: "traefik", basicAuthUsers: pulumi.secret("alice:hunter2") }, { provider });
            await rec.settle().catch((e: unknown) => seen.push(e));
            await new Promise((resolve) => setImmediate(resolve));
        } finally {
            process.removeAllListeners("unhandledRejection");
            keep.forEach((l) => process.on("unhandledRejection", l));
        }
        assert.ok(seen.length > 0, "refused");
        for (const err of seen) {
            assert.ok(pulumi.RunError.isInstance(err), String(err));
            assert.match((err as Error).message, /ModelGateway m: basicAuthUsers line 1 is not `user:HASH`/);
            assert.doesNotMatch((err as Error).message, /hunter2|\n/);
        }
        const types = rec!.resources.map((r) => r.type);
        assert.ok(!types.includes(HTTP_ROUTE) && !types.includes(GRPC_ROUTE) && !types.includes(MIDDLEWARE), `the routes wait on the callers' Secret: ${types.join(", ")}`);
    });

    it("a program's second generic Gateway of a class needs a gRPC host of its own (their Gateways may share one address)", () => {
        const args = (grpcHostname?: string): ModelGatewayArgs => ({ model: "two", namespace: "serving", className: "tfs-e2e-traefik", grpcHostname });
        const fields = (a: ModelGatewayArgs, earlier: { className: string; grpcHostname?: string }[]) => modelGatewayIssues(a, earlier).map((i) => i.field);
        assert.deepStrictEqual(fields(args(), [{ className: "tfs-e2e-traefik" }]), ["grpcHostname"]);
        assert.deepStrictEqual(fields(args("two.grpc.example.com"), [{ className: "tfs-e2e-traefik" }]), ["grpcHostname"], "the first has none: it takes every host");
        assert.deepStrictEqual(fields(args("two.grpc.example.com"), [{ className: "tfs-e2e-traefik", grpcHostname: "two.grpc.example.com" }]), ["grpcHostname"]);
        assert.deepStrictEqual(fields(args("two.grpc.example.com"), [{ className: "tfs-e2e-traefik", grpcHostname: "one.grpc.example.com" }]), []);
        assert.deepStrictEqual(fields(args(), [{ className: "another-class" }]), []);
    });

    it("a Gateway of the class, an HTTPRoute and a GRPCRoute as its children, the outputs at the Gateway's address", async () => {
        const { rec, gw } = await gateway();
        const kinds = rec.resources.filter((r) => r.parent === "tf-serving:index:ModelGateway::half-plus-two").map((r) => r.type).sort();
        assert.deepStrictEqual(kinds, [GRPC_ROUTE, GATEWAY, HTTP_ROUTE]);
        const gatewayInputs = rec.one(GATEWAY).inputs as any;
        assert.strictEqual(gatewayInputs.spec.gatewayClassName, "traefik");
        assert.strictEqual(gatewayInputs.metadata.namespace, "serving");
        assert.strictEqual((rec.one(GRPC_ROUTE).inputs as any).metadata.namespace, "serving");
        assert.strictEqual(gatewayInputs.spec.listeners[0].tls.certificateRefs[0].name, "tfs-tls");
        assert.strictEqual(await settleOutput(gw.externalAddress), "192.0.2.9");
        assert.strictEqual(await settleOutput(gw.restUrl), "https://192.0.2.9:8501");
        assert.strictEqual(await settleOutput(gw.grpcEndpoint), "192.0.2.9:8500");
        assert.deepStrictEqual(gw.routes, [{ kind: "HTTPRoute", name: "half-plus-two" }, { kind: "GRPCRoute", name: "half-plus-two" }]);
    });

    it("the compiler keeps each platform's settings to its platform (a type error, not a run-time surprise)", () => {
        const common = { model: "m", namespace: "serving", className: "c" };
        // @ts-expect-error an ALB serves gRPC only on HTTPS listeners: EKS needs its ACM certificate
        const eksWithout: ModelGatewayArgs = { ...common, platform: "eks" };
        // @ts-expect-error certificateArn is the AWS Load Balancer Controller's, not GKE's
        const gkeWithArn: ModelGatewayArgs = { model: "m", namespace: "serving", className: "c", platform: "gke", certificateArn: "arn" };
        const fine: ModelGatewayArgs[] = [common, { ...common, platform: "gke", certificateMap: "m" }, { ...common, platform: "eks", certificateArn: "a", drainSeconds: 30 }];
        assert.strictEqual([eksWithout, gkeWithArn, ...fine].length, 5);
    });

    it("keeps a live stack's objects: each is aliased to its former parent, the ModelServer of the same name", async () => {
        const { rec } = await gateway();
        for (const type of [GATEWAY, HTTP_ROUTE, GRPC_ROUTE]) {
            assert.deepStrictEqual(rec.one(type).aliasParents, ["tf-serving:index:ModelServer::half-plus-two"], type);
        }
    });

    it("without a canary the routes have one backend without a weight (no change to a live route); with one, two weighted 100 and 0", async () => {
        const plain = (await gateway()).rec;
        assert.deepStrictEqual((plain.one(HTTP_ROUTE).inputs as any).spec.rules[0].backendRefs, [{ group: "", kind: "Service", name: "half-plus-two", port: 8501 }]);
        assert.strictEqual((await gateway()).gw.canaryService, undefined);
        const { rec, gw } = await gateway({ canary: true });
        assert.strictEqual(gw.canaryService, "half-plus-two-canary", "the Service ModelServer's canary makes");
        for (const [type, port] of [[HTTP_ROUTE, 8501], [GRPC_ROUTE, 8500]] as const) {
            assert.deepStrictEqual((rec.one(type).inputs as any).spec.rules[0].backendRefs, [
                { group: "", kind: "Service", name: "half-plus-two", port, weight: 100 },
                { group: "", kind: "Service", name: "half-plus-two-canary", port, weight: 0 },
            ], type);
        }
    });

    it("on GKE and EKS the canary's Service gets the load balancer's policy the model's Service has", async () => {
        const gke = (await gateway({ platform: "gke", canary: true })).rec;
        const policies = gke.ofType("kubernetes:networking.gke.io/v1:HealthCheckPolicy").map((r) => (r.inputs as any).spec.targetRef.name).sort();
        assert.deepStrictEqual(policies, ["half-plus-two", "half-plus-two-canary"]);
        const eks = (await gateway({ platform: "eks", tlsSecretName: undefined, certificateArn: "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", canary: true })).rec;
        const groups = eks.ofType("kubernetes:gateway.k8s.aws/v1:TargetGroupConfiguration").map((r) => (r.inputs as any).spec.targetReference.name).sort();
        assert.deepStrictEqual(groups, ["half-plus-two", "half-plus-two-canary"]);
    });
});
