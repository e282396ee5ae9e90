/**
 * `GkeCluster`'s resolver, pure: its Args with every default filled in, and every value GKE, Compute
 * Engine or TF Serving would refuse, keyed by field path. `GkeCluster` throws what it finds before
 * it registers anything; the `gke` config section maps its keys onto these fields and records the
 * issues under them (`components/argsIssues.ts`).
 */
import type { ArgsIssue } from "../../argsIssues";
import {
    FieldKey, NO_ARM64, firstPerField, ipv4BlockIssue, ipv4ListIssues, nodeBoundsIssues, oneOfIssue, sameField, wholeNumberIssue, zoneIssues,
} from "../../clusterRules";
import { gkeClusterIssues } from "./clusterChecks";
import { adapterImageIssue } from "./customMetricsAdapter";
import { GCP_REGION, projectIdIssue } from "./names";
import { bootsOnlyFromHyperdisk, checkGpuMachine, defaultGpuMachineType, isArmMachineType, machineTypeProblem } from "./machines";
import { GKE_BOOT_DISK_TYPES, GkeGpuPoolSettings, GkeNodePoolSettings } from "./nodePool";

export interface GkeClusterArgs {
    /** Google Cloud project id; also where the network and the node service account are created. */
    project: string;
    /** Region of the regional cluster (control plane replicated across its zones), e.g. `us-central1`. */
    region: string;
    /** Zones of the region the node pools use; undefined lets GKE pick. GPU pools need zones that have the accelerator. */
    zones?: string[];
    /** GKE cluster name (1-40 characters: lowercase letters, digits, '-'). */
    clusterName: string;
    /** Release channel (`RAPID`, `REGULAR`, `STABLE`, `EXTENDED`); GKE picks the version and upgrades the control plane and nodes within it. Default `REGULAR`. */
    releaseChannel?: GkeReleaseChannel;
    /** When true, GKE refuses to delete the cluster (`pulumi destroy` fails until it is set to false and applied). Default true. */
    deletionProtection?: boolean;
    /** Nodes get no external IP; egress goes through Cloud NAT, Google APIs through Private Google Access. Default false. */
    privateNodes?: boolean;
    /** Primary range of the node subnetwork, e.g. `10.0.0.0/20`; pod and service ranges are picked by GKE. Default `10.0.0.0/20`. */
    subnetCidr?: string;
    /** The control plane's /28 range (e.g. `172.16.0.0/28`), used only with `privateNodes`; it must not overlap `subnetCidr`. Default `172.16.0.0/28`. */
    masterCidr?: string;
    /** CIDRs allowed to reach the Kubernetes API; undefined leaves the public endpoint open to any address (still authenticated). */
    apiAccessCidrs?: string[];
    /** The pool every CPU model and cluster add-on runs on. */
    cpuPool: GkeNodePoolSettings;
    /**
     * Managed Service for Prometheus' managed collection (it reads `PodMonitoring` and `Rules`), with
     * the metric packages the model alerts read: the kubelet's cAdvisor and kube-state-metrics' pods
     * and Deployments. Default true.
     */
    managedPrometheus?: boolean;
    /** Optional GPU pool, for models with GPUs (`ModelServer` `placement`: this cluster's `placement.gpu`). Default: none. GKE taints its nodes and runs the NVIDIA device plugin itself. */
    gpuPool?: GkeGpuPoolSettings;
    /**
     * Install the Custom Metrics Stackdriver Adapter (`customMetricsAdapter.ts`), with its Cloud
     * Monitoring read role through Workload Identity, so a request-rate HPA reads the rate GMP records.
     * Needs `managedPrometheus`; `image` is the adapter's, pinned by digest. Default none; the GKE stack
     * sets it when a model has `targetRequestsPerSecond`.
     */
    customMetricsAdapter?: { image: string };
}

/** GKE's release channels: each picks the cluster's version and upgrades it within the channel. */
export const GKE_RELEASE_CHANNELS = ["RAPID", "REGULAR", "STABLE", "EXTENDED"] as const;
export type GkeReleaseChannel = (typeof GKE_RELEASE_CHANNELS)[number];

