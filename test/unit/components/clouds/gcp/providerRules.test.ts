import * as assert from "assert";
import { readConfig } from "../../../../../config/config";
import { ConfigError, ConfigIssue } from "../../../../../config/configReader";
import type { GcpConfig } from "../../../../../components/clouds/gcp/config";
import { GCP_RULES, gcpProviderInputs } from "../../../../../components/clouds/gcp/providerRules";
import { PROVIDER_LIMITS_DOC, ProviderRule, autoName, providerIssues } from "../../../../../config/providerRules";
import { ROOT, exampleConfig, issueFor } from "../../../../support/cloudMocks";

/* The rules terraform-provider-google (what pulumi-gcp wraps) applies before any API call, stated from
 * hashicorp/terraform-provider-google at e03b762 (2026-08-21); each `describe` names the file and the
 * validator. The real provider refused these inputs offline while the unit tests' mocks passed them. */

function table(r: ProviderRule, accepted: unknown[], refused: unknown[]): void {
    for (const value of accepted) {
        assert.strictEqual(r.check(value), undefined, `${r.source} should accept ${JSON.stringify(value)}`);
    }
    for (const value of refused) {
        assert.notStrictEqual(r.check(value), undefined, `${r.source} should refuse ${JSON.stringify(value)}`);
    }
}

describe("terraform-provider-google's rules", () => {
    it("google/services/container/resource_container_cluster.go name ValidateFunc: at most 40, [a-z0-9-], a letter first, no '-' last", () => {
        table(GCP_RULES.clusterName, ["tf-serving", "a", "a".repeat(40), "tf-serving-example"],
            ["a".repeat(41), "Tf-serving", "tf_serving", "1tf", "tf-", ""]);
        assert.match(GCP_RULES.clusterName.check("a".repeat(41)) ?? "", /41 characters, more than 40/);
    });

    it("resource_container_cluster.go datapath_provider, networking_mode, release_channel.channel, gateway_api_config.channel: StringInSlice", () => {
        table(GCP_RULES.datapathProvider, ["ADVANCED_DATAPATH", "LEGACY_DATAPATH", "DATAPATH_PROVIDER_UNSPECIFIED"], ["DATAPATH_V2", "advanced_datapath", ""]);
        table(GCP_RULES.networkingMode, ["VPC_NATIVE", "ROUTES"], ["VPC-NATIVE", "vpc_native"]);
        table(GCP_RULES.releaseChannel, ["RAPID", "REGULAR", "STABLE", "EXTENDED", "UNSPECIFIED"], ["regular", "NONE"]);
        table(GCP_RULES.gatewayApiChannel, ["CHANNEL_STANDARD", "CHANNEL_EXPERIMENTAL", "CHANNEL_DISABLED"], ["STANDARD", "channel_standard"]);
    });

    it("resource_container_cluster.go master_ipv4_cidr_block: IsCIDRNetwork(28, 28)", () => {
        table(GCP_RULES.masterCidr, ["172.16.0.0/28", "10.0.0.16/28"], ["172.16.0.0/27", "172.16.0.1/28", "172.16.0.0/028", "172.016.0.0/28", "172.16.0.0"]);
    });

    it("resource_container_cluster.go cidrBlockConfig cidr_block: IsCIDRNetwork(0, 32), written as its network", () => {
        table(GCP_RULES.authorizedCidr, ["0.0.0.0/0", "203.0.113.0/24", "198.51.100.7/32", "2001:db8::/32"],
            ["300.0.0.0/8", "10.0.0.0/33", "10.0.0.1/8", "10.0.0.0/08", "010.0.0.0/8", "10.0.0.0", " 10.0.0.0/8", "2001:db8::/33", "2001:DB8::/32"]);
        assert.match(GCP_RULES.authorizedCidr.check("10.0.0.1/8") ?? "", /not written as its network, 10\.0\.0\.0\/8/);
    });

    it("resource_container_node_pool.go autoscaling counts and upgrade_settings: IntAtLeast(0); location_policy: BALANCED or ANY", () => {
        table(GCP_RULES.nodeCount, [0, 1, 1000], [-1, 1.5, "2"]);
        table(GCP_RULES.locationPolicy, ["BALANCED", "ANY"], ["balanced", "ANY_ZONE", ""]);
    });

    it("node_config.go disk_size_gb IntAtLeast(10); workload_metadata_config.mode, taint.effect, gpu_driver_version: StringInSlice", () => {
        table(GCP_RULES.diskSizeGb, [10, 100], [9, 0]);
        table(GCP_RULES.workloadMetadataMode, ["GKE_METADATA", "GCE_METADATA", "MODE_UNSPECIFIED"], ["GKE_METADATA_SERVER", "gke_metadata"]);
        table(GCP_RULES.taintEffect, ["NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"], ["NoSchedule", "no_schedule"]);
        table(GCP_RULES.gpuDriverVersion, ["DEFAULT", "LATEST", "INSTALLATION_DISABLED", "GPU_DRIVER_VERSION_UNSPECIFIED"], ["default", "535"]);
    });

    it("google/verify/validation.go ValidateIpCidrRange (subnetwork ip_cidr_range): whatever Go's net.ParseCIDR takes", () => {
        // Laxer than IsCIDRNetwork: host bits and a zero-padded prefix pass; Go's address parser still refuses a zero-padded octet.
        table(GCP_RULES.ipCidrRange, ["10.0.0.0/20", "10.0.0.1/20", "10.0.0.0/020", "2001:db8::/64"], ["10.0.0.0/33", "010.0.0.0/20", "10.0.0.0", "10.0.0.256/20"]);
    });

    it("google/verify/validation.go ValidateGCEName (network, subnetwork, router, firewall names) and ValidateRFC1035Name(2, 63) (router NAT)", () => {
        table(GCP_RULES.gceName, ["gke-network", "a", "a".repeat(63)], ["tf_serving", "a".repeat(64), "Gke", "1net", "net-"]);
        table(GCP_RULES.routerNatName, ["gke-nat", "ab"], ["a", "a".repeat(64), "gke_nat"]);
    });

    it("resource_google_service_account.go account_id: ValidateRFC1035Name(6, 30)", () => {
        table(GCP_RULES.serviceAccountId, ["tf-serving-nodes", "abcdef", "a".repeat(30)], ["abcde", "a".repeat(31), "9-lives-nodes", "tf_serving", "nodes-"]);
        assert.match(GCP_RULES.serviceAccountId.check("abcde") ?? "", /has 5 characters, and must have 6 to 30/);
    });

    it("google/tpgiamresource/resource_iam_member.go validateIAMMember: TYPE:ID, never deleted:", () => {
        table(GCP_RULES.iamMember, ["serviceAccount:n@p.iam.gserviceaccount.com", "principal://iam.googleapis.com/projects/1/x", "allUsers"],
            ["n@p.iam.gserviceaccount.com", "deleted:serviceAccount:n@p.iam.gserviceaccount.com", ""]);
    });

    it("resource_artifact_registry_repository.go cleanup_policies action and condition.tag_state; resource_monitoring_dashboard.go dashboard_json StringIsJSON", () => {
        table(GCP_RULES.cleanupAction, ["KEEP", "DELETE"], ["Keep", "EXPIRE"]);
        table(GCP_RULES.cleanupTagState, ["ANY", "TAGGED", "UNTAGGED"], ["any", "ALL"]);
        table(GCP_RULES.dashboardJson, ["{}", "{\"displayName\": \"x\"}"], ["{displayName: x}", "", "{\"a\": 1"]);
    });
});

