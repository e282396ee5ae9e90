import * as assert from "assert";
import { readConfig } from "../../../config/config";
import {
    PodRequests, PoolNode, nodeFitProblems, poolCapacityProblem, reservedCpuMillis,
} from "../../../config/nodeFit";
import { poolNodeOf } from "../../../config/poolNodes";
import { gkeAllocatable, gkeReservedMemoryBytes } from "../../../components/clouds/gcp/nodes";
import { eksAllocatable } from "../../../components/clouds/aws/nodes";
import { machineShape } from "../../../components/clouds/gcp/machines";
import { instanceShape } from "../../../components/clouds/aws/instanceTypes";
import { PreparationError, prepareModels } from "../../../stacks/prepare";
import { exampleConfig } from "../../support/cloudMocks";

const MI = 2 ** 20;
const GI = 2 ** 30;

describe("node fit: what one node of a pool can allocate to pods", () => {
    it("reserves CPU by GKE's table (its documented examples): 6% of the first core, 1% of the second, 0.5% of the next 2, 0.25% above 4", () => {
        for (const [vcpus, millis] of [[1, 60], [2, 70], [4, 80], [8, 90], [16, 110], [32, 150], [64, 230]]) {
            assert.strictEqual(reservedCpuMillis(vcpus), millis, `${vcpus} vCPUs`);
        }
    });

    it("reserves memory by GKE's table (its documented examples): 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% to 128 GiB, 2% above", () => {
        for (const [gib, reservedGib] of [[4, 1], [8, 1.8], [16, 2.6], [32, 3.56], [64, 5.48], [128, 9.32], [256, 11.88]]) {
            assert.ok(Math.abs(gkeReservedMemoryBytes(gib * GI) - reservedGib * GI) < 1e-6 * GI, `${gib} GiB: ${gkeReservedMemoryBytes(gib * GI) / GI}`);
        }
        assert.strictEqual(gkeReservedMemoryBytes(0.6 * GI), 255 * MI, "under 1 GiB: 255 MiB");
    });

    it("knows the machine types' shapes: predefined from Compute Engine's list, shared-core E2, custom from the name, nothing it cannot know", () => {
        assert.deepStrictEqual(machineShape("e2-standard-4"), { vcpus: 4, memoryGib: 16 });
        assert.deepStrictEqual(machineShape("n1-standard-8"), { vcpus: 8, memoryGib: 30 });
        assert.deepStrictEqual(machineShape("n2-highmem-16"), { vcpus: 16, memoryGib: 128 });
        assert.deepStrictEqual(machineShape("g2-standard-8"), { vcpus: 8, memoryGib: 32 });
        assert.deepStrictEqual(machineShape("a2-highgpu-1g"), { vcpus: 12, memoryGib: 85 });
        // Google's table (Compute Engine API list): the 2-vCPU C4s break the per-vCPU rule, as does n2-highmem-128.
        assert.deepStrictEqual(machineShape("c4-standard-2"), { vcpus: 2, memoryGib: 7 });
        assert.deepStrictEqual(machineShape("c4-highmem-2"), { vcpus: 2, memoryGib: 15 });
        assert.deepStrictEqual(machineShape("c4-standard-4"), { vcpus: 4, memoryGib: 15 });
        assert.deepStrictEqual(machineShape("c4-highmem-4-lssd"), { vcpus: 4, memoryGib: 31 });
        assert.deepStrictEqual(machineShape("n2-highmem-128"), { vcpus: 128, memoryGib: 864 });
        assert.deepStrictEqual(machineShape("c3d-highcpu-30"), { vcpus: 30, memoryGib: 59 });
        assert.deepStrictEqual(machineShape("e2-medium"), { vcpus: 2, memoryGib: 4, sharedCore: true });
        assert.deepStrictEqual(machineShape("n2-custom-4-16384"), { vcpus: 4, memoryGib: 16 });
        assert.deepStrictEqual(machineShape("n2-custom-2-20480-ext"), { vcpus: 2, memoryGib: 20 });
        assert.deepStrictEqual(machineShape("custom-6-23040"), { vcpus: 6, memoryGib: 22.5 }, "N1's custom types carry no series");
        assert.deepStrictEqual(machineShape("e2-custom-medium-6144"), { vcpus: 2, memoryGib: 6, sharedCore: true });
        for (const unknown of ["f1-micro", "g1-small", "m9-ultramem-32", "n2-custom-medium-4096", "q7-custom-4-4096"]) {
            assert.strictEqual(machineShape(unknown), undefined, unknown);
        }
        assert.deepStrictEqual(instanceShape("m6i.xlarge"), { vcpus: 4, memoryGib: 16, maxPods: 58 });
        assert.deepStrictEqual(instanceShape("m5.large"), { vcpus: 2, memoryGib: 8, maxPods: 29 });
        assert.deepStrictEqual(instanceShape("c5.9xlarge"), { vcpus: 36, memoryGib: 72, maxPods: 234 });
        assert.deepStrictEqual(instanceShape("r6i.16xlarge"), { vcpus: 64, memoryGib: 512, maxPods: 737 });
        assert.deepStrictEqual(instanceShape("g4dn.xlarge"), { vcpus: 4, memoryGib: 16, maxPods: 29 });
        assert.deepStrictEqual(instanceShape("g5.48xlarge"), { vcpus: 192, memoryGib: 768, maxPods: 345 });
        assert.deepStrictEqual(instanceShape("t3.medium"), { vcpus: 2, memoryGib: 4, maxPods: 17 });
        for (const unknown of ["m6g.xlarge", "m5.metal", "x2idn.16xlarge", "p4d.24xlarge"]) {
            assert.strictEqual(instanceShape(unknown), undefined, unknown);
        }
    });

    it("GKE allocatable = capacity - reservation - 100 MiB eviction threshold; EKS memory keeps 255 MiB + 11 MiB per pod", () => {
        const e2 = gkeAllocatable({ vcpus: 4, memoryGib: 16 });
        assert.strictEqual(e2.cpuMillis, 3920);
        // GKE reserves 1060m on the shared-core E2 types, whatever their size: 940m is left of the 2 vCPUs.
        const medium = gkeAllocatable(machineShape("e2-medium")!);
        assert.strictEqual(medium.cpuMillis, 940);
        assert.strictEqual(medium.memoryBytes, 4 * GI - 1 * GI - 100 * MI);
        assert.strictEqual(e2.memoryBytes, 16 * GI - 2.6 * GI - 100 * MI);
        // m5.large: the EKS AMI reserves 574 MiB (255 + 11 x 29) for the kubelet.
        const m5 = eksAllocatable({ vcpus: 2, memoryGib: 8, maxPods: 29 });
        assert.strictEqual(m5.cpuMillis, 1930);
        assert.strictEqual(m5.memoryBytes, 8 * GI - 574 * MI - 100 * MI);
    });
});