/** What `GkeCluster` sets for a field its Args leave out: also the `gke` config section's defaults. */
export const GKE_CLUSTER_DEFAULTS = {
    releaseChannel: "REGULAR",
    deletionProtection: true,
    privateNodes: false,
    subnetCidr: "10.0.0.0/20",
    masterCidr: "172.16.0.0/28",
} as const satisfies Required<Pick<GkeClusterArgs, "releaseChannel" | "deletionProtection" | "privateNodes" | "subnetCidr" | "masterCidr">>;

/** `GkeClusterArgs` with every default filled in. */
export type ResolvedGkeClusterArgs = GkeClusterArgs & Required<Pick<GkeClusterArgs, keyof typeof GKE_CLUSTER_DEFAULTS>>;

/** `args` with `GKE_CLUSTER_DEFAULTS` for the fields it leaves out. */
export function withGkeClusterDefaults(args: GkeClusterArgs): ResolvedGkeClusterArgs {
    return {
        ...args,
        releaseChannel: args.releaseChannel ?? GKE_CLUSTER_DEFAULTS.releaseChannel,
        deletionProtection: args.deletionProtection ?? GKE_CLUSTER_DEFAULTS.deletionProtection,
        privateNodes: args.privateNodes ?? GKE_CLUSTER_DEFAULTS.privateNodes,
        subnetCidr: args.subnetCidr ?? GKE_CLUSTER_DEFAULTS.subnetCidr,
        masterCidr: args.masterCidr ?? GKE_CLUSTER_DEFAULTS.masterCidr,
    };
}

export { GCP_REGION };
const CLUSTER_NAME = /^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$/;
const MACHINE_TYPE = /^[a-z][a-z0-9]*-[a-z0-9-]+$/;

/** The NVIDIA driver versions GKE installs on a GPU pool. */
export const GKE_DRIVER_VERSIONS = ["DEFAULT", "LATEST"] as const;

