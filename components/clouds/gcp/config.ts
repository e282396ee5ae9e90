/**
 * The `gke` configuration section (cloud: gcp): the GKE cluster, its node pools and the Artifact
 * Registry repository. Set keys with `pulumi config set --path gke.region us-central1`. Every value
 * is checked here, before anything is registered; docs/reference/configuration.md#gke-cloud-gcp lists the keys.
 */
import { GKE_CLUSTER_DEFAULTS, GKE_RELEASE_CHANNELS, ResolvedGkeClusterArgs } from "./cluster";
import { bootsOnlyFromHyperdisk, checkGpuMachine, defaultGpuMachineType, isArmMachineType, machineTypeProblem } from "./machines";
import { GKE_BOOT_DISK_TYPES, GkeBootDiskType, GkeGpuPoolSettings, GkeNodePoolSettings } from "./nodePool";
import { ARTIFACT_REGISTRY_HOSTS, ArtifactRegistrySettings } from "./artifactRegistry";
import { NO_ARM64, escapeRegExp, readIpv4Block, readIpv4Cidrs, readNodeBounds, readZones, section } from "../../../config/cloudConfig";
import { ConfigReader } from "../../../config/configReader";
import type { StackConfig } from "../../../config/settings";
import { CUSTOM_METRICS_ADAPTER } from "./customMetricsAdapter";
import { DIGEST_PINNED_IMAGE } from "../../../contract/registry";
import { gkeClusterIssues } from "./clusterChecks";

/** A stack's whole configuration on gcp (the registry's `ConfigFor<"gcp">`), as its rules read it. */
export type GcpStackConfig = StackConfig<"gcp", { gke: GcpConfig }>;

export interface GcpConfig extends Omit<ResolvedGkeClusterArgs, "customMetricsAdapter"> {
    /** The Custom Metrics Stackdriver Adapter's image pinned by digest, for a request-rate HPA; checked against the models in `readConfig`. */
    customMetricsAdapterImage?: string;
    /** Where the model images go. */
    registry: ArtifactRegistrySettings;
}

/** The adapter release the stack is written for (its image is configured pinned by digest). */
export const CUSTOM_METRICS_ADAPTER_RELEASE = CUSTOM_METRICS_ADAPTER.release;

const GKE_KEYS = [
    "project", "region", "zones", "clusterName", "releaseChannel", "deletionProtection", "privateNodes",
    "subnetCidr", "masterCidr", "apiAccessCidrs", "cpuPool", "gpuPool", "registry", "customMetricsAdapterImage",
];
const POOL_KEYS = ["machineType", "minNodes", "maxNodes", "diskSizeGb", "diskType", "spot"];
const GPU_POOL_KEYS = [...POOL_KEYS, "acceleratorType", "acceleratorCount", "driverVersion"];

