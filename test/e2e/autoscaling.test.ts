/**
 * `autoscaling` really scales, on the environment's real metrics APIs (metrics-server for CPU,
 * prometheus-adapter for `tfserving_inference_requests_per_second`): one stack behind the Gateway,
 * first with a request-rate HPA, then (an update in place) with a CPU HPA. Each goes 1 -> 3 replicas
 * under a bounded load (REST and gRPC through the Gateway for the request rate; large REST predicts
 * for CPU) and back to 1 under a trickle once the load stops, the scale-down window shortened
 * through `autoscaling.scaleDownStabilizationSeconds`. No request fails throughout (a replica that
 * starts under load gets traffic only once Ready). The replica counts over time are printed.
 */
import * as assert from "assert";
import { E2eProject, MODEL, createProject, env, kubectl } from "../support/e2eProject";
import { grpcUnderTraffic } from "../support/grpcTraffic";
import { ReplicaSample, settledOf, showReplicas as show, watchReplicas } from "../support/replicaWatch";
import { predict, underTraffic } from "../support/traffic";

/** The Gateway API has no source ranges: the stack says the endpoint is open on purpose (the address is loopback here). */
const OPEN = { loadBalancerSourceRanges: undefined, publicEndpoint: true };
/** Three pods of 250m fit beside the other lane's pods (test/e2e/lanes.ts) on the real node's 2 cores. */
const CPU = "250m";
const SCALE_DOWN_SECONDS = 15;
/** Bounds of each wait: the HPA syncs every 15 s, the adapter's rate window is 1 min. */
const SCALE_UP_LIMIT_SECONDS = 240;
const SCALE_DOWN_LIMIT_SECONDS = 300;

describe("autoscaling on the real metrics APIs: the request-rate HPA and the CPU HPA go 1 -> 3 -> 1 with no failed request", function () {
    this.timeout(25 * 60 * 1000);
    let project: E2eProject;
    let restUrl: string;
    let grpcEndpoint: string;
    const gateway = { className: "" };
    const configure = (autoscaling: Record<string, unknown>) =>
        project.setConfig({ ...OPEN, cpu: CPU, endpoint: "gateway", gateway, autoscaling: { minReplicas: 1, maxReplicas: 3, scaleDownStabilizationSeconds: SCALE_DOWN_SECONDS, ...autoscaling } });

    before(async () => {
        gateway.className = env("TFS_E2E_GATEWAY_CLASS");
        project = await createProject();
    });

    after(async () => {
        await project?.dispose();
    });

    it("1. request rate: REST and gRPC through the Gateway scale it to 3, a trickle brings it back to 1", async () => {
        configure({ targetRequestsPerSecond: 5 });
        const up = await project.pulumi.up();
        assert.strictEqual(up.summary.result, "succeeded");
        restUrl = up.outputs.restUrl as string;
        grpcEndpoint = up.outputs.grpcEndpoint as string;
        assert.deepStrictEqual(await predict(restUrl, MODEL, [1, 2, 5]), [2.5, 3, 4.5]);
        const hpa = kubectl("get", "hpa", MODEL, "-n", project.namespace);
        assert.deepStrictEqual(hpa.spec.metrics.map((m: { type: string }) => m.type), ["Pods"]);

        const samples: ReplicaSample[] = [];
        const t0 = Date.now();
        const scaled = watchReplicas(project.namespace, t0, samples, SCALE_UP_LIMIT_SECONDS, (s) => s.ready === 3);
        const [rest, grpc] = await Promise.all([
            underTraffic(restUrl, MODEL, settledOf(scaled), { rps: 10, maxSeconds: SCALE_UP_LIMIT_SECONDS, expected: [2.5, 3, 4.5] }),
            grpcUnderTraffic(grpcEndpoint, { tls: false }, MODEL, settledOf(scaled), SCALE_UP_LIMIT_SECONDS),
        ]);
        const upSeconds = (await scaled).s;
        const tDown = Date.now();
        const settled = watchReplicas(project.namespace, t0, samples, SCALE_DOWN_LIMIT_SECONDS, (s) => s.desired === 1 && s.ready === 1);
        const trickle = await underTraffic(restUrl, MODEL, settledOf(settled), { rps: 1, maxSeconds: SCALE_DOWN_LIMIT_SECONDS, expected: [2.5, 3, 4.5] });
        await settled;
        console.log(`      request-rate HPA (s:desired/ready): ${show(samples)}; 3 ready after ${upSeconds} s of load, back to 1 `
            + `${Math.round((Date.now() - tDown) / 1000)} s after it stopped; REST ${rest.requests} (${rest.failures.length} failed), `
            + `gRPC ${grpc.requests} (${grpc.failures.length} failed), trickle ${trickle.requests} (${trickle.failures.length} failed)`);
        assert.deepStrictEqual([...rest.failures, ...grpc.failures, ...trickle.failures].slice(0, 5), []);
        assert.ok(rest.requests > 50 && grpc.requests > 50, "the load ran");
    });

    it("2. CPU: the same stack with a CPU target, large REST predicts scale it to 3, a trickle brings it back to 1", async () => {
        // One pod's CPU is capped at its request (limit = request): a target of 20 % lets a load of
        // about half of one pod (5 large predicts a second, measured: 3 a second asked for 2 pods at
        // 25 %) ask for 3 while that pod still keeps up with it. At 50 % the load would have to
        // exceed one pod's whole CPU, and calls queued past 5 s (10 a second: 20 of 928 timed out).
        configure({ targetCpuUtilization: 20 });
        const up = await project.pulumi.up();
        assert.strictEqual(up.summary.result, "succeeded");
        const hpa = kubectl("get", "hpa", MODEL, "-n", project.namespace);
        assert.deepStrictEqual(hpa.spec.metrics.map((m: { type: string }) => m.type), ["Resource"]);

        // half_plus_two on 20,000 values: decoding and encoding them is what costs the server CPU.
        const instances = Array.from({ length: 20_000 }, (_, i) => i / 7);
        const expected = instances.map((x) => x / 2 + 2);
        const samples: ReplicaSample[] = [];
        const t0 = Date.now();
        const scaled = watchReplicas(project.namespace, t0, samples, SCALE_UP_LIMIT_SECONDS, (s) => s.ready === 3);
        const load = await underTraffic(restUrl, MODEL, settledOf(scaled), { rps: 5, maxSeconds: SCALE_UP_LIMIT_SECONDS, instances, expected });
        const upSeconds = (await scaled).s;
        const tDown = Date.now();
        const settled = watchReplicas(project.namespace, t0, samples, SCALE_DOWN_LIMIT_SECONDS, (s) => s.desired === 1 && s.ready === 1);
        const trickle = await underTraffic(restUrl, MODEL, settledOf(settled), { rps: 1, maxSeconds: SCALE_DOWN_LIMIT_SECONDS, expected: [2.5, 3, 4.5] });
        await settled;
        console.log(`      CPU HPA (s:desired/ready): ${show(samples)}; 3 ready after ${upSeconds} s of load, back to 1 `
            + `${Math.round((Date.now() - tDown) / 1000)} s after it stopped; REST ${load.requests} (${load.failures.length} failed, p50 ${load.p50.toFixed(0)} ms), `
            + `trickle ${trickle.requests} (${trickle.failures.length} failed)`);
        assert.deepStrictEqual([...load.failures, ...trickle.failures].slice(0, 5), []);
    });
});