const E2_STANDARD_4: PoolNode = { pool: "the CPU pool", key: "gke.cpuPool.machineType", machineType: "e2-standard-4", allocatable: gkeAllocatable({ vcpus: 4, memoryGib: 16 }) };
const pod = (cpuMillis: number, memoryBytes: number): PodRequests => ({
    model: "m", cpu: `${cpuMillis}m`, cpuMillis, cpuKey: "cpu", memoryRequest: `${memoryBytes / MI}Mi`, memoryBytes, memoryKey: "memoryRequest",
});

describe("nodeFitProblems", () => {
    const cases: { name: string; pod: PodRequests; keys: string[] }[] = [
        { name: "a pod that fits", pod: pod(1000, 2 * GI), keys: [] },
        { name: "exactly the allocatable CPU and memory", pod: pod(3920, 16 * GI - 2.6 * GI - 100 * MI), keys: [] },
        { name: "memory over by 1 MiB", pod: pod(1000, 16 * GI - 2.6 * GI - 99 * MI), keys: ["memoryRequest"] },
        { name: "CPU over: 4 CPUs on a 4-vCPU node", pod: pod(4000, 2 * GI), keys: ["cpu"] },
        { name: "both over", pod: pod(8000, 20 * GI), keys: ["memoryRequest", "cpu"] },
    ];
    for (const c of cases) {
        it(`${c.name}: ${c.keys.length === 0 ? "no problem" : c.keys.join(", ")}`, () => {
            assert.deepStrictEqual(nodeFitProblems(c.pod, E2_STANDARD_4).map((p) => p.key), c.keys);
        });
    }

    it("says the keys, the numbers, why (Pending forever) and the fix", () => {
        const [memory, cpu] = nodeFitProblems(pod(8000, 20 * GI), E2_STANDARD_4);
        assert.match(memory.message, /model "m" requests 20480Mi \(20\.0 GiB\) of memory per pod \(memoryRequest/);
        assert.match(memory.message, /gke\.cpuPool\.machineType = e2-standard-4: 16\.0 GiB\) can allocate at most 13\.3 GiB to pods/);
        assert.match(memory.message, /Pending forever/);
        assert.match(memory.message, /set gke\.cpuPool\.machineType to a machine type with more memory, or lower memoryRequest/);
        assert.match(cpu.message, /requests 8000m CPU per pod \(cpu\), but .* \(gke\.cpuPool\.machineType = e2-standard-4: 4 vCPUs\) can allocate at most 3920m/);
        assert.match(cpu.message, /lower cpu to at most 3920m/);
    });
});