/** A project id, optionally domain-scoped (`example.com:my-project`: a DNS name of two labels or more, a colon, the id). */
const PROJECT_ID = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const REGION = /^[a-z]+-[a-z]+[0-9]+$/;
const CLUSTER_NAME = /^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$/;
const MACHINE_TYPE = /^[a-z][a-z0-9]*-[a-z0-9-]+$/;
const REPOSITORY_ID = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function readGcpConfig(top: ConfigReader): GcpConfig {
    const r = section(top, "gke");
    r.rejectUnknown(GKE_KEYS);

    const project = r.required("project", "the Google Cloud project id, e.g. `pulumi config set --path gke.project my-project`");
    if (project && !PROJECT_ID.test(project)) {
        r.fail("project", "must be a project id: 6-30 lowercase letters, digits and '-', starting with a letter and not ending with '-' " +
            "(e.g. my-project), or a domain-scoped id (e.g. example.com:my-project); not the project's display name or number " +
            "(`gcloud projects list` shows the ids)");
    }
    const region = r.required("region", "the region, e.g. `pulumi config set --path gke.region us-central1`");
    if (region && !REGION.test(region)) {
        r.fail("region", "must be a Compute Engine region such as \"us-central1\" (a region, not a zone like \"us-central1-a\")");
    }
    const zones = readZones(r, "zones", region, new RegExp(`^${escapeRegExp(region)}-[a-z]$`), `${region || "us-central1"}-a`);

    const clusterName = r.string("clusterName", "tf-serving");
    if (!CLUSTER_NAME.test(clusterName)) {
        r.fail("clusterName", "must be 1-40 lowercase letters, digits and '-', starting with a letter and not ending with '-'");
    }

    const privateNodes = r.bool("privateNodes", GKE_CLUSTER_DEFAULTS.privateNodes);
    if (r.has("masterCidr") && !privateNodes) {
        r.fail("masterCidr", "applies only with gke.privateNodes: true");
    }
    const apiAccessCidrs = readIpv4Cidrs(r, "apiAccessCidrs");

    const gpuPool = readGpuPool(r);
    const subnetCidr = readIpv4Block(r, "subnetCidr", GKE_CLUSTER_DEFAULTS.subnetCidr, 8, 29);
    const masterCidr = readIpv4Block(r, "masterCidr", GKE_CLUSTER_DEFAULTS.masterCidr, 28, 28);
    // The checks `GkeCluster` runs on its Args, on the lists as written (a list whose entries were all refused is not empty).
    const asWritten = (name: string, read: string[] | undefined) => (read !== undefined && read.length === 0 ? r.list(name) as string[] : read);
    const checked = { region, zones: asWritten("zones", zones), privateNodes, subnetCidr, masterCidr, apiAccessCidrs: asWritten("apiAccessCidrs", apiAccessCidrs), gpuPool };
    gkeClusterIssues(checked, (field) => r.key(field)).forEach((i) => r.fail(i.field, i.message, i.value));

    return {
        project,
        region,
        zones,
        clusterName,
        releaseChannel: r.oneOf("releaseChannel", GKE_RELEASE_CHANNELS, GKE_CLUSTER_DEFAULTS.releaseChannel),
        deletionProtection: r.bool("deletionProtection", GKE_CLUSTER_DEFAULTS.deletionProtection),
        privateNodes,
        subnetCidr,
        masterCidr,
        apiAccessCidrs,
        cpuPool: readCpuPool(section(r, "cpuPool")),
        gpuPool,
        registry: readRegistry(section(r, "registry"), region),
        customMetricsAdapterImage: readAdapterImage(r),
    };
}

function readAdapterImage(r: ConfigReader): string | undefined {
    const image = r.string("customMetricsAdapterImage");
    if (image !== undefined && !DIGEST_PINNED_IMAGE.test(image)) {
        r.fail("customMetricsAdapterImage", `must be pinned by digest, e.g. "${CUSTOM_METRICS_ADAPTER.release}@sha256:<64 hex digits>" ` +
            "(`docker buildx imagetools inspect IMAGE` prints it): a tag can be moved, and the policy pack refuses unpinned images");
    }
    return image;
}

function readMachineType(r: ConfigReader, fallback: string | undefined): string | undefined {
    const machineType = r.string("machineType") ?? fallback;
    if (machineType === undefined || !r.has("machineType")) {
        return machineType;
    }
    if (!MACHINE_TYPE.test(machineType)) {
        r.fail("machineType", "must be a Compute Engine machine type such as \"e2-standard-4\"");
    } else if (isArmMachineType(machineType)) {
        r.fail("machineType", `${NO_ARM64} such as "e2-standard-4"`);
    } else {
        const problem = machineTypeProblem(machineType);
        if (problem !== undefined) {
            r.fail("machineType", problem);
        }
    }
    return machineType;
}

function readPool(r: ConfigReader, machineType: string, bounds: { minNodes: number; maxNodes: number }, floor: number): GkeNodePoolSettings {
    const diskType = readDiskType(r, machineType);
    return {
        machineType,
        ...readNodeBounds(r, bounds, floor),
        diskSizeGb: r.int("diskSizeGb", 100, { min: 10, max: 65536 }),
        ...(diskType && { diskType }),
        spot: r.bool("spot", false),
    };
}

