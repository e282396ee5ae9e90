import * as assert from "assert";
import { parse } from "yaml";
import { fakeDigest } from "../../../ops/mockRuntime";
import { deployAws } from "../../../stacks/aws";
import { ROOT, exampleConfig, runCloudStack } from "../../support/cloudMocks";

/* eslint-disable @typescript-eslint/no-explicit-any */
const NLB = { hostname: "a1b2c3-0123456789.elb.us-west-2.amazonaws.com" };

const HALF_PLUS_TWO = `${ROOT}/models/half_plus_two`;
/** Two models in one stack: one on CPU, one on GPU. */
const MIXED = {
    "tf-serving:modelPath": "",
    "tf-serving:modelName": "",
    "tf-serving:models": JSON.stringify([
        { name: "cpu-model", path: HALF_PLUS_TWO },
        { name: "gpu-model", path: HALF_PLUS_TWO, gpu: true },
    ]),
};

describe("EKS stack (deployAws under mocks)", () => {
    it("the example stack: VPC, cluster, CPU node group, one ECR repository, model; no device plugin", async () => {
        const { recorder } = await runCloudStack(deployAws, exampleConfig("aws-example"), NLB);
        const counts = recorder.countsByType();
        assert.strictEqual(counts["aws:eks/cluster:Cluster"], 1);
        assert.strictEqual(counts["aws:eks/nodeGroup:NodeGroup"], 1);
        assert.strictEqual(counts["aws:ecr/repository:Repository"], 1);
        assert.strictEqual(counts["aws:ecr/lifecyclePolicy:LifecyclePolicy"], 1);
        assert.strictEqual(counts["aws:ec2/subnet:Subnet"], 4);
        assert.strictEqual(counts["kubernetes:apps/v1:DaemonSet"], undefined);
        const provider = recorder.one("pulumi:providers:aws").inputs as any;
        assert.strictEqual(provider.region, "us-west-2");
    });

    it("exports externalAddress from the load balancer's hostname (AWS gives no ip)", async () => {
        const { outputs } = await runCloudStack(deployAws, exampleConfig("aws-example"), NLB);
        assert.strictEqual(outputs.externalAddress, NLB.hostname);
        assert.strictEqual(outputs.restUrl, `http://${NLB.hostname}:8501`);
        assert.strictEqual(outputs.grpcEndpoint, `${NLB.hostname}:8500`);
        assert.strictEqual(outputs.clusterName, "tf-serving-example");
        const exec = parse(outputs.kubeconfig as string).users[0].user.exec;
        assert.deepStrictEqual(exec.args.slice(0, 6), ["eks", "get-token", "--cluster-name", "tf-serving-example", "--region", "us-west-2"]);
    });

    it("asks for an NLB, keeping the configured source ranges", async () => {
        const { recorder } = await runCloudStack(deployAws, exampleConfig("aws-example"), NLB);
        const service = recorder.one("kubernetes:core/v1:Service").inputs as any;
        assert.strictEqual(service.metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"], "nlb");
        assert.deepStrictEqual(service.spec.loadBalancerSourceRanges, ["203.0.113.0/24"]);
    });

    it("pushes to ECR with GetAuthorizationToken credentials as secrets; pods run the digest ECR reports for the tag", async () => {
        const { recorder, outputs } = await runCloudStack(deployAws, exampleConfig("aws-example"), NLB);
        const image = recorder.one("docker:index/image:Image");
        assert.match((image.inputs as any).imageName, /^123456789012\.dkr\.ecr\.us-west-2\.amazonaws\.com\/tf-serving\/half-plus-two:ctx-[0-9a-f]{16}$/);
        const tag = String((image.inputs as any).imageName).split(":").pop();
        const lookup = recorder.calls.filter((c) => c.token === "aws:ecr/getImage:getImage");
        assert.deepStrictEqual(lookup.map((c) => c.args), [{ repositoryName: "tf-serving/half-plus-two", imageTag: tag }]);
        assert.strictEqual(outputs.imageRef, `123456789012.dkr.ecr.us-west-2.amazonaws.com/tf-serving/half-plus-two@${fakeDigest(`ecr tf-serving/half-plus-two:${tag}`)}`);
        // No Docker registry login for the lookup: ECR's token changes on every run and would show as a change.
        assert.deepStrictEqual(recorder.ofType("pulumi:providers:docker"), []);
        assert.ok(!recorder.calls.some((c) => c.token === "docker:index/getRegistryImage:getRegistryImage"));
        assert.strictEqual((image.inputs as any).registry.server, "123456789012.dkr.ecr.us-west-2.amazonaws.com");
        assert.ok(image.secretPaths.includes("registry.password"), `secret paths: ${image.secretPaths}`);
        assert.doesNotMatch(JSON.stringify(image.inputs), /mock-ecr-password/);
    });

    it("GPU and CPU models together: each on its own nodes, the device plugin on the GPU nodes", async () => {
        const config = exampleConfig("aws-example", (eks: any) => { eks.gpuNodeGroup = { instanceType: "g5.xlarge" }; }, MIXED);
        const { recorder, dockerfiles } = await runCloudStack(deployAws, config, NLB);
        const podOf = (name: string) => (recorder.one("kubernetes:apps/v1:Deployment", name).inputs as any).spec.template.spec;

        const gpu = podOf("gpu-model");
        assert.strictEqual(gpu.nodeSelector["tf-serving/pool"], "gpu");
        assert.ok(gpu.tolerations.some((t: any) => t.key === "nvidia.com/gpu" && t.operator === "Exists" && t.effect === "NoSchedule"));
        assert.strictEqual(gpu.containers[0].resources.limits["nvidia.com/gpu"], "1");
        assert.match(dockerfiles["gpu-model"], /^FROM tensorflow\/serving:[0-9.]+-gpu/m);

        const cpu = podOf("cpu-model");
        assert.strictEqual(cpu.nodeSelector["tf-serving/pool"], "cpu");
        assert.ok(!(cpu.tolerations ?? []).some((t: any) => t.key === "nvidia.com/gpu"), "a CPU model never tolerates GPU nodes");
        assert.doesNotMatch(dockerfiles["cpu-model"], /-gpu/);

        const group = recorder.one("aws:eks/nodeGroup:NodeGroup", "gpu").inputs as any;
        const plugin = (recorder.one("kubernetes:apps/v1:DaemonSet").inputs as any).spec.template.spec;
        for (const [label, value] of Object.entries(plugin.nodeSelector)) {
            assert.strictEqual(group.labels[label], value, "the device plugin selects labels the GPU nodes have");
        }
        assert.ok(group.taints.every((taint: any) => plugin.tolerations.some((t: any) => t.key === taint.key && t.operator === "Exists")));
        assert.deepStrictEqual(recorder.ofType("aws:ecr/repository:Repository").map((r) => (r.inputs as any).name), ["tf-serving/cpu-model", "tf-serving/gpu-model"]);
    });

    it("GPU serving without a GPU node group stops at config, naming the key", async () => {
        await assert.rejects(runCloudStack(deployAws, exampleConfig("aws-example", () => undefined, { "tf-serving:gpu": "true" }), NLB),
            /tf-serving:eks\.gpuNodeGroup is not set: model "half-plus-two" sets gpu: true, so the cluster needs a GPU node group/);
    });

    it("an arm64 node group stops at config with the reason", async () => {
        const config = exampleConfig("aws-example", (eks: any) => { eks.cpuNodeGroup.instanceType = "c7g.xlarge"; });
        await assert.rejects(runCloudStack(deployAws, config, NLB), /tf-serving:eks\.cpuNodeGroup\.instanceType = "c7g\.xlarge": is an Arm \(arm64\) type/);
    });
});