describe("poolCapacityProblem: the models' pods at their most on a pool's nodes", () => {
    const size = { nodes: 2, nodesKey: "eks.cpuNodeGroup.desiredNodes", alsoRaise: "eks.cpuNodeGroup.maxNodes", autoscalerKey: "eks.clusterAutoscaler" };
    const demand = (pods: number, canaryPods = 0, cpuMillis = 1500) => ({ requests: pod(cpuMillis, GI), pods, podsKey: "replicas", canaryPods, canaryPodsKey: "canary.replicas" });

    it("passes what the nodes hold: 2 e2-standard-4 nodes take 2 pods of 1500m each", () => {
        assert.strictEqual(poolCapacityProblem([demand(4)], E2_STANDARD_4, size), undefined);
    });

    it("refuses pods past the nodes (pods are not split: 2 of 1500m per 3920m node, 2 nodes), naming every key that adds pods", () => {
        const p = poolCapacityProblem([demand(6, 1)], E2_STANDARD_4, size);
        assert.strictEqual(p?.key, "eks.cpuNodeGroup.desiredNodes");
        assert.match(p.message, /runs at most 2 nodes .*model "m" 6 pods \(replicas\) \+ 1 canary \(canary\.replicas\) x 1500m CPU \(cpu\)/);
        assert.match(p.message, /Set eks\.cpuNodeGroup\.desiredNodes \(and eks\.cpuNodeGroup\.maxNodes\) to at least 4.*eks\.clusterAutoscaler/);
        assert.match(poolCapacityProblem([demand(5)], E2_STANDARD_4, size)?.message ?? "", /at least 3/, "5 pods: 2 per node, 3 nodes");
    });
});

