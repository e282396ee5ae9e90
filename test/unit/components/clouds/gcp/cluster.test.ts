import * as assert from "assert";
import { parse } from "yaml";
import { GKE_CLUSTER_DEFAULTS, GKE_NODE_PROJECT_ROLES, GkeCluster, GkeClusterArgs } from "../../../../../components/clouds/gcp/cluster";
import { gkeClusterIssues } from "../../../../../components/clouds/gcp/clusterChecks";
import { readConfig } from "../../../../../config/config";
import { ConfigError } from "../../../../../config/configReader";
import { settleOutput, startMockRuntime } from "../../../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
function args(overrides: Partial<GkeClusterArgs> = {}): GkeClusterArgs {
    return {
        project: "my-project",
        region: "us-central1",
        clusterName: "tf-serving",
        releaseChannel: "REGULAR",
        deletionProtection: true,
        privateNodes: false,
        subnetCidr: "10.0.0.0/20",
        masterCidr: "172.16.0.0/28",
        cpuPool: { machineType: "e2-standard-4", minNodes: 2, maxNodes: 4, diskSizeGb: 100, spot: false },
        ...overrides,
    };
}

const GPU_POOL = {
    machineType: "g2-standard-8", minNodes: 0, maxNodes: 2, diskSizeGb: 100, spot: false,
    acceleratorType: "nvidia-l4", acceleratorCount: 1, driverVersion: "LATEST" as const,
};

async function build(a: GkeClusterArgs) {
    const recorder = await startMockRuntime();
    const cluster = new GkeCluster("gke", a);
    const kubeconfig = await settleOutput(cluster.kubeconfig);
    await recorder.settle();
    return { recorder, cluster, kubeconfig };
}

