/**
 * The release's work against a cluster, on an in-memory stand-in of the three API clients it uses:
 * how many canary pods each step runs, when the canary is deleted after its weight went to 0, and a
 * route write that meets a conflict. The stand-in answers as the API server does for these calls
 * (a replace with a stale resourceVersion is a 409; a Deployment's status follows its replicas) and
 * each canary pod's metrics page counts the calls the weight sends it, still for a moment after the
 * weight went to 0 (a Gateway applies a route change late).
 */
import * as assert from "assert";
import type { Clients, ReleaseInputs } from "../../../components/canary/release";
import { CanaryFailed, finish, release } from "../../../components/canary/release";
import { TF_SERVING_METRICS } from "../../../observability/metrics";

/* eslint-disable @typescript-eslint/no-explicit-any */

const NS = "ns";
const MODEL = "m";
const CANARY = "m-canary";

function inputs(extra: Partial<ReleaseInputs> = {}): ReleaseInputs {
    return {
        namespace: NS, model: MODEL, image: "new", serving: MODEL, canary: CANARY,
        canaryDeployment: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: CANARY, namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: CANARY } } } },
        routes: [{ kind: "HTTPRoute", name: MODEL }, { kind: "GRPCRoute", name: MODEL }],
        steps: [10, 50], holdSeconds: 0, gates: { maxErrorRatio: 0.01, maxP99Ms: 1000, minRequests: 1 },
        readySeconds: 10, settleSeconds: 1,
        ...extra,
    };
}

/** What the stand-in saw: each event with the time it happened. */
interface Seen { at: number; what: string }

/** How a pod answers `:predict`: y = x / 2 + offset for each instance, as half_plus_two (2) and half_plus_three (3) do. */
const halfPlus = (offset: number) => (body: any) => ({ status: 200, text: JSON.stringify({ predictions: body.instances.map((x: number) => x / 2 + offset) }) });

function cluster(opts: {
    servingReplicas: number; conflicts?: number; lagReads?: number; canaryAnswers?: (body: unknown) => { status: number; text: string };
    /** The serving Deployment's pod spec; default one container running "old". */
    servingPod?: Record<string, unknown>;
}) {
    const seen: Seen[] = [];
    const note = (what: string) => seen.push({ at: Date.now(), what });
    const versions: Record<string, number> = { httproutes: 1, grpcroutes: 1 };
    const route = () => ({ metadata: { name: MODEL, resourceVersion: "1" }, spec: { rules: [{ backendRefs: [{ name: MODEL, weight: 100 }, { name: CANARY, weight: 0 }] }] } });
    const routes: Record<string, any> = { httproutes: route(), grpcroutes: route() };
    let conflicts = opts.conflicts ?? 0;
    let canary: any;
    let createdAt = Date.now();
    const calls = new Map<string, number>();
    /** Reads left during which a pod still gets calls after its weight went to 0. */
    let lag = 0;
    const weight = () => routes.httproutes.spec.rules[0].backendRefs[1].weight as number;
    const pods = () => Array.from({ length: canary?.spec.replicas ?? 0 }, (_, i) => ({
        metadata: { name: `${CANARY}-${i}` }, status: { startTime: new Date(createdAt), conditions: [{ type: "Ready", status: "True" }] },
    }));
    const clients = {
        apps: {
            readNamespacedDeployment: async ({ name }: any) => {
                if (name === MODEL) {
                    return { spec: { replicas: opts.servingReplicas, selector: { matchLabels: { app: MODEL } }, template: { spec: opts.servingPod ?? { containers: [{ image: "old" }] } } } };
                }
                if (!canary) {
                    throw Object.assign(new Error("not found"), { code: 404 });
                }
                const n = canary.spec.replicas;
                return { ...canary, status: { replicas: n, availableReplicas: n, updatedReplicas: n } };
            },
            createNamespacedDeployment: async ({ body }: any) => { canary = structuredClone(body); createdAt = Date.now(); note(`create canary ${body.spec.replicas}`); return canary; },
            replaceNamespacedDeploymentScale: async ({ body }: any) => { canary.spec.replicas = body.spec.replicas; note(`scale canary ${body.spec.replicas}`); return body; },
            deleteNamespacedDeployment: async () => { canary = undefined; note("delete canary"); return {}; },
        },
        core: {
            listNamespacedPod: async ({ labelSelector }: any) => (labelSelector === `app=${MODEL}`
                ? { items: Array.from({ length: opts.servingReplicas }, (_, i) => ({ metadata: { name: `${MODEL}-${i}` }, status: { conditions: [{ type: "Ready", status: "True" }] } })) }
                : { items: pods() }),
            connectGetNamespacedPodProxyWithPath: async ({ name, path }: any) => {
                if (String(path).endsWith("/metadata")) {
                    const tensor = (dtype: string) => ({ dtype, tensor_shape: { dim: [{ size: "-1" }, { size: "1" }] } });
                    return JSON.stringify({ model_spec: { name: MODEL, version: "1" }, metadata: { signature_def: { signature_def: {
                        serving_default: { method_name: "tensorflow/serving/predict", inputs: { x: tensor("DT_FLOAT") }, outputs: { y: tensor("DT_FLOAT") } },
                    } } } });
                }
                const pod = String(name).split(":")[0];
                if (weight() > 0) {
                    lag = opts.lagReads ?? 0;
                }
                const rises = weight() > 0 || lag-- > 0;
                const n = (calls.get(pod) ?? 0) + (rises ? 5 : 0);
                calls.set(pod, n);
                if (rises) {
                    note(`call on ${pod}`);
                }
                return [
                    `${TF_SERVING_METRICS.requestCount}{model_name="${MODEL}",status="OK"} ${n}`,
                    `${TF_SERVING_METRICS.requestLatency}_bucket{model_name="${MODEL}",API="predict",entrypoint="REST",le="1000"} ${n}`,
                    `${TF_SERVING_METRICS.requestLatency}_bucket{model_name="${MODEL}",API="predict",entrypoint="REST",le="+Inf"} ${n}`,
                    `${TF_SERVING_METRICS.requestLatency}_count{model_name="${MODEL}",API="predict",entrypoint="REST"} ${n}`,
                ].join("\n");
            },
            createNamespacedEvent: async () => ({}),
        },
        proxyPost: async (_ns: string, pod: string, path: string, body: unknown) => {
            note(`predict on ${pod} ${path}`);
            return pod.startsWith(CANARY) ? (opts.canaryAnswers ?? halfPlus(2))(body) : halfPlus(2)(body);
        },
        custom: {
            getNamespacedCustomObject: async ({ plural }: any) => structuredClone(routes[plural]),
            replaceNamespacedCustomObject: async ({ plural, body }: any) => {
                if (conflicts > 0) {
                    conflicts--;
                    versions[plural]++; // another writer changed the route since it was read
                    routes[plural].metadata.resourceVersion = String(versions[plural]);
                    note(`conflict on ${plural}`);
                    throw Object.assign(new Error("Conflict"), { code: 409 });
                }
                if (body.metadata.resourceVersion !== String(versions[plural])) {
                    throw Object.assign(new Error("Conflict"), { code: 409 });
                }
                versions[plural]++;
                routes[plural] = { ...body, metadata: { ...body.metadata, resourceVersion: String(versions[plural]) } };
                note(`weight ${plural} ${body.spec.rules[0].backendRefs[1].weight}`);
                return routes[plural];
            },
        },
    };
    return { clients: clients as unknown as Clients, seen, weight };
}