/** The boot disk type, only when set: unset, GKE picks one the machine type supports. */
function readDiskType(r: ConfigReader, machineType: string): GkeBootDiskType | undefined {
    const diskType = r.string("diskType");
    if (diskType === undefined) {
        return undefined;
    }
    if (!(GKE_BOOT_DISK_TYPES as readonly string[]).includes(diskType)) {
        r.fail("diskType", `must be a node boot disk type GKE accepts: ${GKE_BOOT_DISK_TYPES.map((t) => `"${t}"`).join(", ")}; ` +
            `or remove ${r.key("diskType")} to let GKE pick one the machine type supports`);
        return undefined;
    }
    if (diskType.startsWith("pd-") && bootsOnlyFromHyperdisk(machineType)) {
        r.fail("diskType", `${machineType} boots only from Hyperdisk, not from a Persistent Disk: use "hyperdisk-balanced", ` +
            `or remove ${r.key("diskType")} to let GKE pick`);
    }
    return diskType as GkeBootDiskType;
}

function readCpuPool(r: ConfigReader): GkeNodePoolSettings {
    r.rejectUnknown(POOL_KEYS);
    return readPool(r, readMachineType(r, "e2-standard-4") ?? "e2-standard-4", { minNodes: 2, maxNodes: 4 }, 1);
}

function readGpuPool(gke: ConfigReader): GkeGpuPoolSettings | undefined {
    const r = gke.nested("gpuPool");
    if (r === undefined) {
        return undefined;
    }
    r.rejectUnknown(GPU_POOL_KEYS);
    const acceleratorType = r.required("acceleratorType", "the GPU type, e.g. nvidia-l4 or nvidia-tesla-t4 (`gcloud compute accelerator-types list`)");
    const acceleratorCount = r.int("acceleratorCount", 1);
    if (acceleratorCount < 1) {
        r.fail("acceleratorCount", "must be at least 1 GPU per node; to run without GPUs, remove gke.gpuPool");
    }
    const explicitMachine = readMachineType(r, undefined);
    if (acceleratorType && acceleratorCount >= 1) {
        for (const { field, problem } of checkGpuMachine(acceleratorType, acceleratorCount, explicitMachine)) {
            r.fail(field, problem, field === "acceleratorType" ? acceleratorType : field === "acceleratorCount" ? acceleratorCount : explicitMachine);
        }
    }
    const machineType = explicitMachine ?? defaultGpuMachineType(acceleratorType, acceleratorCount) ?? "";
    return {
        ...readPool(r, machineType, { minNodes: 0, maxNodes: 2 }, 0),
        acceleratorType,
        acceleratorCount,
        driverVersion: r.oneOf("driverVersion", ["DEFAULT", "LATEST"] as const, "DEFAULT"),
    };
}

function readRegistry(r: ConfigReader, region: string): ArtifactRegistrySettings {
    r.rejectUnknown(["host", "location", "repository", "keepImages"]);
    const host = r.oneOf("host", ARTIFACT_REGISTRY_HOSTS, "docker.pkg.dev");
    if (host !== "docker.pkg.dev") {
        for (const key of ["location", "repository"]) {
            if (r.has(key)) {
                r.fail(key, `does not apply with host "${host}": the repository is named "${host}" in its fixed multi-region`);
            }
        }
        if (r.has("keepImages")) {
            r.fail("keepImages", `does not apply with host "${host}": the ${host} repository is shared by the whole project, so this stack ` +
                "sets no cleanup policy on it (set one on the repository yourself), or remove gke.registry.host for a repository this stack owns");
        }
        return { host };
    }
    const repository = r.string("repository", "tf-serving");
    if (!REPOSITORY_ID.test(repository)) {
        r.fail("repository", "must be a repository id: lowercase letters, digits and '-', starting with a letter, at most 63 characters");
    }
    const location = r.string("location", region);
    if (location && !REGION.test(location) && !["us", "europe", "asia"].includes(location)) {
        r.fail("location", "must be a region such as \"us-central1\" or a multi-region \"us\", \"europe\", \"asia\"");
    }
    return { host, location, repository, keepImages: r.int("keepImages", 10, { min: 1, max: 1000 }) };
}