describe("GkeCluster", () => {
    it("builds from its required fields alone, with the gke config section's defaults", async () => {
        const { recorder: given } = await build({ project: "my-project", region: "us-central1", clusterName: "tf-serving", cpuPool: args().cpuPool });
        const inputs = (r: typeof given) => r.ofType("gcp:container/cluster:Cluster").concat(r.ofType("gcp:compute/subnetwork:Subnetwork"))
            .map((x) => ({ type: x.type, name: x.name, inputs: x.inputs }));
        const { recorder: explicit } = await build(args({
            releaseChannel: "REGULAR", deletionProtection: true, privateNodes: false, subnetCidr: "10.0.0.0/20", masterCidr: "172.16.0.0/28",
        }));
        assert.deepStrictEqual(inputs(given), inputs(explicit));
        const c = given.one("gcp:container/cluster:Cluster").inputs as any;
        assert.deepStrictEqual([c.releaseChannel, c.deletionProtection, c.privateClusterConfig],
            [{ channel: GKE_CLUSTER_DEFAULTS.releaseChannel }, true, { enablePrivateNodes: false }]);
        assert.strictEqual((given.one("gcp:compute/subnetwork:Subnetwork").inputs as any).ipCidrRange, GKE_CLUSTER_DEFAULTS.subnetCidr);
    });

    it("puts a private control plane on the default /28 when only privateNodes is given", async () => {
        const { recorder } = await build({ project: "my-project", region: "us-central1", clusterName: "tf-serving", cpuPool: args().cpuPool, privateNodes: true });
        const c = recorder.one("gcp:container/cluster:Cluster").inputs as any;
        assert.strictEqual(c.privateClusterConfig.masterIpv4CidrBlock, "172.16.0.0/28");
    });

    it("creates the cluster without its default pool, on a release channel, with workload identity", async () => {
        const { recorder } = await build(args());
        const c = recorder.one("gcp:container/cluster:Cluster").inputs as any;
        assert.strictEqual(c.name, "tf-serving");
        assert.strictEqual(c.location, "us-central1");
        assert.strictEqual(c.removeDefaultNodePool, true);
        assert.strictEqual(c.initialNodeCount, 1);
        assert.deepStrictEqual(c.releaseChannel, { channel: "REGULAR" });
        assert.deepStrictEqual(c.workloadIdentityConfig, { workloadPool: "my-project.svc.id.goog" });
        assert.strictEqual(c.deletionProtection, true);
        assert.strictEqual(c.networkingMode, "VPC_NATIVE");
        assert.deepStrictEqual(c.gatewayApiConfig, { channel: "CHANNEL_STANDARD" }, "the GKE Gateway controller serves Gateways only with the Gateway API on");
        assert.deepStrictEqual(c.privateClusterConfig, { enablePrivateNodes: false }, "public nodes said explicitly: an absent block keeps what GKE has");
        assert.deepStrictEqual(c.masterAuthorizedNetworksConfig, { cidrBlocks: [{ cidrBlock: "0.0.0.0/0", displayName: "any address" }], gcpPublicCidrsAccessEnabled: true },
            "no gke.apiAccessCidrs: any address, sent explicitly (an absent block keeps an earlier restriction)");
        assert.strictEqual(recorder.ofType("gcp:compute/routerNat:RouterNat").length, 0);
        assert.strictEqual(recorder.ofType("gcp:compute/firewall:Firewall").length, 0, "public nodes: the control plane reaches them already");
    });

    it("enforces NetworkPolicy with Dataplane V2, and leaves the conflicting Calico add-on off", async () => {
        const { recorder } = await build(args({ privateNodes: true }));
        const c = recorder.one("gcp:container/cluster:Cluster").inputs as any;
        assert.strictEqual(c.datapathProvider, "ADVANCED_DATAPATH");
        assert.strictEqual(c.networkPolicy, undefined);
        assert.strictEqual(c.addonsConfig?.networkPolicyConfig, undefined);
        assert.strictEqual(c.networkingMode, "VPC_NATIVE", "Dataplane V2 needs a VPC-native cluster");
    });

    it("takes deletionProtection from its arguments", async () => {
        const { recorder } = await build(args({ deletionProtection: false }));
        assert.strictEqual((recorder.one("gcp:container/cluster:Cluster").inputs as any).deletionProtection, false);
    });

    it("CPU pool: autoscaled, auto-repaired and upgraded, GKE metadata server, labelled cpu, no accelerator", async () => {
        const { recorder } = await build(args());
        const pools = recorder.ofType("gcp:container/nodePool:NodePool");
        assert.deepStrictEqual(pools.map((p) => p.name), ["gke-cpu"]);
        const pool = pools[0].inputs as any;
        assert.deepStrictEqual(pool.autoscaling, { totalMinNodeCount: 2, totalMaxNodeCount: 4, locationPolicy: "BALANCED" });
        assert.deepStrictEqual(pool.management, { autoRepair: true, autoUpgrade: true });
        assert.strictEqual(pool.nodeConfig.machineType, "e2-standard-4");
        assert.deepStrictEqual(pool.nodeConfig.workloadMetadataConfig, { mode: "GKE_METADATA" });
        assert.deepStrictEqual(pool.nodeConfig.labels, { "tf-serving/pool": "cpu" });
        assert.strictEqual(pool.nodeConfig.guestAccelerators, undefined);
        assert.strictEqual(pool.nodeConfig.serviceAccount, "tf-serving-nodes@my-project.iam.gserviceaccount.com");
    });

    it("boot disk type: left to GKE (Hyperdisk-only series refuse pd-*) unless set, then passed as given", async () => {
        const { recorder } = await build(args({
            cpuPool: { machineType: "c4-standard-8", minNodes: 2, maxNodes: 4, diskSizeGb: 100, spot: false },
            zones: ["us-central1-a"],
            gpuPool: { ...GPU_POOL, diskType: "pd-ssd" },
        }));
        const cpu = recorder.one("gcp:container/nodePool:NodePool", "cpu").inputs as any;
        assert.ok(!("diskType" in cpu.nodeConfig), `diskType sent: ${cpu.nodeConfig.diskType}`);
        assert.strictEqual(cpu.nodeConfig.diskSizeGb, 100);
        assert.strictEqual((recorder.one("gcp:container/nodePool:NodePool", "gpu").inputs as any).nodeConfig.diskType, "pd-ssd");
    });

    it("GPU pool: accelerator, count and driver; may scale to zero; GKE's own taint and device plugin (none added)", async () => {
        const { recorder, cluster } = await build(args({ zones: ["us-central1-a"], gpuPool: GPU_POOL }));
        const gpu = recorder.one("gcp:container/nodePool:NodePool", "gpu").inputs as any;
        assert.deepStrictEqual(gpu.nodeConfig.guestAccelerators, [{ type: "nvidia-l4", count: 1, gpuDriverInstallationConfig: { gpuDriverVersion: "LATEST" } }]);
        assert.strictEqual(gpu.nodeConfig.machineType, "g2-standard-8");
        assert.deepStrictEqual(gpu.autoscaling, { totalMinNodeCount: 0, totalMaxNodeCount: 2, locationPolicy: "ANY" });
        assert.strictEqual(gpu.initialNodeCount, 0);
        assert.deepStrictEqual(gpu.nodeLocations, ["us-central1-a"]);
        assert.deepStrictEqual(gpu.nodeConfig.labels, { "tf-serving/pool": "gpu" });
        assert.strictEqual(gpu.nodeConfig.taints, undefined, "GKE taints GPU nodes nvidia.com/gpu itself");
        assert.deepStrictEqual(gpu.nodeConfig.workloadMetadataConfig, { mode: "GKE_METADATA" });
        assert.strictEqual(recorder.ofType("kubernetes:apps/v1:DaemonSet").length, 0, "no NVIDIA device plugin on GKE");
        assert.deepStrictEqual(cluster.placement.gpu, {
            nodeSelector: { "tf-serving/pool": "gpu", "cloud.google.com/gke-accelerator": "nvidia-l4" },
            tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
        });
        assert.deepStrictEqual(cluster.placement.cpu, { nodeSelector: { "tf-serving/pool": "cpu" } });
    });

    it("node service account: its own, with the minimum role Google documents for nodes and nothing else project-wide", async () => {
        const { recorder } = await build(args({ zones: ["us-central1-a"], gpuPool: GPU_POOL }));
        const account = recorder.one("gcp:serviceaccount/account:Account").inputs as any;
        assert.strictEqual(account.accountId, "tf-serving-nodes");
        const members = recorder.ofType("gcp:projects/iAMMember:IAMMember").map((m) => m.inputs as any);
        assert.deepStrictEqual(members.map((m) => [m.project, m.role]), [["my-project", "roles/container.defaultNodeServiceAccount"]]);
        assert.deepStrictEqual(GKE_NODE_PROJECT_ROLES, ["roles/container.defaultNodeServiceAccount"]);
        assert.ok(members.every((m) => m.member === "serviceAccount:tf-serving-nodes@my-project.iam.gserviceaccount.com"));
        for (const pool of recorder.ofType("gcp:container/nodePool:NodePool")) {
            assert.deepStrictEqual((pool.inputs as any).nodeConfig.oauthScopes, ["https://www.googleapis.com/auth/cloud-platform"]);
        }
    });

    it("private nodes: private cluster config, Cloud NAT for egress; API restricted to the given CIDRs", async () => {
        const { recorder } = await build(args({ privateNodes: true, apiAccessCidrs: ["203.0.113.0/24"] }));
        const c = recorder.one("gcp:container/cluster:Cluster").inputs as any;
        assert.deepStrictEqual(c.privateClusterConfig, { enablePrivateNodes: true, enablePrivateEndpoint: false, masterIpv4CidrBlock: "172.16.0.0/28" });
        assert.deepStrictEqual(c.masterAuthorizedNetworksConfig.cidrBlocks.map((b: any) => b.cidrBlock), ["203.0.113.0/24"]);
        assert.strictEqual(recorder.ofType("gcp:compute/routerNat:RouterNat").length, 1);
        assert.strictEqual((recorder.one("gcp:compute/subnetwork:Subnetwork").inputs as any).privateIpGoogleAccess, true);
        const firewall = recorder.one("gcp:compute/firewall:Firewall").inputs as any;
        assert.deepStrictEqual([firewall.direction, firewall.sourceRanges, firewall.allows], ["INGRESS", ["172.16.0.0/28"], [{ protocol: "tcp", ports: ["8501"] }]],
            "the control plane reaches the pods' REST port (a canary's metrics through the pod proxy)");
    });

    it("initial pool: runs as the node service account, not the Compute Engine default one (terraform-provider-google#4435)", async () => {
        const { recorder } = await build(args());
        const cluster = recorder.one("gcp:container/cluster:Cluster");
        assert.deepStrictEqual((cluster.inputs as any).nodeConfig, {
            serviceAccount: "tf-serving-nodes@my-project.iam.gserviceaccount.com",
            oauthScopes: ["https://www.googleapis.com/auth/cloud-platform"],
        });
        assert.deepStrictEqual(cluster.dependsOn, ["gcp:projects/iAMMember:IAMMember::gke-nodes-container.defaultNodeServiceAccount"], "its nodes start with the node role granted");
        assert.deepStrictEqual(cluster.ignoreChanges, ["nodeConfig"], "the provider would replace a running cluster created before the initial pool's node config was set");
    });

    it("removing gke.zones puts the pools back in the cluster's default zones (an absent nodeLocations keeps the old ones)", async () => {
        const zoned = await build(args({ zones: ["us-central1-b"] }));
        assert.deepStrictEqual((zoned.recorder.one("gcp:container/nodePool:NodePool").inputs as any).nodeLocations, ["us-central1-b"]);
        const unzoned = await build(args());
        const cluster = unzoned.recorder.one("gcp:container/cluster:Cluster").inputs as any;
        assert.strictEqual(cluster.nodeLocations, undefined, "the cluster's own default zones stay GKE's pick");
        assert.deepStrictEqual((unzoned.recorder.one("gcp:container/nodePool:NodePool").inputs as any).nodeLocations,
            ["us-central1-a", "us-central1-b", "us-central1-c"], "the mock cluster's default node locations, sent explicitly");
    });

    it("GPU pool: created after the CPU pool, so GKE's automatic GPU taint applies", async () => {
        const { recorder } = await build(args({ zones: ["us-central1-a"], gpuPool: GPU_POOL }));
        assert.ok(recorder.one("gcp:container/nodePool:NodePool", "gpu").dependsOn.includes("gcp:container/nodePool:NodePool::gke-cpu"));
        assert.ok(!recorder.one("gcp:container/nodePool:NodePool", "cpu").dependsOn.some((d) => d.includes("gke-gpu")));
    });

    it("apiAccessCidrs: exactly the list (Google's public ranges not added); removed, any address, explicitly", async () => {
        const restricted = await build(args({ apiAccessCidrs: ["203.0.113.0/24"] }));
        assert.deepStrictEqual((restricted.recorder.one("gcp:container/cluster:Cluster").inputs as any).masterAuthorizedNetworksConfig, {
            cidrBlocks: [{ cidrBlock: "203.0.113.0/24", displayName: "allowed 203.0.113.0/24" }],
            gcpPublicCidrsAccessEnabled: false,
        });
        const open = await build(args());
        assert.deepStrictEqual((open.recorder.one("gcp:container/cluster:Cluster").inputs as any).masterAuthorizedNetworksConfig.cidrBlocks,
            [{ cidrBlock: "0.0.0.0/0", displayName: "any address" }]);
    });

    it("parents every child to the component", async () => {
        const { recorder } = await build(args({ privateNodes: true, zones: ["us-central1-a"], gpuPool: GPU_POOL }));
        const children = recorder.resources.filter((r) => r.type !== "tf-serving:index:GkeCluster" && !r.type.startsWith("pulumi:providers:gcp"));
        assert.ok(children.length >= 10);
        for (const child of children) {
            assert.strictEqual(child.parent, "tf-serving:index:GkeCluster::gke", `${child.type} ${child.name}`);
        }
    });

    it("kubeconfig: a secret with gke-gcloud-auth-plugin, identical when pools change, different for another cluster", async () => {
        const first = await build(args());
        const provider = first.recorder.one("pulumi:providers:kubernetes");
        assert.deepStrictEqual(provider.secretPaths, ["kubeconfig"]);
        const kc = parse(first.kubeconfig!);
        assert.strictEqual(kc["current-context"], "gke_my-project_us-central1_tf-serving");
        assert.strictEqual(kc.users[0].user.exec.command, "gke-gcloud-auth-plugin");
        assert.strictEqual(kc.clusters[0].cluster.server, "https://198.51.100.1");

        const resized = await build(args({
            cpuPool: { machineType: "n2-standard-8", minNodes: 3, maxNodes: 9, diskSizeGb: 200, spot: true },
            zones: ["us-central1-b"],
            gpuPool: GPU_POOL,
            releaseChannel: "STABLE",
        }));
        assert.strictEqual(resized.kubeconfig, first.kubeconfig);
        assert.deepStrictEqual(resized.recorder.one("pulumi:providers:kubernetes").rawInputs, provider.rawInputs);

        const other = await build(args({ clusterName: "other" }));
        assert.notStrictEqual(other.kubeconfig, first.kubeconfig);
    });

    it("runs the checks the gke config section runs, before it registers anything: a control plane range inside the subnet", async () => {
        const recorder = await startMockRuntime();
        assert.throws(() => new GkeCluster("gke", args({ privateNodes: true, subnetCidr: "172.16.0.0/20" })),
            /^Error: GkeCluster gke: masterCidr overlaps subnetCidr \(172\.16\.0\.0\/20\), and GKE refuses a control plane range/);
        assert.throws(() => new GkeCluster("gke", args({ gpuPool: GPU_POOL, apiAccessCidrs: [] })), (e: Error) =>
            /apiAccessCidrs is empty/.test(e.message) && /zones required with gpuPool: GPUs are zonal/.test(e.message));
        await recorder.settle();
        assert.deepStrictEqual(recorder.resources, []);
    });
});