describe("node fit at preview (prepareModels on the example stacks)", () => {
    const problems = (all: Record<string, string>): string[] => {
        try {
            prepareModels(readConfig(all, "tf-serving", process.cwd()), "tf-serving");
            return [];
        } catch (err) {
            assert.ok(err instanceof PreparationError, String(err));
            return err.problems;
        }
    };

    it("passes the example stacks as they are", () => {
        assert.deepStrictEqual(problems(exampleConfig("gcp-example")), []);
        assert.deepStrictEqual(problems(exampleConfig("aws-example")), []);
    });

    it("GKE: a memory request larger than an e2-standard-4 node stops the preview, naming both keys", () => {
        const [p, ...rest] = problems(exampleConfig("gcp-example", () => undefined, { "tf-serving:memoryRequest": "14Gi", "tf-serving:memoryLimit": "16Gi" }));
        assert.deepStrictEqual(rest, []);
        assert.match(p, /^tf-serving:memoryRequest: model "half-plus-two" requests 14Gi \(14\.0 GiB\)/);
        assert.match(p, /tf-serving:gke\.cpuPool\.machineType = e2-standard-4: 16\.0 GiB\) can allocate at most 13\.3 GiB/);
    });

    it("EKS without the Cluster Autoscaler: replicas, maxReplicas and canary.replicas past what the fixed CPU nodes hold stop the preview", () => {
        const crowded = (values: Record<string, string>) => problems(exampleConfig("aws-example", () => undefined, { "tf-serving:cpu": "2", ...values }))
            .filter((p) => /eks\.cpuNodeGroup\.desiredNodes: /.test(p));
        assert.deepStrictEqual(crowded({ "tf-serving:replicas": "2" }), [], "the example's 2 m6i.xlarge hold 2 pods of 2 CPU");
        assert.match(crowded({ "tf-serving:replicas": "5" })[0] ?? "", /^tf-serving:eks\.cpuNodeGroup\.desiredNodes: .*5 pods \(tf-serving:replicas\)/);
        assert.match(crowded({ "tf-serving:autoscaling": JSON.stringify({ maxReplicas: 50 }) })[0] ?? "", /50 pods \(tf-serving:autoscaling\.maxReplicas\)/);
    });

    it("EKS without the Cluster Autoscaler: counts the canary's pods at its last step's weight, as the release scales them", () => {
        // 1-CPU pods: the example's 2 m6i.xlarge hold 6. 5 serving pods and a canary at 50 % (3 pods) need 8;
        // counting canary.replicas (1) alone would have passed.
        const crowded = problems(exampleConfig("aws-example", () => undefined, {
            "tf-serving:cpu": "1", "tf-serving:replicas": "5", "tf-serving:endpoint": "gateway",
            "tf-serving:gateway": JSON.stringify({ certificateArn: "arn:aws:acm:us-west-2:123456789012:certificate/00000000-0000-0000-0000-000000000000" }),
            "tf-serving:canary": JSON.stringify({ steps: [10, 50] }),
        })).filter((p) => /eks\.cpuNodeGroup\.desiredNodes: /.test(p));
        assert.match(crowded[0] ?? "", /5 pods \(tf-serving:replicas\) \+ 3 canary \(tf-serving:canary\.replicas and \.steps\)/, JSON.stringify(crowded));
    });

    it("GKE: a bigger machine type takes the same pod", () => {
        assert.deepStrictEqual(problems(exampleConfig("gcp-example", (gke: any) => { gke.cpuPool.machineType = "e2-standard-8"; }, // eslint-disable-line @typescript-eslint/no-explicit-any
            { "tf-serving:memoryRequest": "14Gi", "tf-serving:memoryLimit": "16Gi" })), []);
    });

    it("EKS: more CPU than the CPU node group's instance type stops the preview, naming cpu and the instance type", () => {
        const [p] = problems(exampleConfig("aws-example", (eks: any) => { eks.cpuNodeGroup = { ...eks.cpuNodeGroup, instanceType: "m6i.large" }; }, // eslint-disable-line @typescript-eslint/no-explicit-any
            { "tf-serving:cpu": "2" }));
        assert.match(p ?? "", /^tf-serving:cpu: model "half-plus-two" requests 2 CPU per pod/);
        assert.match(p ?? "", /tf-serving:eks\.cpuNodeGroup\.instanceType = m6i\.large: 2 vCPUs\) can allocate at most 1930m/);
    });

    it("GKE: checks a shared-core type (940m after GKE's 1060m) and a custom type from its name", () => {
        const [cpu] = problems(exampleConfig("gcp-example", (gke: any) => { gke.cpuPool.machineType = "e2-medium"; })); // eslint-disable-line @typescript-eslint/no-explicit-any
        assert.match(cpu ?? "", /^tf-serving:cpu: model "half-plus-two" requests 1 CPU per pod .*e2-medium: 2 vCPUs\) can allocate at most 940m/);
        const [memory] = problems(exampleConfig("gcp-example", (gke: any) => { gke.cpuPool.machineType = "n2-custom-2-4096"; }, // eslint-disable-line @typescript-eslint/no-explicit-any
            { "tf-serving:memoryRequest": "3Gi", "tf-serving:memoryLimit": "3Gi" }));
        assert.match(memory ?? "", /n2-custom-2-4096: 4\.0 GiB\) can allocate at most/);
    });

    it("says when it could not check: a machine or instance type it cannot size is a warning naming the key", () => {
        const warnings = (all: Record<string, string>) => prepareModels(readConfig(all, "tf-serving", process.cwd()), "tf-serving").warnings;
        assert.deepStrictEqual(warnings(exampleConfig("gcp-example")).filter((w) => /was not checked/.test(w)), []);
        const gke = warnings(exampleConfig("gcp-example", (g: any) => { g.cpuPool.machineType = "z9-standard-8"; })); // eslint-disable-line @typescript-eslint/no-explicit-any
        assert.ok(gke.some((w) => /^tf-serving:gke\.cpuPool\.machineType = z9-standard-8: this program does not know its vCPUs and memory, so whether a model pod fits on one node was not checked/.test(w)), gke.join("\n"));
        const eks = warnings(exampleConfig("aws-example", (e: any) => { e.cpuNodeGroup = { ...e.cpuNodeGroup, instanceType: "m8i.xlarge" }; })); // eslint-disable-line @typescript-eslint/no-explicit-any
        assert.ok(eks.some((w) => /^tf-serving:eks\.cpuNodeGroup\.instanceType = m8i\.xlarge: .*not checked.*aws ec2 describe-instance-types --instance-types m8i\.xlarge/.test(w)), eks.join("\n"));
    });

    it("checks nothing on an existing cluster (cloud local): its nodes are not the stack's to know", () => {
        assert.strictEqual(poolNodeOf(readConfig({ "tf-serving:modelPath": "models/half_plus_two", "tf-serving:publicEndpoint": "true" }, "tf-serving", process.cwd()), false), undefined);
    });
});
