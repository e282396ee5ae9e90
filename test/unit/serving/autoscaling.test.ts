import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { readConfig } from "../../../config/config";
import { INFERENCE_APIS } from "../../../observability/metrics";
import { INFERENCE_REQUEST_RATE_METRIC, hpaSpec, replicaOwnership } from "../../../serving/autoscaling";

const PROJECT = "tf-serving";
const DIR = path.resolve(__dirname, "../../..");

function autoscalingOf(autoscaling: Record<string, unknown>) {
    const all = { [`${PROJECT}:modelPath`]: "models/half_plus_two", [`${PROJECT}:publicEndpoint`]: "true", [`${PROJECT}:autoscaling`]: JSON.stringify(autoscaling) };
    const settings = readConfig(all, PROJECT, DIR).models[0].autoscaling;
    assert.ok(settings);
    return settings;
}

describe("hpaSpec", () => {
    it("renders a CPU-only stack byte for byte as before the request rate existed (no live change on upgrade)", () => {
        // The spec components/modelServer.ts rendered inline up to this change, as JSON.
        const before = '{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"half-plus-two"},"minReplicas":2,"maxReplicas":4,'
            + '"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}],'
            + '"behavior":{"scaleDown":{"stabilizationWindowSeconds":300}}}';
        assert.strictEqual(JSON.stringify(hpaSpec("half-plus-two", autoscalingOf({ minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 70 }))), before);
        assert.strictEqual(JSON.stringify(hpaSpec("half-plus-two", autoscalingOf({ minReplicas: 2, maxReplicas: 4 }))), before, "no target: CPU at 70 %, as always");
    });

    it("scales on the inference request rate per pod through the custom metrics API", () => {
        const spec = hpaSpec("m", autoscalingOf({ minReplicas: 1, maxReplicas: 3, targetRequestsPerSecond: 20, scaleDownStabilizationSeconds: 30 }));
        assert.deepStrictEqual(spec.metrics, [
            { type: "Pods", pods: { metric: { name: "tfserving_inference_requests_per_second" }, target: { type: "AverageValue", averageValue: "20" } } },
        ], "a request-rate target alone leaves CPU out");
        assert.deepStrictEqual(spec.behavior, { scaleDown: { stabilizationWindowSeconds: 30 } });
    });

    it("follows both targets when both are set (the HPA takes the larger pod count)", () => {
        const spec = hpaSpec("m", autoscalingOf({ targetCpuUtilization: 60, targetRequestsPerSecond: 5 }));
        assert.deepStrictEqual(spec.metrics.map((m) => m.type), ["Resource", "Pods"]);
        assert.deepStrictEqual([spec.minReplicas, spec.maxReplicas], [2, 10]);
    });

    it("refuses settings with no target (a library caller's)", () => {
        assert.throws(() => hpaSpec("m", { minReplicas: 1, maxReplicas: 2 }), /targetCpuUtilization, targetRequestsPerSecond or both/);
    });

    it("names the metric the loopback environment's prometheus-adapter serves, from the same inference APIs", () => {
        const go = fs.readFileSync(path.join(DIR, "tools/e2e-env/go/e2e-env/internal/metricsapi/metricsapi.go"), "utf8");
        assert.match(go, new RegExp(`const RequestRateMetric = "${INFERENCE_REQUEST_RATE_METRIC}"`));
        const apis = /var InferenceAPIs = \[\]string\{([^}]*)\}/.exec(go);
        assert.ok(apis, "metricsapi.go declares InferenceAPIs");
        assert.deepStrictEqual(apis[1].split(",").map((a) => a.trim().replace(/"/g, "")), [...INFERENCE_APIS]);
    });
});

describe("replicaOwnership: the replica count through autoscaling turned on and off", () => {
    const hpa = { minReplicas: 2, maxReplicas: 3, targetCpuUtilization: 90 };

    it("without an HPA: the config's count, applied by force so that it wins over a count an HPA wrote", () => {
        // pulumi-kubernetes provider/pkg/await/await.go, patchForce: only this annotation on the new
        // inputs (or the provider's enablePatchForce) makes a server-side apply force; an HPA writes the
        // count through the scale subresource as "kube-controller-manager" (pulumi/pulumi-kubernetes#2491).
        assert.deepStrictEqual(replicaOwnership(1, undefined), { replicas: 1, ignoreChanges: [], annotations: { "pulumi.com/patchForce": "true" } });
    });

    it("with an HPA: the count stays in the inputs, ignored after creation, without force", () => {
        // Left out of an apply, a field Pulumi alone owned is removed and defaulted (1 replica) before
        // the HPA acts (Kubernetes' server-side apply docs, "Transferring ownership"); ignored, the
        // provider keeps the live count, or leaves the field to the HPA once it owns it
        // (pulumi-kubernetes provider/pkg/await/await.go, handleSSAIgnoreFields).
        assert.deepStrictEqual(replicaOwnership(1, hpa), { replicas: 2, ignoreChanges: ["spec.replicas"] });
    });

    it("turning autoscaling off changes the Deployment's inputs (the provider diffs inputs against what it last applied)", () => {
        // The engine keeps an ignored input's old value, so the count alone would not differ: the annotation must.
        assert.notDeepStrictEqual(replicaOwnership(2, hpa).annotations, replicaOwnership(2, undefined).annotations);
    });
});