describe("gkeClusterIssues: one check for GkeCluster and the gke config section", () => {
    const base = { region: "us-central1", privateNodes: true, subnetCidr: "10.0.0.0/20", masterCidr: "172.16.0.0/28" };

    it("a private control plane range must stay out of the subnet; a public cluster's is unused", () => {
        assert.deepStrictEqual(gkeClusterIssues(base), []);
        assert.deepStrictEqual(gkeClusterIssues({ ...base, masterCidr: "10.0.1.0/28" }).map((i) => [i.field, i.value]), [["masterCidr", "10.0.1.0/28"]]);
        assert.deepStrictEqual(gkeClusterIssues({ ...base, privateNodes: false, masterCidr: "10.0.1.0/28" }), []);
    });

    it("a GPU pool needs zones; an empty zone or API list is refused", () => {
        const gpuPool = { acceleratorType: "nvidia-l4" };
        assert.deepStrictEqual(gkeClusterIssues({ ...base, gpuPool }).map((i) => i.field), ["zones"]);
        assert.deepStrictEqual(gkeClusterIssues({ ...base, gpuPool, zones: ["us-central1-a"] }), []);
        assert.match(gkeClusterIssues({ ...base, gpuPool, zones: [] })[0].message, /that have nvidia-l4, which gpuPool needs/);
        assert.deepStrictEqual(gkeClusterIssues({ ...base, apiAccessCidrs: [] }).map((i) => i.field), ["apiAccessCidrs"]);
    });

    it("the config layer records the same issues under its keys, naming the other keys by theirs", () => {
        const config = {
            "tf-serving:modelPath": "models/half_plus_two", "tf-serving:cloud": "gcp", "tf-serving:publicEndpoint": "true",
            "tf-serving:gke": JSON.stringify({ project: "my-project", region: "us-central1", privateNodes: true, subnetCidr: "172.16.0.0/20" }),
        };
        try {
            readConfig(config, "tf-serving", process.cwd());
            assert.fail("expected a ConfigError");
        } catch (e) {
            assert.ok(e instanceof ConfigError, String(e));
            const issue = e.issues.find((i) => i.key === "gke.masterCidr");
            assert.match(issue?.expected ?? "", /^overlaps gke\.subnetCidr \(172\.16\.0\.0\/20\)/);
        }
    });
});