/** What `resolveGkeClusterArgs` returns: the settings `GkeCluster` builds from, and what is wrong with them. */
export interface GkeClusterResolution {
    args: ResolvedGkeClusterArgs;
    issues: ArgsIssue[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `given` resolved: its defaults (`GKE_CLUSTER_DEFAULTS`) and its issues, at most one per field. `key` names another field in a message. */
export function resolveGkeClusterArgs(given: GkeClusterArgs, key: FieldKey = sameField): GkeClusterResolution {
    const args = withGkeClusterDefaults(given);
    const issues: ArgsIssue[] = [];
    const push = (issue: ArgsIssue | undefined) => issue && issues.push(issue);
    push(projectIdIssue("project", args.project));
    const region = args.region ?? "";
    if (!GCP_REGION.test(region)) {
        push({ field: "region", value: args.region, message: "must be a Compute Engine region such as \"us-central1\" (a region, not a zone like \"us-central1-a\")" });
    }
    issues.push(...zoneIssues("zones", args.zones, region, new RegExp(`^${escapeRegExp(region)}-[a-z]$`), `${region || "us-central1"}-a`, key));
    if (!CLUSTER_NAME.test(args.clusterName ?? "")) {
        push({ field: "clusterName", value: args.clusterName, message: "must be 1-40 lowercase letters, digits and '-', starting with a letter and not ending with '-'" });
    }
    push(oneOfIssue("releaseChannel", args.releaseChannel, GKE_RELEASE_CHANNELS));
    push(ipv4BlockIssue("subnetCidr", args.subnetCidr, 8, 29));
    push(ipv4BlockIssue("masterCidr", args.masterCidr, 28, 28));
    issues.push(...ipv4ListIssues("apiAccessCidrs", args.apiAccessCidrs));
    issues.push(...poolIssues("cpuPool", args.cpuPool, 1, key));
    if (args.gpuPool !== undefined) {
        issues.push(...gpuPoolIssues(args.gpuPool, key));
    }
    if (args.customMetricsAdapter !== undefined) {
        push(adapterImageIssue("customMetricsAdapter.image", args.customMetricsAdapter.image));
        if (args.managedPrometheus === false) {
            push({
                field: "customMetricsAdapter", value: args.customMetricsAdapter,
                message: `needs ${key("managedPrometheus")}: the adapter serves the request rate Managed Service for Prometheus records; remove one or the other`,
            });
        }
    }
    issues.push(...gkeClusterIssues({ ...args, region }, key));
    return { args, issues: firstPerField(issues) };
}

/** A machine type's issues: Compute Engine's form, x86 only, a type of its series. */
function machineTypeIssue(field: string, machineType: string): ArgsIssue | undefined {
    if (!MACHINE_TYPE.test(machineType)) {
        return { field, value: machineType, message: "must be a Compute Engine machine type such as \"e2-standard-4\"" };
    }
    if (isArmMachineType(machineType)) {
        return { field, value: machineType, message: `${NO_ARM64} such as "e2-standard-4"` };
    }
    const problem = machineTypeProblem(machineType);
    return problem === undefined ? undefined : { field, value: machineType, message: problem };
}

/** A pool's own settings (under `at`), its machine type checked unless `checkMachine` is false. */
function poolIssues(at: string, pool: GkeNodePoolSettings, floor: number, key: FieldKey, checkMachine = true): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const push = (issue: ArgsIssue | undefined) => issue && issues.push(issue);
    if (checkMachine) {
        push(machineTypeIssue(`${at}.machineType`, pool.machineType ?? ""));
    }
    issues.push(...nodeBoundsIssues(at, pool, floor, key));
    push(wholeNumberIssue(`${at}.diskSizeGb`, pool.diskSizeGb, 10, 65536));
    if (pool.diskType !== undefined) {
        if (!(GKE_BOOT_DISK_TYPES as readonly string[]).includes(pool.diskType)) {
            push({
                field: `${at}.diskType`, value: pool.diskType,
                message: `must be a node boot disk type GKE accepts: ${GKE_BOOT_DISK_TYPES.map((t) => `"${t}"`).join(", ")}; ` +
                    `or remove ${key(`${at}.diskType`)} to let GKE pick one the machine type supports`,
            });
        } else if (pool.diskType.startsWith("pd-") && bootsOnlyFromHyperdisk(pool.machineType ?? "")) {
            push({
                field: `${at}.diskType`, value: pool.diskType,
                message: `${pool.machineType} boots only from Hyperdisk, not from a Persistent Disk: use "hyperdisk-balanced", ` +
                    `or remove ${key(`${at}.diskType`)} to let GKE pick`,
            });
        }
    }
    return issues;
}

/**
 * The GPU pool: at least one GPU per node, an accelerator and machine type that go together. An
 * empty `machineType` is checked as unset: one is required where this program knows no default.
 */
function gpuPoolIssues(pool: GkeGpuPoolSettings, key: FieldKey): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const { acceleratorType, acceleratorCount } = pool;
    const count = wholeNumberIssue("gpuPool.acceleratorCount", acceleratorCount, 1, Number.MAX_SAFE_INTEGER);
    if (count !== undefined) {
        issues.push({ ...count, message: `must be at least 1 GPU per node; to run without GPUs, remove ${key("gpuPool")}` });
    }
    const explicit = pool.machineType === "" ? undefined : pool.machineType;
    if (explicit !== undefined) {
        const machine = machineTypeIssue("gpuPool.machineType", explicit);
        if (machine !== undefined) {
            issues.push(machine);
        }
    }
    if (!acceleratorType) {
        issues.push({ field: "gpuPool.acceleratorType", value: acceleratorType, message: "required: the GPU type, e.g. nvidia-l4 or nvidia-tesla-t4 (`gcloud compute accelerator-types list`)" });
    } else if (count === undefined) {
        const found = checkGpuMachine(acceleratorType, acceleratorCount, explicit).filter((p) => !issues.some((i) => i.field === `gpuPool.${p.field}`));
        issues.push(...found.map(({ field, problem }) => ({
            field: `gpuPool.${field}`, message: problem,
            value: field === "acceleratorType" ? acceleratorType : field === "acceleratorCount" ? acceleratorCount : explicit,
        })));
        const suggested = defaultGpuMachineType(acceleratorType, acceleratorCount);
        if (explicit === undefined && found.length === 0 && suggested !== undefined) {
            issues.push({ field: "gpuPool.machineType", value: pool.machineType, message: `is required: the machine type the GPUs attach to, e.g. "${suggested}"` });
        }
    }
    issues.push(...poolIssues("gpuPool", pool, 0, key, false));
    const driver = oneOfIssue("gpuPool.driverVersion", pool.driverVersion, GKE_DRIVER_VERSIONS);
    if (driver !== undefined) {
        issues.push(driver);
    }
    return issues;
}
