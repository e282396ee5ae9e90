import * as assert from "assert";
import * as path from "path";
import { readConfig } from "../../../config/config";
import { prepareModels } from "../../../stacks/prepare";

const ROOT = path.resolve(__dirname, "../../..");
const PROJECT = "tf-serving";

function prepared(values: Record<string, unknown>) {
    const all = Object.fromEntries(Object.entries({ modelPath: "models/half_plus_two", publicEndpoint: "true", ...values })
        .map(([k, v]) => [`${PROJECT}:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
    return prepareModels(readConfig(all, PROJECT, ROOT), PROJECT);
}

describe("prepareModels", () => {
    const gke = (maxNodes: number) => ({ project: "my-project", region: "us-central1", zones: ["us-central1-a"], gpuPool: { acceleratorType: "nvidia-l4", maxNodes } });

    it("warns that one GPU replica on a pool with no GPU to spare makes every update an outage, and for how long", () => {
        const { models, warnings } = prepared({ cloud: "gcp", gpu: "true", replicas: "1", gke: gke(1) });
        const warning = warnings.find((w) => /outage/.test(w));
        assert.ok(warning, JSON.stringify(warnings));
        assert.match(warning, /^model "half-plus-two": the GPU pool has no GPU to spare/);
        assert.match(warning, new RegExp(`up to ${models[0].sizing.startupBudgetSeconds} s`));
        assert.match(warning, /README, GPU capacity/);
    });

    it("says nothing when a second replica keeps serving, or the pool has room to surge", () => {
        for (const values of [{ replicas: "2", gke: gke(2) }, { replicas: "1", gke: gke(2) }]) {
            const { warnings } = prepared({ cloud: "gcp", gpu: "true", ...values });
            assert.deepStrictEqual(warnings.filter((w) => /outage/.test(w)), [], JSON.stringify(values));
        }
    });
});
