import * as assert from "assert";
import { OFFLINE_LIVE_CHANGES_NOTE, formatPlan, planStack } from "../../../ops/plan";
import { ROOT, exampleConfig, runCloudStack } from "../../support/cloudMocks";

/* eslint-disable @typescript-eslint/no-explicit-any */
const IP = { ip: "203.0.113.10" };
const NLB = { hostname: "a1b2c3-0123456789.elb.us-west-2.amazonaws.com" };

/** Deploys config `a` under mocks and returns the outputs its next preview reads back. */
async function deployed(a: Record<string, string>, lb: { ip?: string; hostname?: string }): Promise<Record<string, unknown>> {
    const { outputs } = await runCloudStack(a, lb);
    assert.ok(outputs.deployedSettings, "the stack records its settings");
    return outputs;
}

const subnetsByZone = (run: Awaited<ReturnType<typeof runCloudStack>>) => Object.fromEntries(run.recorder.ofType("aws:ec2/subnet:Subnet")
    .map((s) => [s.name, (s.inputs as any).cidrBlock]));

describe("a running stack changed (config A deployed, then config B previewed, under mocks)", () => {
    it("GKE: privateNodes switched on a running stack stops the preview, naming the old and the new value and the way out", async () => {
        const a = exampleConfig("gcp-example");
        const outputs = await deployed(a, IP);
        assert.deepStrictEqual((outputs.deployedSettings as any).gke, {
            project: "my-gcp-project", region: "us-central1", clusterName: "tf-serving-example", deletionProtection: false, privateNodes: false, subnetCidr: "10.0.0.0/20",
        });
        const b = exampleConfig("gcp-example", (gke: any) => { gke.privateNodes = true; });
        await assert.rejects(runCloudStack(b, IP, undefined, outputs), (err: Error) => {
            assert.match(err.message, /tf-serving:gke\.privateNodes = true: changed from false on the running stack/);
            assert.match(err.message, /Give gke\.clusterName a new name/);
            return true;
        });
        // The same change on a stack never deployed is a plain creation.
        const fresh = await runCloudStack(b, IP);
        assert.strictEqual(fresh.recorder.ofType("gcp:compute/routerNat:RouterNat").length, 1);
    });

    it("GKE: privateNodes with a new clusterName on an unprotected cluster goes ahead (a new cluster beside the old one)", async () => {
        const outputs = await deployed(exampleConfig("gcp-example"), IP);
        const b = exampleConfig("gcp-example", (gke: any) => { gke.privateNodes = true; gke.clusterName = "tf-serving-private"; });
        const { recorder } = await runCloudStack(b, IP, undefined, outputs);
        assert.strictEqual((recorder.one("gcp:container/cluster:Cluster").inputs as any).name, "tf-serving-private");
    });

    it("EKS: a zone appended keeps every existing subnet's CIDR; the control plane keeps the zones it was created with", async () => {
        const a = exampleConfig("aws-example");
        const before = await runCloudStack(a, NLB);
        const outputs = before.outputs;
        const b = exampleConfig("aws-example", (eks: any) => { eks.zones = [...eks.zones, "us-west-2c"]; });
        const after = await runCloudStack(b, NLB, undefined, outputs);
        const was = subnetsByZone(before);
        const now = subnetsByZone(after);
        for (const [name, cidr] of Object.entries(was)) {
            assert.strictEqual(now[name], cidr, `${name} keeps its CIDR`);
        }
        assert.deepStrictEqual(Object.keys(now).filter((n) => !(n in was)).sort(), ["eks-vpc-private-us-west-2c", "eks-vpc-public-us-west-2c"]);
        const controlPlane = (after.recorder.one("aws:eks/cluster:Cluster").inputs as any).vpcConfig.subnetIds;
        assert.ok(controlPlane.every((id: string) => !id.includes("us-west-2c")), `control plane subnets: ${controlPlane}`);
        assert.strictEqual(controlPlane.length, 4);
        const nodes = (after.recorder.one("aws:eks/nodeGroup:NodeGroup").inputs as any).subnetIds;
        assert.ok(nodes.includes("eks-vpc-private-us-west-2c-id"), "the nodes use the new zone");
        assert.deepStrictEqual((after.outputs.deployedSettings as any).eks.network.clusterZones, ["us-west-2a", "us-west-2b"], "recorded for the next change too");
    });

    it("EKS: a zone removed (us-west-2a), or the VPC range changed, stops the preview", async () => {
        const outputs = await deployed(exampleConfig("aws-example"), NLB);
        const swapped = exampleConfig("aws-example", (eks: any) => { eks.zones = ["us-west-2b", "us-west-2c"]; });
        await assert.rejects(runCloudStack(swapped, NLB, undefined, outputs), /tf-serving:eks\.zones = \["us-west-2b","us-west-2c"\]: changed from \["us-west-2a","us-west-2b"\]/);
        const cidr = exampleConfig("aws-example", (eks: any) => { eks.vpcCidr = "10.1.0.0/16"; });
        await assert.rejects(runCloudStack(cidr, NLB, undefined, outputs), /tf-serving:eks\.vpcCidr = "10\.1\.0\.0\/16": changed from "10\.0\.0\.0\/16"/);
    });

    it("EKS: kubernetesVersion bumped one minor moves the node groups and the add-ons with it; two minors stop the preview", async () => {
        const pinned = (version: string) => exampleConfig("aws-example", (eks: any) => { eks.kubernetesVersion = version; }, {
            "tf-serving:autoscaling": JSON.stringify({ minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 70 }),
        });
        const outputs = await deployed(pinned("1.32"), NLB);
        assert.strictEqual((outputs.deployedSettings as any).eks.kubernetesVersion, "1.32");
        const { recorder } = await runCloudStack(pinned("1.33"), NLB, undefined, outputs);
        assert.strictEqual((recorder.one("aws:eks/nodeGroup:NodeGroup").inputs as any).version, "1.33");
        const addons = recorder.ofType("aws:eks/addon:Addon").map((a) => [(a.inputs as any).addonName, (a.inputs as any).addonVersion]);
        assert.deepStrictEqual(addons.sort(), [
            ["metrics-server", "v0.0.0-metrics-server-for-1.33-eksbuild.1"],
            ["vpc-cni", "v0.0.0-vpc-cni-for-1.33-eksbuild.1"],
        ]);
        await assert.rejects(runCloudStack(pinned("1.34"), NLB, undefined, outputs), /eks\.kubernetesVersion = "1\.34": changed from "1\.32" .* Set "1\.33"/);
    });

    it("EKS: a stack deployed by an earlier version (outputs, no record) keeps its subnets where they were carved, and records that", async () => {
        const legacy = { clusterName: "tf-serving-example", restUrl: `http://${NLB.hostname}:8501` };
        const { recorder, outputs } = await runCloudStack(exampleConfig("aws-example"), NLB, undefined, legacy);
        const publics = recorder.ofType("aws:ec2/subnet:Subnet").filter((s) => s.name.includes("public")).map((s) => (s.inputs as any).cidrBlock);
        assert.deepStrictEqual(publics, ["10.0.192.0/19", "10.0.224.0/19"], "the two-zone layout earlier versions made");
        assert.strictEqual((outputs.deployedSettings as any).eks.network.subnetScheme, "byCount");
    });

    it("tfs plan (offline: no engine, no backend) plans as for a new stack and says so", async () => {
        const plan = await planStack(ROOT, "aws-example");
        assert.deepStrictEqual(plan.notes, [OFFLINE_LIVE_CHANGES_NOTE]);
        assert.match(formatPlan(plan), /^Note: not checked against the running stack/m);
        assert.deepStrictEqual((await planStack(ROOT, "dev")).notes, [], "a local stack records nothing to check");
    });
});
