import * as assert from "assert";
import { readNodeBounds, recordArgsIssues, section } from "../../../config/cloudConfig";
import { readConfig } from "../../../config/config";
import { ConfigError, ConfigReader } from "../../../config/configReader";
import { ROOT } from "../../support/cloudMocks";

describe("cloud config helpers", () => {
    it("section: a missing section still reports its keys under the section's prefix", () => {
        const top = new ConfigReader({});
        section(top, "gke").required("project", "the project");
        assert.deepStrictEqual(top.issues.map((i) => i.key), ["gke.project"]);
    });

    it("readNodeBounds: defaults follow minNodes up (the checks are the resolvers', test/unit/components/clusterRules.test.ts)", () => {
        assert.deepStrictEqual(readNodeBounds(new ConfigReader({ minNodes: 6 }), { minNodes: 2, maxNodes: 4 }), { minNodes: 6, maxNodes: 6 });
        assert.deepStrictEqual(readNodeBounds(new ConfigReader({ minNodes: "3", maxNodes: "2" }), { minNodes: 1, maxNodes: 4 }), { minNodes: 3, maxNodes: 2 });
    });

    it("recordArgsIssues: a resolver's issues under the section's keys, a list entry counted as written, a key refused once", () => {
        const top = new ConfigReader({ eks: JSON.stringify({ zones: [7, "us-east-1a"], region: 5 }) });
        const r = section(top, "eks");
        r.stringList("zones");
        r.string("region");
        recordArgsIssues(r, [
            { field: "network.zones[0]", value: "us-east-1a", message: "must be a zone of region us-west-2" },
            { field: "region", value: 5, message: "must be an AWS region" },
            { field: "network.cidr", value: "10.0.0.0/8", message: "is too large" },
        ], (field) => field.replace(/^network\.cidr$/, "vpcCidr").replace(/^network\./, ""));
        assert.deepStrictEqual(top.issues.map((i) => [i.key, i.expected]), [
            ["eks.zones[0]", "must be a non-empty string"],
            ["eks.region", "must be a non-empty string"],
            ["eks.zones[1]", "must be a zone of region us-west-2"],
            ["eks.vpcCidr", "is too large"],
        ]);
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
