/**
 * What terraform-provider-google (the provider pulumi-gcp wraps) refuses before any API call, stated
 * from its source (hashicorp/terraform-provider-google, read at e03b762, 2026-08-21), and every value
 * the GKE stack sends to it, walked from the same argument builders the components use
 * (`clusterArgs`, `nodePoolArgs`, `ownedRepositoryArgs`) so that a builder's change is checked too.
 */
import { GKE_NODE_PROJECT_ROLES, clusterArgs, nodeServiceAccountId } from "./cluster";
import { adapterPrincipal } from "./customMetricsAdapter";
import { nodePoolArgs } from "./nodePool";
import { ownedRepositoryArgs } from "./artifactRegistry";
import { cloudMonitoringDashboard } from "../../../observability/dashboard";
import type { ConfigIssue } from "../../../config/configReader";
import type { GcpConfig, GcpStackConfig } from "./config";
import { ProviderInput, ProviderRule, autoName, goCidrRefusal, intRange, isJson, oneOf, parseGoCidr, plain, providerIssues, rule } from "../../../config/providerRules";

const TPG = "terraform-provider-google";
const CLUSTER = `${TPG} google/services/container/resource_container_cluster.go`;
const NODE_POOL = `${TPG} google/services/container/resource_container_node_pool.go`;
const NODE_CONFIG = `${TPG} google/services/container/node_config.go`;
const VERIFY = `${TPG} google/verify/validation.go`;

/** `verify.ValidateRFC1035Name(min, max)`: the length, then `^[a-z]([-a-z0-9]*[a-z0-9])?$`. */
function rfc1035Name(source: string, min: number, max: number): ProviderRule {
    return rule(source, (v) => {
        if (v.length < min || v.length > max) {
            return `"${v}" has ${v.length} characters, and must have ${min} to ${max}`;
        }
        return /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v) ? undefined
            : `"${v}" must be lowercase letters, digits and '-', starting with a letter and not ending with '-'`;
    });
}

/** terraform-plugin-sdk `validation.IsCIDRNetwork(min, max)`: Go parses it, it prints back as written, its prefix is within [min, max]. */
function cidrNetwork(source: string, min: number, max: number): ProviderRule {
    return rule(source, (v) => {
        const cidr = parseGoCidr(v);
        if (cidr === undefined) {
            return goCidrRefusal(v);
        }
        if (cidr.network !== v) {
            return `"${v}" is not written as its network, ${cidr.network}`;
        }
        return cidr.bits >= min && cidr.bits <= max ? undefined
            : min === max ? `"${v}" must be a /${min}` : `"${v}" must have a prefix from /${min} to /${max}`;
    });
}