const EXAMPLE: GcpConfig = (() => {
    const config = readConfig(exampleConfig("gcp-example"), "tf-serving", ROOT);
    assert.ok(config.cloud === "gcp");
    return config.gke;
})();

/** Every input refused by its rule: empty when the provider would take all of them. */
function refusals(gke: GcpConfig, managedPrometheus = true): string[] {
    return gcpProviderInputs(gke, [{ name: "half-plus-two" }], "tf-serving", managedPrometheus)
        .flatMap((i) => { const p = i.rule.check(i.value); return p === undefined ? [] : [`${i.input}: ${p}`]; });
}

function configIssues(edit: (gke: Record<string, unknown>) => void): ConfigIssue[] {
    try {
        readConfig(exampleConfig("gcp-example", edit), "tf-serving", ROOT);
        return [];
    } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.issues;
    }
}

describe("the GKE stack's values against terraform-provider-google's rules", () => {
    it("the example stack (Pulumi.gcp-example.yaml) and its variants send only values the provider accepts", () => {
        assert.deepStrictEqual(refusals(EXAMPLE), []);
        const gpuPool = { machineType: "g2-standard-4", minNodes: 0, maxNodes: 3, diskSizeGb: 100, spot: false, acceleratorType: "nvidia-l4", acceleratorCount: 1, driverVersion: "LATEST" as const };
        const adapter = "registry.example/custom-metrics-stackdriver-adapter:v0.16.1@sha256:" + "0".repeat(64);
        assert.deepStrictEqual(refusals({ ...EXAMPLE, privateNodes: true, apiAccessCidrs: ["203.0.113.0/24"], gpuPool, customMetricsAdapterImage: adapter }), []);
        assert.deepStrictEqual(refusals({ ...EXAMPLE, registry: { host: "gcr.io" } }, false), []);
        // What the walk covers: the values the issue found refused offline, each from the builders the components call.
        const inputs = gcpProviderInputs({ ...EXAMPLE, privateNodes: true, gpuPool, customMetricsAdapterImage: adapter }, [{ name: "m" }], "ns", true).map((i) => i.input);
        for (const input of ["gcp.container.Cluster name", "gcp.container.Cluster datapathProvider", "gcp.container.NodePool autoscaling.locationPolicy",
            "gcp.container.NodePool nodeConfig.workloadMetadataConfig.mode", "gcp.container.Cluster privateClusterConfig.masterIpv4CidrBlock",
            "gcp.compute.Subnetwork ipCidrRange", "gcp.serviceaccount.Account accountId", "gcp.artifactregistry.RepositoryIamMember member",
            "gcp.monitoring.Dashboard dashboardJson (m)", "gcp.artifactregistry.Repository cleanupPolicies[delete-older].action"]) {
            assert.ok(inputs.includes(input), `${input} is not walked: ${inputs.join(", ")}`);
        }
    });

    it("Pulumi's auto-names of the Compute Engine resources fit ValidateGCEName", () => {
        assert.strictEqual(autoName("gke-network"), "gke-network-0000000");
        assert.strictEqual(GCP_RULES.gceName.check(autoName("gke-control-plane-to-rest")), undefined);
    });

    it("a gke.apiAccessCidrs entry with a zero-padded octet passes the config's CIDR check but not the provider's: preview names the key", () => {
        const issue = issueFor(configIssues((gke) => { gke.apiAccessCidrs = ["203.0.113.0/24", "010.0.0.0/8"]; }), "gke.apiAccessCidrs[1]");
        assert.strictEqual(issue.value, "010.0.0.0/8");
        assert.match(issue.expected, /refused by the Google provider \(gcp\.container\.Cluster masterAuthorizedNetworksConfig\.cidrBlocks\.cidrBlock\): "010\.0\.0\.0\/8" is not a CIDR Go's net\.ParseCIDR accepts/);
        assert.ok(issue.expected.endsWith(`see ${PROVIDER_LIMITS_DOC}`));
    });

    it("gke.subnetCidr and gke.masterCidr: the same, through the subnetwork's and the private cluster's validators", () => {
        const issues = configIssues((gke) => { gke.subnetCidr = "010.0.0.0/20"; gke.privateNodes = true; gke.masterCidr = "172.016.0.0/28"; });
        assert.match(issueFor(issues, "gke.subnetCidr").expected, /gcp\.compute\.Subnetwork ipCidrRange/);
        assert.match(issueFor(issues, "gke.masterCidr").expected, /privateClusterConfig\.masterIpv4CidrBlock/);
    });

    it("a value the config layer already refused is reported once, by the config layer", () => {
        const issues = configIssues((gke) => { gke.clusterName = "a".repeat(41); });
        assert.deepStrictEqual(issues.filter((i) => i.key === "gke.clusterName").length, 1);
        assert.doesNotMatch(issueFor(issues, "gke.clusterName").expected, /Google provider/);
    });

    it("a derived value names the key it comes from and what to change", () => {
        // The config layer keeps gke.clusterName starting with a letter; a library caller might not: the account id follows it.
        const [issue, ...rest] = providerIssues(gcpProviderInputs({ ...EXAMPLE, clusterName: "9-lives" }, [], "ns", false));
        assert.strictEqual(issue.key, "gke.clusterName");
        assert.strictEqual(issue.value, "9-lives");
        assert.match(issue.expected, /^is refused by the Google provider \(gcp\.container\.Cluster name\): "9-lives" must start with a letter/);
        assert.deepStrictEqual(rest, [], "one issue per key");
        const account = gcpProviderInputs({ ...EXAMPLE, clusterName: "9-lives" }, [], "ns", false).find((i) => i.input === "gcp.serviceaccount.Account accountId");
        const [derived] = providerIssues(account ? [account] : []);
        assert.match(derived.expected, /^makes gcp\.serviceaccount\.Account accountId "9-lives-nodes", which the Google provider refuses: .*; the id is the cluster name's first 24 characters/);
    });
});
