import * as assert from "assert";
import { GpuPool, GpuServer, planGpuCapacity } from "../../../config/gpuCapacity";

/** The EKS example's GPU variant: one g5.xlarge (1 GPU). */
const ONE_G5: GpuPool = {
    nodes: 1, nodesKey: "eks.gpuNodeGroup.desiredNodes", alsoRaise: "eks.gpuNodeGroup.maxNodes",
    gpusPerNode: 1, gpusPerNodeKey: "eks.gpuNodeGroup.instanceType", nodeName: "g5.xlarge",
};
const l4Pool = (maxNodes: number, acceleratorCount = 1): GpuPool => ({
    nodes: maxNodes, nodesKey: "gke.gpuPool.maxNodes", gpusPerNode: acceleratorCount, gpusPerNodeKey: "gke.gpuPool.acceleratorCount", nodeName: "nvidia-l4",
});
const server = (name: string, pods: number, gpuCount = 1, prefix = ""): GpuServer => ({
    name, pods, podsKey: `${prefix}replicas`, gpuCount, gpuCountKey: `${prefix}gpuCount`,
});

describe("planGpuCapacity", () => {
    it("refuses 2 replicas on one 1-GPU node, naming the keys, the numbers and the fix", () => {
        const { issues } = planGpuCapacity(ONE_G5, [server("half-plus-two", 2)]);
        assert.strictEqual(issues.length, 1);
        assert.strictEqual(issues[0].key, "eks.gpuNodeGroup.desiredNodes");
        assert.strictEqual(issues[0].value, 1);
        const text = issues[0].expected;
        assert.match(text, /1 node x 1 GPU \(g5\.xlarge, eks\.gpuNodeGroup\.instanceType\) = 1 GPU/);
        assert.match(text, /need 2: model "half-plus-two" 2 pods \(replicas\) x 1 GPU \(gpuCount\)/);
        assert.match(text, /Pending forever/);
        assert.match(text, /Set eks\.gpuNodeGroup\.desiredNodes \(and eks\.gpuNodeGroup\.maxNodes\) to at least 2 \(3 to keep full capacity during rollouts\)/);
    });

    it("names canary.replicas when the canary's pods are what overflow the pool", () => {
        const [issue] = planGpuCapacity(ONE_G5, [{ ...server("m", 1), canaryPods: 1, canaryPodsKey: "canary.replicas" }]).issues;
        assert.match(issue.expected, /need 2: model "m" \(1 pod \(replicas\) \+ 1 canary pod \(canary\.replicas\)\) x 1 GPU \(gpuCount\)/);
    });

    it("rolls one pod at a time on an exactly sized pool (GKE maxNodes 2, 2 replicas): the surge pod would never fit", () => {
        const plan = planGpuCapacity(l4Pool(2), [server("m", 2)]);
        assert.deepStrictEqual(plan.issues, []);
        assert.deepStrictEqual(plan.rollouts, { m: "oneAtATime" });
    });

    it("surges where the pool has a GPU to spare for each model's extra pod", () => {
        assert.deepStrictEqual(planGpuCapacity(l4Pool(3), [server("m", 2)]).rollouts, { m: "surge" });
        assert.deepStrictEqual(planGpuCapacity(l4Pool(2, 4), [server("m", 3, 2)]).rollouts, { m: "surge" }, "8 GPUs: 6 steady + 2 surge");
        assert.deepStrictEqual(planGpuCapacity(l4Pool(2, 4), [server("m", 4, 2)]).rollouts, { m: "oneAtATime" }, "8 GPUs: 8 steady, none to spare");
    });

    it("sums several GPU models, and needs room for all their surges to surge", () => {
        const models = [server("a", 2, 1, "models[0]."), server("b", 1, 2, "models[1].")];
        const tight = planGpuCapacity(l4Pool(3, 2), models);
        assert.deepStrictEqual(tight.issues, []);
        assert.deepStrictEqual(tight.rollouts, { a: "oneAtATime", b: "oneAtATime" }, "6 GPUs hold 2x1 + 1x2, but not both surges (1 + 2)");
        assert.deepStrictEqual(planGpuCapacity(l4Pool(4, 2), models).rollouts, { a: "surge", b: "surge" }, "8 GPUs: 4 steady + 1 + 2 surge");
        const [issue] = planGpuCapacity(l4Pool(1, 2), models).issues;
        assert.strictEqual(issue.key, "gke.gpuPool.maxNodes");
        assert.match(issue.expected, /need 4: model "a" 2 pods \(models\[0\]\.replicas\) x 1 GPU \(models\[0\]\.gpuCount\) \+ model "b" 1 pod \(models\[1\]\.replicas\) x 2 GPUs/);
        assert.match(issue.expected, /to at least 2 \(4 to keep full capacity during rollouts\)/);
    });

    it("refuses a pod that asks for more GPUs than a node has", () => {
        const { issues } = planGpuCapacity(l4Pool(4, 2), [server("m", 1, 4)]);
        assert.deepStrictEqual(issues.map((i) => [i.key, i.value]), [["gpuCount", 4]]);
        assert.match(issues[0].expected, /a GPU node \(nvidia-l4\) has 2 \(gke\.gpuPool\.acceleratorCount\)/);
    });
});