/** The rules, each with the provider source that states it. */
export const GCP_RULES = {
    /** The cluster's `name`: its own ValidateFunc. */
    clusterName: rule(`${CLUSTER} name ValidateFunc`, (v) => {
        const problems = [
            v.length > 40 ? `has ${v.length} characters, more than 40` : undefined,
            /^[a-z0-9-]+$/.test(v) ? undefined : "may hold only lowercase letters, digits and '-'",
            /^[a-z]/.test(v) ? undefined : "must start with a letter",
            /[a-z0-9]$/.test(v) ? undefined : "must end with a letter or a digit",
        ].filter((p) => p !== undefined);
        return problems.length === 0 ? undefined : `"${v}" ${problems.join(", ")}`;
    }),
    datapathProvider: oneOf(`${CLUSTER} datapath_provider`, ["DATAPATH_PROVIDER_UNSPECIFIED", "LEGACY_DATAPATH", "ADVANCED_DATAPATH"]),
    networkingMode: oneOf(`${CLUSTER} networking_mode`, ["VPC_NATIVE", "ROUTES"]),
    releaseChannel: oneOf(`${CLUSTER} release_channel.channel`, ["UNSPECIFIED", "RAPID", "REGULAR", "STABLE", "EXTENDED"]),
    gatewayApiChannel: oneOf(`${CLUSTER} gateway_api_config.channel`, ["CHANNEL_DISABLED", "CHANNEL_EXPERIMENTAL", "CHANNEL_STANDARD"]),
    /** `private_cluster_config.master_ipv4_cidr_block`: `verify.OrEmpty(validation.IsCIDRNetwork(28, 28))`. */
    masterCidr: cidrNetwork(`${CLUSTER} master_ipv4_cidr_block`, 28, 28),
    /** `master_authorized_networks_config.cidr_blocks.cidr_block`: `validation.IsCIDRNetwork(0, 32)`. */
    authorizedCidr: cidrNetwork(`${CLUSTER} cidrBlockConfig cidr_block`, 0, 32),
    /** `autoscaling.{total_,}{min,max}_node_count`, `upgrade_settings.max_surge`/`max_unavailable`: `validation.IntAtLeast(0)`. */
    nodeCount: intRange(`${NODE_POOL} autoscaling total_min_node_count, total_max_node_count; upgrade_settings`, 0),
    locationPolicy: oneOf(`${NODE_POOL} autoscaling.location_policy`, ["BALANCED", "ANY"]),
    diskSizeGb: intRange(`${NODE_CONFIG} disk_size_gb`, 10),
    workloadMetadataMode: oneOf(`${NODE_CONFIG} workload_metadata_config.mode`, ["MODE_UNSPECIFIED", "GCE_METADATA", "GKE_METADATA"]),
    taintEffect: oneOf(`${NODE_CONFIG} taint.effect`, ["NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"]),
    gpuDriverVersion: oneOf(`${NODE_CONFIG} guest_accelerator.gpu_driver_installation_config.gpu_driver_version`,
        ["GPU_DRIVER_VERSION_UNSPECIFIED", "INSTALLATION_DISABLED", "DEFAULT", "LATEST"]),
    /** `google_compute_subnetwork.ip_cidr_range`: `verify.ValidateIpCidrRange`, Go's `net.ParseCIDR` alone. */
    ipCidrRange: rule(`${TPG} google/services/compute/resource_compute_subnetwork.go ip_cidr_range (${VERIFY} ValidateIpCidrRange)`,
        (v) => (parseGoCidr(v) === undefined ? goCidrRefusal(v) : undefined)),
    /** A Compute Engine resource's `name` (network, subnetwork, router, firewall): `verify.ValidateGCEName`. */
    gceName: rule(`${TPG} google/services/compute/resource_compute_network.go name (${VERIFY} ValidateGCEName)`,
        (v) => (/^(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$/.test(v) ? undefined
            : `"${v}" must be 1-63 lowercase letters, digits and '-', starting with a letter and not ending with '-'`)),
    routerNatName: rfc1035Name(`${TPG} google/services/compute/resource_compute_router_nat.go name (ValidateRFC1035Name(2, 63))`, 2, 63),
    natIpAllocateOption: oneOf(`${TPG} google/services/compute/resource_compute_router_nat.go nat_ip_allocate_option`, ["MANUAL_ONLY", "AUTO_ONLY", ""]),
    natSourceRanges: oneOf(`${TPG} google/services/compute/resource_compute_router_nat.go source_subnetwork_ip_ranges_to_nat`,
        ["ALL_SUBNETWORKS_ALL_IP_RANGES", "ALL_SUBNETWORKS_ALL_PRIMARY_IP_RANGES", "LIST_OF_SUBNETWORKS"]),
    firewallDirection: oneOf(`${TPG} google/services/compute/resource_compute_firewall.go direction`, ["INGRESS", "EGRESS", ""]),
    /** `google_service_account.account_id`: `verify.ValidateRFC1035Name(6, 30)`. */
    serviceAccountId: rfc1035Name(`${TPG} google/services/resourcemanager/resource_google_service_account.go account_id (ValidateRFC1035Name(6, 30))`, 6, 30),
    /** Every `google_*_iam_member`'s `member`: `validateIAMMember` (not `deleted:...`; `TYPE:ID` or one of the special names, matched anywhere). */
    iamMember: rule(`${TPG} google/tpgiamresource/resource_iam_member.go validateIAMMember`, (v) => {
        if (/^deleted/.test(v)) {
            return `"${v}" names a deleted principal`;
        }
        return /(.+:.+|projectOwners|projectReaders|projectWriters|allUsers|allAuthenticatedUsers)/.test(v) ? undefined
            : `"${v}" is not an IAM member: it needs its type, e.g. "serviceAccount:NAME@PROJECT.iam.gserviceaccount.com"`;
    }),
    cleanupAction: oneOf(`${TPG} google/services/artifactregistry/resource_artifact_registry_repository.go cleanup_policies.action`, ["DELETE", "KEEP", ""]),
    cleanupTagState: oneOf(`${TPG} google/services/artifactregistry/resource_artifact_registry_repository.go cleanup_policies.condition.tag_state`,
        ["TAGGED", "UNTAGGED", "ANY", ""]),
    dashboardJson: isJson(`${TPG} google/services/monitoring/resource_monitoring_dashboard.go dashboard_json (validation.StringIsJSON)`),
} as const;


/** Placeholders for what only the cloud knows (ids, emails): their shape is what the rules read. */
const PLACEHOLDER = { network: "projects/p/global/networks/n", subnetwork: "projects/p/regions/r/subnetworks/s", cluster: "cluster", projectNumber: "123456789012" };

/** Every value the GKE stack sends to the Google provider that a rule of `GCP_RULES` covers. */
export function gcpProviderInputs(gke: GcpConfig, models: { name: string }[], namespace: string, managedPrometheus: boolean): ProviderInput[] {
    const inputs: ProviderInput[] = [];
    const add = (input: string, value: unknown, ruleOf: ProviderRule, key: string, derived?: ProviderInput["derived"]) =>
        inputs.push({ input, value, rule: ruleOf, key, derived, provider: "Google" });
    const constant = (input: string, value: unknown, ruleOf: ProviderRule) =>
        add(input, value, ruleOf, "gke", { from: value, fix: "this program sets it: report it as a tf-serving bug" });

    const accountId = nodeServiceAccountId(gke.clusterName);
    const email = `${accountId}@${gke.project}.iam.gserviceaccount.com`;
    const cluster = clusterArgs({ ...gke, managedPrometheus }, { network: PLACEHOLDER.network, subnetwork: PLACEHOLDER.subnetwork, serviceAccount: email });
    add("gcp.container.Cluster name", cluster.name, GCP_RULES.clusterName, "gke.clusterName");
    constant("gcp.container.Cluster datapathProvider", cluster.datapathProvider, GCP_RULES.datapathProvider);
    constant("gcp.container.Cluster networkingMode", cluster.networkingMode, GCP_RULES.networkingMode);
    add("gcp.container.Cluster releaseChannel.channel", plain(cluster.releaseChannel)?.channel, GCP_RULES.releaseChannel, "gke.releaseChannel");
    constant("gcp.container.Cluster gatewayApiConfig.channel", plain(cluster.gatewayApiConfig)?.channel, GCP_RULES.gatewayApiChannel);
    const privateConfig = plain(cluster.privateClusterConfig);
    if (privateConfig?.masterIpv4CidrBlock !== undefined) {
        add("gcp.container.Cluster privateClusterConfig.masterIpv4CidrBlock", privateConfig.masterIpv4CidrBlock, GCP_RULES.masterCidr, "gke.masterCidr");
    }
    (plain(plain(cluster.masterAuthorizedNetworksConfig)?.cidrBlocks) ?? []).forEach((block, i) => {
        const key = gke.apiAccessCidrs === undefined ? "gke" : `gke.apiAccessCidrs[${i}]`;
        add("gcp.container.Cluster masterAuthorizedNetworksConfig.cidrBlocks.cidrBlock", plain(block)?.cidrBlock, GCP_RULES.authorizedCidr, key,
            gke.apiAccessCidrs === undefined ? { from: plain(block)?.cidrBlock, fix: "this program sets it: report it as a tf-serving bug" } : undefined);
    });

    const at = { cluster: PLACEHOLDER.cluster, location: gke.region, project: gke.project, serviceAccount: email, zones: gke.zones ?? [] };
    const pools = [{ kind: "cpu" as const, key: "gke.cpuPool", settings: gke.cpuPool }, ...(gke.gpuPool ? [{ kind: "gpu" as const, key: "gke.gpuPool", settings: gke.gpuPool }] : [])];
    for (const { kind, key, settings } of pools) {
        const pool = nodePoolArgs(kind, settings, at);
        const autoscaling = plain(pool.autoscaling);
        add("gcp.container.NodePool autoscaling.totalMinNodeCount", autoscaling?.totalMinNodeCount, GCP_RULES.nodeCount, `${key}.minNodes`);
        add("gcp.container.NodePool autoscaling.totalMaxNodeCount", autoscaling?.totalMaxNodeCount, GCP_RULES.nodeCount, `${key}.maxNodes`);
        constant("gcp.container.NodePool autoscaling.locationPolicy", autoscaling?.locationPolicy, GCP_RULES.locationPolicy);
        const upgrade = plain(pool.upgradeSettings);
        constant("gcp.container.NodePool upgradeSettings.maxSurge", upgrade?.maxSurge, GCP_RULES.nodeCount);
        constant("gcp.container.NodePool upgradeSettings.maxUnavailable", upgrade?.maxUnavailable, GCP_RULES.nodeCount);
        const node = plain(pool.nodeConfig);
        add("gcp.container.NodePool nodeConfig.diskSizeGb", node?.diskSizeGb, GCP_RULES.diskSizeGb, `${key}.diskSizeGb`);
        constant("gcp.container.NodePool nodeConfig.workloadMetadataConfig.mode", plain(node?.workloadMetadataConfig)?.mode, GCP_RULES.workloadMetadataMode);
        for (const taint of plain(node?.taints) ?? []) {
            constant("gcp.container.NodePool nodeConfig.taints.effect", plain(taint)?.effect, GCP_RULES.taintEffect);
        }
        for (const accelerator of plain(node?.guestAccelerators) ?? []) {
            add("gcp.container.NodePool nodeConfig.guestAccelerators.gpuDriverInstallationConfig.gpuDriverVersion",
                plain(plain(accelerator)?.gpuDriverInstallationConfig)?.gpuDriverVersion, GCP_RULES.gpuDriverVersion, `${key}.driverVersion`);
        }
    }

    add("gcp.compute.Subnetwork ipCidrRange", gke.subnetCidr, GCP_RULES.ipCidrRange, "gke.subnetCidr");
    for (const name of ["gke-network", "gke-nodes", ...(gke.privateNodes ? ["gke-router", "gke-control-plane-to-rest"] : [])]) {
        constant(`the Compute Engine name Pulumi gives ${name}`, autoName(name), GCP_RULES.gceName);
    }
    if (gke.privateNodes) {
        constant("gcp.compute.RouterNat name", autoName("gke-nat"), GCP_RULES.routerNatName);
        constant("gcp.compute.RouterNat natIpAllocateOption", "AUTO_ONLY", GCP_RULES.natIpAllocateOption);
        constant("gcp.compute.RouterNat sourceSubnetworkIpRangesToNat", "ALL_SUBNETWORKS_ALL_IP_RANGES", GCP_RULES.natSourceRanges);
        constant("gcp.compute.Firewall direction", "INGRESS", GCP_RULES.firewallDirection);
    }

    add("gcp.serviceaccount.Account accountId", accountId, GCP_RULES.serviceAccountId, "gke.clusterName",
        { from: gke.clusterName, fix: "the id is the cluster name's first 24 characters and \"-nodes\": choose a gke.clusterName that starts with a letter" });
    const member = `serviceAccount:${email}`;
    for (const role of GKE_NODE_PROJECT_ROLES) {
        constant(`gcp.projects.IAMMember member (${role})`, member, GCP_RULES.iamMember);
    }
    constant("gcp.artifactregistry.RepositoryIamMember member", member, GCP_RULES.iamMember);
    if (gke.customMetricsAdapterImage !== undefined) {
        constant("gcp.projects.IAMMember member (the custom metrics adapter)", adapterPrincipal(PLACEHOLDER.projectNumber, gke.project), GCP_RULES.iamMember);
    }
    if (gke.registry.host === "docker.pkg.dev") {
        for (const policy of plain(ownedRepositoryArgs(gke.project, gke.registry).cleanupPolicies) ?? []) {
            const p = plain(policy);
            constant(`gcp.artifactregistry.Repository cleanupPolicies[${p?.id}].action`, p?.action, GCP_RULES.cleanupAction);
            const tagState = plain(p?.condition)?.tagState;
            if (tagState !== undefined) {
                constant(`gcp.artifactregistry.Repository cleanupPolicies[${p?.id}].condition.tagState`, tagState, GCP_RULES.cleanupTagState);
            }
        }
    }
    if (managedPrometheus) {
        for (const model of models) {
            constant(`gcp.monitoring.Dashboard dashboardJson (${model.name})`,
                JSON.stringify(cloudMonitoringDashboard({ name: model.name, namespace }, gke.clusterName)), GCP_RULES.dashboardJson);
        }
    }
    return inputs;
}

/** The issues of every value a GKE stack sends to the Google provider that the provider would refuse. */
export function gcpProviderIssues(config: GcpStackConfig): ConfigIssue[] {
    return providerIssues(gcpProviderInputs(config.gke, config.models, config.namespace, config.monitoring.collector === "gke"));
}

