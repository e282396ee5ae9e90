/**
 * The `gke` configuration section (cloud: gcp): the GKE cluster, its node pools and the Artifact
 * Registry repository. Set keys with `pulumi config set --path gke.region us-central1`. Every value
 * is checked here, before anything is registered; docs/reference/configuration.md#gke-cloud-gcp lists the keys.
 */
import { GKE_CLUSTER_DEFAULTS, GKE_DRIVER_VERSIONS, GkeReleaseChannel, resolveGkeClusterArgs } from "./clusterArgs";
import { defaultGpuMachineType } from "./machines";
import { GkeBootDiskType, GkeGpuPoolSettings, GkeNodePoolSettings } from "./nodePool";
import { ARTIFACT_REGISTRY_HOSTS, ArtifactRegistrySettings, artifactRegistrySettingsIssues } from "./artifactRegistry";
import type { ResolvedGkeClusterArgs } from "./cluster";
import { readNodeBounds, recordArgsIssues, section } from "../../../config/cloudConfig";
import { ConfigReader } from "../../../config/configReader";
import type { StackConfig } from "../../../config/settings";
import { CUSTOM_METRICS_ADAPTER } from "./customMetricsAdapter";

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

/** The config key of a `GkeClusterArgs` field: the same name under `gke.`, but the adapter's image. */
const configField = (field: string) => field.replace(/^customMetricsAdapter\.image$/, "customMetricsAdapterImage");

/**
 * The section, read as `GkeCluster` takes it: the keys are its Args' fields, so this reads their types
 * and the section's own defaults, and `resolveGkeClusterArgs` checks every value (its issues are
 * recorded under these keys).
 */
export function readGcpConfig(top: ConfigReader): GcpConfig {
    const r = section(top, "gke");
    r.rejectUnknown(GKE_KEYS);

    const project = r.required("project", "the Google Cloud project id, e.g. `pulumi config set --path gke.project my-project`");
    const region = r.required("region", "the region, e.g. `pulumi config set --path gke.region us-central1`");
    const privateNodes = r.bool("privateNodes", GKE_CLUSTER_DEFAULTS.privateNodes);
    if (r.has("masterCidr") && !privateNodes) {
        // A key written for nothing; `GkeCluster` is always handed the default range, used only with private nodes.
        r.fail("masterCidr", "applies only with gke.privateNodes: true");
    }
    const customMetricsAdapterImage = r.string("customMetricsAdapterImage");
    const settings: GcpConfig = {
        project,
        region,
        zones: readList(r, "zones"),
        clusterName: r.string("clusterName", "tf-serving"),
        releaseChannel: r.string("releaseChannel", GKE_CLUSTER_DEFAULTS.releaseChannel) as GkeReleaseChannel,
        deletionProtection: r.bool("deletionProtection", GKE_CLUSTER_DEFAULTS.deletionProtection),
        privateNodes,
        subnetCidr: r.string("subnetCidr", GKE_CLUSTER_DEFAULTS.subnetCidr),
        masterCidr: r.string("masterCidr", GKE_CLUSTER_DEFAULTS.masterCidr),
        apiAccessCidrs: readList(r, "apiAccessCidrs"),
        cpuPool: readCpuPool(section(r, "cpuPool")),
        gpuPool: readGpuPool(r),
        registry: readRegistry(section(r, "registry"), region),
        customMetricsAdapterImage,
    };
    const { issues } = resolveGkeClusterArgs({ ...settings, customMetricsAdapter: customMetricsAdapterImage === undefined ? undefined : { image: customMetricsAdapterImage } },
        (field) => r.key(configField(field)));
    recordArgsIssues(r, issues, configField);
    return settings;
}

/** A list of strings as written; a list whose every entry was refused stays as written, so it does not read as empty. */
function readList(r: ConfigReader, name: string): string[] | undefined {
    const read = r.stringList(name);
    return read !== undefined && read.length === 0 ? r.list(name) as string[] : read;
}

function readPool(r: ConfigReader, machineType: string, bounds: { minNodes: number; maxNodes: number }): GkeNodePoolSettings {
    const diskType = r.string("diskType") as GkeBootDiskType | undefined;
    return {
        machineType,
        ...readNodeBounds(r, bounds),
        diskSizeGb: r.int("diskSizeGb", 100),
        ...(diskType && { diskType }),
        spot: r.bool("spot", false),
    };
}

function readCpuPool(r: ConfigReader): GkeNodePoolSettings {
    r.rejectUnknown(POOL_KEYS);
    return readPool(r, r.string("machineType", "e2-standard-4"), { minNodes: 2, maxNodes: 4 });
}

/** The GPU pool; its machine type defaults to the one this program picks for the accelerator and count (empty where it knows none). */
function readGpuPool(gke: ConfigReader): GkeGpuPoolSettings | undefined {
    const r = gke.nested("gpuPool");
    if (r === undefined) {
        return undefined;
    }
    r.rejectUnknown(GPU_POOL_KEYS);
    const acceleratorType = r.required("acceleratorType", "the GPU type, e.g. nvidia-l4 or nvidia-tesla-t4 (`gcloud compute accelerator-types list`)");
    const acceleratorCount = r.int("acceleratorCount", 1);
    const machineType = r.string("machineType") ?? defaultGpuMachineType(acceleratorType, acceleratorCount) ?? "";
    return {
        ...readPool(r, machineType, { minNodes: 0, maxNodes: 2 }),
        acceleratorType,
        acceleratorCount,
        driverVersion: r.string("driverVersion", "DEFAULT") as (typeof GKE_DRIVER_VERSIONS)[number],
    };
}

function readRegistry(r: ConfigReader, region: string): ArtifactRegistrySettings {
    r.rejectUnknown(["host", "location", "repository", "keepImages"]);
    const host = r.oneOf("host", ARTIFACT_REGISTRY_HOSTS, "docker.pkg.dev");
    // As written for a gcr.io host (the resolver refuses the owned repository's keys there); the defaults otherwise.
    const settings = host !== "docker.pkg.dev"
        ? { host, location: r.has("location") ? r.string("location") : undefined, repository: r.has("repository") ? r.string("repository") : undefined, keepImages: r.has("keepImages") ? r.int("keepImages", 10) : undefined }
        : { host, location: r.string("location", region), repository: r.string("repository", "tf-serving"), keepImages: r.int("keepImages", 10) };
    // A location left to the region: refused under the region's key when that is missing.
    const derived = !r.has("location") && !region;
    recordArgsIssues(r, artifactRegistrySettingsIssues(settings as ArtifactRegistrySettings).filter((i) => !(derived && i.field === "location")));
    return host !== "docker.pkg.dev" ? { host } : settings as ArtifactRegistrySettings;
}