describe("GkeCluster refuses what the gke config section refuses, as a library user gives it", () => {
    /** The one line `GkeCluster` throws for `overrides`, with nothing registered. */
    async function refusal(overrides: Partial<GkeClusterArgs>): Promise<string> {
        const recorder = await startMockRuntime();
        let message = "";
        assert.throws(() => new GkeCluster("gke", args(overrides)), (e: Error) => (message = e.message) !== "");
        await recorder.settle();
        assert.deepStrictEqual(recorder.resources, [], "nothing registered");
        assert.ok(!message.includes("\n"), `one line: ${message}`);
        return message;
    }

    it("min above max nodes", async () => {
        assert.match(await refusal({ cpuPool: { ...args().cpuPool, minNodes: 5, maxNodes: 2 } }), /^GkeCluster gke: cpuPool\.maxNodes must be >= cpuPool\.minNodes \(5\)$/);
    });

    it("a zone given as the region", async () => {
        assert.match(await refusal({ region: "us-central1-a" }), /^GkeCluster gke: region must be a Compute Engine region such as "us-central1" \(a region, not a zone like "us-central1-a"\)$/);
    });

    it("an Arm machine type (machineCatalog.ts's Tau T2A, Axion C4A)", async () => {
        assert.match(await refusal({ cpuPool: { ...args().cpuPool, machineType: "c4a-standard-4" } }), /^GkeCluster gke: cpuPool\.machineType is an Arm \(arm64\) type, and TensorFlow Serving publishes amd64 images only/);
    });

    it("acceleratorCount 0", async () => {
        assert.match(await refusal({ zones: ["us-central1-a"], gpuPool: { ...GPU_POOL, acceleratorCount: 0 } }),
            /^GkeCluster gke: gpuPool\.acceleratorCount must be at least 1 GPU per node; to run without GPUs, remove gpuPool$/);
    });

    it("and the rest the section checks: the project id, zones of the region, a disk type, the adapter's image unpinned", async () => {
        const message = await refusal({
            project: "My Project", zones: ["us-east1-b"], cpuPool: { ...args().cpuPool, diskType: "ssd" as never, diskSizeGb: 5 },
            customMetricsAdapter: { image: "gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.1-gke.0" },
        });
        for (const field of ["project", "zones[0]", "cpuPool.diskType", "cpuPool.diskSizeGb", "customMetricsAdapter.image"]) {
            assert.ok(message.includes(`; ${field} `) || message.includes(`: ${field} `), `${field} in: ${message}`);
        }
    });

    it("the section's defaults pass the resolver unchanged (the stack hands GkeCluster its section)", async () => {
        const { recorder } = await build(args({ zones: ["us-central1-a"], gpuPool: GPU_POOL }));
        assert.strictEqual(recorder.ofType("gcp:container/nodePool:NodePool").length, 2);
    });
});