describe("the canary release against a cluster (in-memory API stand-in)", function () {
    this.timeout(60_000);

    it("runs ceil(weight x serving pods) canary pods at each step, each Ready before its step's weight", async () => {
        const c = cluster({ servingReplicas: 4 });
        const report = await release(inputs(), () => undefined, c.clients);
        assert.strictEqual(report.outcome, "passed");
        const order = c.seen.map((s) => s.what).filter((w) => /^(create|scale) canary|^weight httproutes/.test(w));
        assert.deepStrictEqual(order, ["create canary 1", "weight httproutes 10", "scale canary 2", "weight httproutes 50"],
            "1 pod at 10 % of 4 serving pods' traffic, 2 at 50 %");
    });

    it("with the model in an image volume, releases a new artifact under the same base, and skips the pair the serving pods run", async () => {
        const pod = (artifact: string) => ({ containers: [{ image: "base@sha256:1" }], volumes: [{ name: "tmp" }, { name: "model", image: { reference: artifact } }] });
        const same = await release(inputs({ image: "base@sha256:1 with model m@sha256:a" }), () => undefined, cluster({ servingReplicas: 2, servingPod: pod("m@sha256:a") }).clients);
        assert.strictEqual(same.outcome, "skipped");
        const c = cluster({ servingReplicas: 2, servingPod: pod("m@sha256:a") });
        const lines: string[] = [];
        const next = await release(inputs({ image: "base@sha256:1 with model m@sha256:b" }), (line) => lines.push(line), c.clients);
        assert.strictEqual(next.outcome, "passed");
        assert.match(lines[0], /starting m-canary with base@sha256:1 with model m@sha256:b beside base@sha256:1 with model m@sha256:a$/);
    });

    it("keeps canary.replicas as the floor, and never scales down during a release", async () => {
        const c = cluster({ servingReplicas: 2 });
        await release(inputs({ canaryDeployment: { ...inputs().canaryDeployment, spec: { replicas: 3, selector: { matchLabels: { app: CANARY } } } } }), () => undefined, c.clients);
        assert.deepStrictEqual(c.seen.map((s) => s.what).filter((w) => /canary \d/.test(w)), ["create canary 3"]);
    });

    it("deletes the canary only once its pods' counters stopped rising for the quiet spell, after the weight went to 0", async () => {
        const c = cluster({ servingReplicas: 2, lagReads: 6 });
        await release(inputs(), () => undefined, c.clients);
        await finish(inputs(), () => undefined, c.clients);
        const zero = c.seen.find((s) => s.what === "weight grpcroutes 0");
        const lastCall = [...c.seen].reverse().find((s) => s.what.startsWith("call on"));
        const deleted = c.seen.find((s) => s.what === "delete canary");
        assert.ok(zero && lastCall && deleted, JSON.stringify(c.seen.map((s) => s.what)));
        assert.ok(lastCall.at > zero.at, "the stand-in's pod still got calls after the weight went to 0");
        assert.ok(deleted.at - lastCall.at >= 1000, `deleted ${deleted.at - lastCall.at} ms after the last call; the quiet spell is 1 s`);
    });

    const GOLDEN = {
        file: "golden.jsonl",
        text: [
            JSON.stringify({ name: "three rows", request: { instances: [1, 2, 5] }, expected: { y: [2.5, 3, 4.5] } }),
            JSON.stringify({ name: "as served", request: { instances: [10] } }),
        ].join("\n"),
    };

    it("a golden file: every case on a canary pod before any weight moves, the one without expected outputs against a serving pod", async () => {
        const c = cluster({ servingReplicas: 2 });
        const lines: string[] = [];
        const report = await release(inputs({ golden: GOLDEN }), (l) => lines.push(l), c.clients);
        assert.strictEqual(report.outcome, "passed");
        const order = c.seen.map((s) => s.what).filter((w) => /^predict on|^weight httproutes/.test(w));
        assert.deepStrictEqual(order.slice(0, 4), [
            `predict on ${CANARY}-0 v1/models/${MODEL}:predict`, `predict on ${CANARY}-0 v1/models/${MODEL}:predict`, `predict on ${MODEL}-0 v1/models/${MODEL}:predict`, "weight httproutes 10",
        ], "the canary answers both cases and a serving pod the one without expected outputs, all before the first weight");
        assert.match(lines.join("\n"), /canary of m: golden check: 2 cases of golden\.jsonl answered as expected on the canary in [\d.]+ s \(worst \|difference\|: y 0\); moving traffic/);
    });

    it("a canary that answers otherwise fails the release at the golden check: no weight written, the canary deleted, the case named", async () => {
        const c = cluster({ servingReplicas: 2, canaryAnswers: halfPlus(3) });
        await assert.rejects(release(inputs({ golden: GOLDEN }), () => undefined, c.clients), (err: Error) => {
            assert.ok(err instanceof CanaryFailed);
            assert.match(err.message, /^canary of m failed: golden check: 2 of 2 cases of golden\.jsonl answered otherwise on the canary, before any traffic moved: /);
            assert.match(err.message, /case "three rows" \(golden\.jsonl:1\): output "y" at \[0\]: expected 2\.5, received 3\.5 \(worst \|difference\| 1, atol 0\.000001, rtol 0\.00001\)/);
            assert.match(err.message, /case "as served" \(golden\.jsonl:2\): output "y" at \[0\]: expected 7, received 8/);
            assert.match(err.message, /No traffic moved from old, .*the golden file's expected outputs or tolerances/);
            return true;
        });
        assert.deepStrictEqual(c.seen.filter((s) => s.what.startsWith("weight") && !s.what.endsWith(" 0")), [], "no weight ever moved to the canary");
        assert.ok(c.seen.some((s) => s.what === "delete canary"));
    });

    it("a canary that refuses a case (an error status) fails the check with the pod's own words", async () => {
        const c = cluster({ servingReplicas: 2, canaryAnswers: () => ({ status: 400, text: JSON.stringify({ error: "Serving signature name: \"serving_default\" not found in signature def" }) }) });
        await assert.rejects(release(inputs({ golden: GOLDEN }), () => undefined, c.clients),
            /case "three rows" \(golden\.jsonl:1\): the canary pod m-canary-0 answered 400: Serving signature name: "serving_default" not found/);
    });

    it("a route write that meets a conflict reads the route again and writes again", async () => {
        const c = cluster({ servingReplicas: 2, conflicts: 2 });
        const report = await release(inputs(), () => undefined, c.clients);
        assert.strictEqual(report.outcome, "passed");
        assert.strictEqual(c.seen.filter((s) => s.what.startsWith("conflict")).length, 2);
        assert.strictEqual(c.weight(), 50, "the weight was written after the conflicts");
    });
});
