import * as assert from "assert";
import { sizeServer } from "../../../serving/sizing";
import {
    BASE_IMAGE_BYTES, NODE_READY_SECONDS, PROVIDER_DEFAULT_SECONDS, PULL_BYTES_PER_SECOND, deploymentTimeouts, rollingUpdate, rolloutTiming,
} from "../../../serving/rollout";

const MI = 2 ** 20;
const GI = 2 ** 30;

describe("rollingUpdate", () => {
    it("surges one pod and never drops below the desired count", () => {
        assert.deepStrictEqual(rollingUpdate("surge"), { maxUnavailable: 0, maxSurge: 1 });
    });

    it("replaces one pod at a time without a surge pod, for a GPU pool with no GPU to spare", () => {
        assert.deepStrictEqual(rollingUpdate("oneAtATime"), { maxUnavailable: 1, maxSurge: 0 });
    });
});

describe("rolloutTiming", () => {
    const timing = (gpu: boolean, modelBytes: number, pods: number) => rolloutTiming({
        sizing: sizeServer({ servedVersionBytes: [modelBytes], gpu, batching: false, overrides: {} }),
        gpu, modelBytes, pods, terminationGraceSeconds: 30,
    });

    it("waits longer than the provider's 10 minutes for a first GPU rollout of a 2 GiB model", () => {
        const t = timing(true, 2 * GI, 2);
        const sizing = sizeServer({ servedVersionBytes: [2 * GI], gpu: true, batching: false, overrides: {} });
        const pull = Math.ceil((BASE_IMAGE_BYTES.gpu + 2 * GI) / PULL_BYTES_PER_SECOND);
        assert.strictEqual(t.podSeconds, NODE_READY_SECONDS.gpu + pull + sizing.startupBudgetSeconds + 10);
        assert.ok(t.createSeconds > PROVIDER_DEFAULT_SECONDS, `create ${t.createSeconds} s`);
        assert.ok(t.updateSeconds >= t.createSeconds);
        assert.deepStrictEqual(deploymentTimeouts(t), { create: `${Math.ceil(t.createSeconds / 60)}m`, update: `${Math.ceil(t.updateSeconds / 60)}m` });
    });

    it("never waits less than the provider's default, even for a small CPU model", () => {
        const t = timing(false, 1 * MI, 1);
        assert.strictEqual(t.createSeconds, PROVIDER_DEFAULT_SECONDS);
        assert.strictEqual(deploymentTimeouts(t).create, "10m");
    });

    it("grows with the model, the GPU and the number of pods replaced one by one", () => {
        assert.ok(timing(false, 4 * GI, 2).podSeconds > timing(false, 100 * MI, 2).podSeconds, "a bigger model pulls and loads longer");
        assert.ok(timing(true, 100 * MI, 2).podSeconds > timing(false, 100 * MI, 2).podSeconds, "a GPU node, a CUDA image and CUDA start");
        assert.ok(timing(true, 100 * MI, 6).updateSeconds > timing(true, 100 * MI, 2).updateSeconds, "each pod is one more step");
    });

    it("gives each rollout step, a pod waiting for a new node included, its whole budget before reporting no progress", () => {
        const t = timing(true, 2 * GI, 2);
        assert.strictEqual(t.progressDeadlineSeconds, t.podSeconds + 30);
    });
});
