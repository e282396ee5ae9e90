import * as assert from "assert";
import { ConfigReader } from "../../../../../config/configReader";
import { issueFor } from "../../../../support/cloudMocks";
import { readGcpConfig } from "../../../../../components/clouds/gcp/config";

function read(gke: Record<string, unknown> | undefined) {
    const r = new ConfigReader(gke === undefined ? {} : { gke: JSON.stringify(gke) });
    const config = readGcpConfig(r);
    return { config, issues: r.issues };
}

const BASE = { project: "my-project", region: "us-central1" };

describe("gke config", () => {
    it("needs only project and region; everything else has a default", () => {
        const { config, issues } = read(BASE);
        assert.deepStrictEqual(issues, []);
        assert.deepStrictEqual(config, {
            project: "my-project",
            region: "us-central1",
            zones: undefined,
            clusterName: "tf-serving",
            releaseChannel: "REGULAR",
            deletionProtection: true,
            privateNodes: false,
            subnetCidr: "10.0.0.0/20",
            masterCidr: "172.16.0.0/28",
            apiAccessCidrs: undefined,
            cpuPool: { machineType: "e2-standard-4", minNodes: 2, maxNodes: 4, diskSizeGb: 100, spot: false },
            gpuPool: undefined,
            registry: { host: "docker.pkg.dev", location: "us-central1", repository: "tf-serving", keepImages: 10 },
            customMetricsAdapterImage: undefined,
        });
    });

    it("reports a missing section's required keys under gke.", () => {
        const { issues } = read(undefined);
        assert.deepStrictEqual(issues.map((i) => i.key), ["gke.project", "gke.region"]);
        assert.match(issueFor(issues, "gke.region").expected, /pulumi config set --path gke.region us-central1/);
    });

    it("rejects a zone given as the region, and a project name instead of an id", () => {
        const { issues } = read({ project: "My Project", region: "us-central1-a" });
        assert.match(issueFor(issues, "gke.region").expected, /a region, not a zone/);
        assert.match(issueFor(issues, "gke.project").expected, /project id/);
    });

    it("project: a plain or domain-scoped id; anything else names the key, the value and both forms", () => {
        assert.deepStrictEqual(read({ ...BASE, project: "example.com:my-project" }).issues, []);
        assert.deepStrictEqual(read({ ...BASE, project: "corp.example.co.uk:ml-serving-1" }).issues, []);
        for (const bad of ["example.com:", ":my-project", "example:my-project", "example..com:my-project", "-example.com:my-project",
            "Example.com:my-project", "example.com:my-project-", "example.com:1project", "123456789012"]) {
            const i = issueFor(read({ ...BASE, project: bad }).issues, "gke.project");
            assert.strictEqual(i.value, bad);
            assert.match(i.expected, /e\.g\. my-project.*domain-scoped id \(e\.g\. example\.com:my-project\)/);
        }
    });

    it("GPU pool: accelerator with sensible defaults, in the configured zones", () => {
        const { config, issues } = read({ ...BASE, zones: ["us-central1-a", "us-central1-b"], gpuPool: { acceleratorType: "nvidia-l4" } });
        assert.deepStrictEqual(issues, []);
        assert.deepStrictEqual(config.gpuPool, {
            machineType: "g2-standard-8", minNodes: 0, maxNodes: 2, diskSizeGb: 100, spot: false,
            acceleratorType: "nvidia-l4", acceleratorCount: 1, driverVersion: "DEFAULT",
        });
        assert.deepStrictEqual(config.zones, ["us-central1-a", "us-central1-b"]);
    });

    it("GPU pool: an accelerator with count 0 is an error naming the key", () => {
        const { issues } = read({ ...BASE, zones: ["us-central1-a"], gpuPool: { acceleratorType: "nvidia-tesla-t4", acceleratorCount: 0 } });
        const i = issueFor(issues, "gke.gpuPool.acceleratorCount");
        assert.strictEqual(i.value, 0);
        assert.match(i.expected, /at least 1 GPU per node; to run without GPUs, remove gke.gpuPool/);
        assert.strictEqual(issues.length, 1, JSON.stringify(issues));
    });

    it("GPU pool: zones are required (GPUs are zonal)", () => {
        const { issues } = read({ ...BASE, gpuPool: { acceleratorType: "nvidia-tesla-t4" } });
        const i = issueFor(issues, "gke.zones");
        assert.strictEqual(i.value, undefined);
        assert.match(i.expected, /required with gke.gpuPool.*nvidia-tesla-t4.*us-central1-a/);
    });

    it("zones: an empty list is refused, not read as unset (with a GPU pool it would skip the zones check)", () => {
        const gpu = issueFor(read({ ...BASE, zones: [], gpuPool: { acceleratorType: "nvidia-tesla-t4" } }).issues, "gke.zones");
        assert.deepStrictEqual(gpu.value, []);
        assert.match(gpu.expected, /is empty, .*us-central1-a.*that have nvidia-tesla-t4, which gke.gpuPool needs/);
        assert.match(issueFor(read({ ...BASE, zones: [] }).issues, "gke.zones").expected, /is empty.*or remove the key/);
    });

    it("masterCidr: refused where it overlaps subnetCidr (GKE refuses a control plane range overlapping the network's)", () => {
        const inside = issueFor(read({ ...BASE, privateNodes: true, subnetCidr: "172.16.0.0/20", masterCidr: "172.16.0.16/28" }).issues, "gke.masterCidr");
        assert.strictEqual(inside.value, "172.16.0.16/28");
        assert.match(inside.expected, /overlaps gke.subnetCidr \(172.16.0.0\/20\)/);
        assert.deepStrictEqual(read({ ...BASE, privateNodes: true, subnetCidr: "10.0.0.0/20", masterCidr: "172.16.0.0/28" }).issues, []);
        assert.deepStrictEqual(read({ ...BASE, privateNodes: true, subnetCidr: "172.16.0.16/28", masterCidr: "172.16.0.0/28" }).issues, [], "adjacent blocks do not overlap");
    });

    it("GPU pool: accelerator and machine type must go together", () => {
        const { issues } = read({ ...BASE, zones: ["us-central1-a"], gpuPool: { acceleratorType: "nvidia-l4", machineType: "n1-standard-8" } });
        const i = issueFor(issues, "gke.gpuPool.machineType");
        assert.strictEqual(i.value, "n1-standard-8");
        assert.match(i.expected, /g2 machine types/);
        const missing = read({ ...BASE, zones: ["us-central1-a"], gpuPool: {} }).issues;
        assert.match(issueFor(missing, "gke.gpuPool.acceleratorType").expected, /required/);
        const typo = read({ ...BASE, zones: ["us-central1-a"], gpuPool: { acceleratorType: "tesla-t4" } }).issues;
        assert.match(issueFor(typo, "gke.gpuPool.acceleratorType").expected, /nvidia-tesla-t4/);
    });

    it("rejects Arm machine types: TF Serving has no arm64 image", () => {
        const { issues } = read({ ...BASE, cpuPool: { machineType: "t2a-standard-4" } });
        const i = issueFor(issues, "gke.cpuPool.machineType");
        assert.strictEqual(i.value, "t2a-standard-4");
        assert.match(i.expected, /arm64.*amd64 images only.*e2-standard-4/);
    });

    it("machine types: a name of a known series that is no type gets a did-you-mean, naming the key", () => {
        const i = issueFor(read({ ...BASE, cpuPool: { machineType: "e2-standrad-4" } }).issues, "gke.cpuPool.machineType");
        assert.strictEqual(i.value, "e2-standrad-4");
        assert.match(i.expected, /did you mean "e2-standard-4"/);
        assert.deepStrictEqual(read({ ...BASE, cpuPool: { machineType: "n2-custom-4-16384" } }).issues, []);
    });

    it("rejects zones outside the region and repeated zones", () => {
        const { issues } = read({ ...BASE, zones: ["us-east1-b", "us-central1-a", "us-central1-a"] });
        assert.match(issueFor(issues, "gke.zones[0]").expected, /zone of region us-central1, e\.g\. "us-central1-a"/);
        assert.match(issueFor(issues, "gke.zones").expected, /twice/);
    });

    it("rejects malformed CIDRs, naming each key", () => {
        const { issues } = read({ ...BASE, subnetCidr: "10.0.0.1/20", privateNodes: true, masterCidr: "172.16.0.0/24", apiAccessCidrs: ["203.0.113.0/24", "not-a-cidr"] });
        assert.match(issueFor(issues, "gke.subnetCidr").expected, /host bits set; the block is 10.0.0.0\/20/);
        assert.match(issueFor(issues, "gke.masterCidr").expected, /must be a \/28/);
        assert.match(issueFor(issues, "gke.apiAccessCidrs[1]").expected, /IPv4 CIDR/);
        assert.strictEqual(issues.length, 3, JSON.stringify(issues));
    });

    it("masterCidr only with private nodes; an empty API allow-list is refused", () => {
        const { issues } = read({ ...BASE, masterCidr: "172.16.0.0/28", apiAccessCidrs: [] });
        assert.match(issueFor(issues, "gke.masterCidr").expected, /only with gke.privateNodes/);
        assert.match(issueFor(issues, "gke.apiAccessCidrs").expected, /lock everyone out/);
    });

    it("node bounds: CPU pool needs a node, max >= min", () => {
        const { issues } = read({ ...BASE, cpuPool: { minNodes: 0, maxNodes: 3 }, zones: ["us-central1-a"], gpuPool: { acceleratorType: "nvidia-l4", minNodes: 3, maxNodes: 1 } });
        assert.match(issueFor(issues, "gke.cpuPool.minNodes").expected, /from 1 to 1000/);
        assert.match(issueFor(issues, "gke.gpuPool.maxNodes").expected, /must be >= gke.gpuPool.minNodes \(3\)/);
    });

    it("registry: a gcr.io host is the shared repository named after it: no location, repository id or cleanup setting", () => {
        const ok = read({ ...BASE, registry: { host: "eu.gcr.io" } });
        assert.deepStrictEqual(ok.issues, []);
        assert.deepStrictEqual(ok.config.registry, { host: "eu.gcr.io" });
        const { issues } = read({ ...BASE, registry: { host: "gcr.io", location: "europe-west4", keepImages: 3 } });
        assert.match(issueFor(issues, "gke.registry.location").expected, /does not apply with host "gcr.io"/);
        const keep = issueFor(issues, "gke.registry.keepImages");
        assert.strictEqual(keep.value, 3);
        assert.match(keep.expected, /shared by the whole project, so this stack sets no cleanup policy on it/);
        assert.match(issueFor(read({ ...BASE, registry: { repository: "Models" } }).issues, "gke.registry.repository").expected, /repository id/);
        assert.match(issueFor(read({ ...BASE, registry: { location: "mars" } }).issues, "gke.registry.location").expected, /multi-region/);
        assert.match(issueFor(read({ ...BASE, registry: { host: "quay.io" } }).issues, "gke.registry.host").expected, /docker.pkg.dev/);
    });

    it("boot disk type: unset by default (GKE picks), one GKE accepts when set, never a Persistent Disk on a Hyperdisk-only machine", () => {
        const h200 = { acceleratorType: "nvidia-h200-141gb", acceleratorCount: 8 };
        const unset = read({ ...BASE, cpuPool: { machineType: "n4-standard-8" }, zones: ["us-central1-a"], gpuPool: h200 });
        assert.deepStrictEqual(unset.issues, []);
        assert.ok(!("diskType" in unset.config.cpuPool) && !("diskType" in unset.config.gpuPool!));
        const set = read({ ...BASE, cpuPool: { machineType: "c4-standard-8", diskType: "hyperdisk-balanced" }, zones: ["us-central1-a"], gpuPool: { ...h200, diskType: "hyperdisk-balanced" } });
        assert.deepStrictEqual(set.issues, []);
        assert.strictEqual(set.config.cpuPool.diskType, "hyperdisk-balanced");
        assert.strictEqual(read({ ...BASE, cpuPool: { diskType: "pd-ssd" } }).config.cpuPool.diskType, "pd-ssd");

        const typo = issueFor(read({ ...BASE, cpuPool: { diskType: "ssd" } }).issues, "gke.cpuPool.diskType");
        assert.strictEqual(typo.value, "ssd");
        assert.match(typo.expected, /"pd-balanced", "pd-standard", "pd-ssd", "hyperdisk-balanced"; or remove gke\.cpuPool\.diskType/);
        const pd = issueFor(read({ ...BASE, zones: ["us-central1-a"], gpuPool: { ...h200, diskType: "pd-balanced" } }).issues, "gke.gpuPool.diskType");
        assert.strictEqual(pd.value, "pd-balanced");
        assert.match(pd.expected, /a3-ultragpu-8g boots only from Hyperdisk.*"hyperdisk-balanced", or remove gke\.gpuPool\.diskType/);
    });

    it("suggests the right key for a typo", () => {
        const { issues } = read({ ...BASE, cpupool: { machineType: "e2-standard-4" }, gpuPool: undefined });
        assert.match(issueFor(issues, "gke.cpupool").expected, /did you mean 'gke.cpuPool'/);
    });
});
