import * as assert from "assert";
import { readIpv4Block, readIpv4Cidrs, readNodeBounds, readZones, section } from "../../../config/cloudConfig";
import { readConfig } from "../../../config/config";
import { ConfigError, ConfigReader } from "../../../config/configReader";
import { ROOT } from "../../support/cloudMocks";

describe("cloud config helpers", () => {
    it("section: a missing section still reports its keys under the section's prefix", () => {
        const top = new ConfigReader({});
        section(top, "gke").required("project", "the project");
        assert.deepStrictEqual(top.issues.map((i) => i.key), ["gke.project"]);
    });

    it("readZones: zones of the region, once each", () => {
        const r = new ConfigReader({ zones: ["us-west-2a", "eu-west-1a", "us-west-2a"] });
        assert.deepStrictEqual(readZones(r, "zones", "us-west-2", /^us-west-2[a-z]$/, "us-west-2a"), ["us-west-2a", "us-west-2a"]);
        assert.deepStrictEqual(r.issues.map((i) => [i.key, i.value]), [["zones[1]", "eu-west-1a"], ["zones", ["us-west-2a", "eu-west-1a", "us-west-2a"]]]);
    });

    it("readIpv4Block and readIpv4Cidrs name the key and the fix", () => {
        const r = new ConfigReader({ a: "10.0.0.5/24", b: ["10.0.0.0/8", "::/0"] });
        assert.strictEqual(readIpv4Block(r, "a", "10.0.0.0/16", 16, 28), "10.0.0.5/24");
        assert.strictEqual(readIpv4Block(r, "missing", "10.0.0.0/16", 16, 28), "10.0.0.0/16");
        readIpv4Cidrs(r, "b");
        assert.deepStrictEqual(r.issues.map((i) => i.key), ["a", "b[1]"]);
        assert.match(r.issues[0].expected, /the block is 10\.0\.0\.0\/24/);
    });

    it("readNodeBounds: defaults follow minNodes up; max below min is refused", () => {
        assert.deepStrictEqual(readNodeBounds(new ConfigReader({ minNodes: 6 }), { minNodes: 2, maxNodes: 4 }, 1), { minNodes: 6, maxNodes: 6 });
        const r = new ConfigReader({ minNodes: "3", maxNodes: "2" });
        readNodeBounds(r, { minNodes: 1, maxNodes: 4 }, 1);
        assert.deepStrictEqual(r.issues.map((i) => [i.key, i.value]), [["maxNodes", "2"]]);
    });
});

describe("cloud sections through readConfig", () => {
    const base = {
        "tf-serving:modelPath": "models/half_plus_two",
        "tf-serving:publicEndpoint": "true",
    };

    function problems(all: Record<string, string>): string {
        try {
            readConfig(all, "tf-serving", ROOT);
        } catch (err) {
            assert.ok(err instanceof ConfigError, String(err));
            return err.message;
        }
        return "";
    }

    it("lists every gke problem at once, each as tf-serving:<key> with the value and what is valid", () => {
        const message = problems({
            ...base,
            "tf-serving:cloud": "gcp",
            "tf-serving:gke": JSON.stringify({ project: "my-project", region: "us-central1", cpuPool: { machineType: "c4a-standard-4" }, gpuPool: { acceleratorType: "nvidia-tesla-t4", acceleratorCount: 0 }, subnetCidr: "10.0.0.0" }),
        });
        assert.match(message, /tf-serving:gke\.cpuPool\.machineType = "c4a-standard-4": is an Arm \(arm64\) type/);
        assert.match(message, /tf-serving:gke\.gpuPool\.acceleratorCount = 0: must be at least 1 GPU per node/);
        assert.match(message, /tf-serving:gke\.zones is not set: required with gke\.gpuPool/);
        assert.match(message, /tf-serving:gke\.subnetCidr = "10\.0\.0\.0": must be an IPv4 CIDR/);
    });

    it("accepts the eks section given as `pulumi config set --path` strings", () => {
        const config = readConfig({
            ...base,
            "tf-serving:cloud": "aws",
            "tf-serving:eks": JSON.stringify({ region: "eu-west-1", zones: ["eu-west-1a", "eu-west-1b"], cpuNodeGroup: { desiredNodes: "3", maxNodes: "5" }, deletionProtection: "false" }),
        }, "tf-serving", ROOT);
        assert.ok(config.cloud === "aws");
        assert.strictEqual(config.eks.cpuNodeGroup.desiredNodes, 3);
        assert.strictEqual(config.eks.cpuNodeGroup.maxNodes, 5);
        assert.strictEqual(config.eks.deletionProtection, false);
        assert.ok(!("gke" in config));
    });
});
