/**
 * cloud: gcp. A GKE cluster with a CPU and an optional GPU node pool (and the Custom Metrics
 * Stackdriver Adapter when a model scales on its request rate), an Artifact Registry repository its
 * nodes can pull from, then the models through the cloud-agnostic `deployModels`.
 * The Google provider is explicit, built from `gke.project` and `gke.region`, so the `gke` section is
 * the only place these are set (credentials stay ambient: `gcloud auth application-default login`).
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { GkeCluster } from "../components/clouds/gcp/cluster";
import { ArtifactRegistry } from "../components/clouds/gcp/artifactRegistry";
import { securityPolicyName, sourceRangeRules } from "../components/clouds/gcp/cloudArmor";
import { ConfigFor } from "../config/config";
import { DeployedSettings } from "../config/liveChanges";
import { gkeSettingsOf } from "../components/clouds/gcp/liveChanges";
import { cloudMonitoringDashboard } from "../observability/dashboard";
import { deployToCluster } from "./cloudStack";
import { PreparedModel, StackOutputs } from "./deploy";
import { STATE_SCHEMA, checkLiveChanges, readDeployedState } from "./stateRecords";
import { PreviousOutputs } from "./previousOutputs";

/** How the stack runs: `offline` for `tfs plan`, where the deployed settings cannot be read. */
export interface GcpDeployOptions {
    offline?: boolean;
    /** The stack's last outputs; default read here (one reader per program run). */
    previous?: PreviousOutputs;
}

/** Refuses a change the running stack cannot take (`config/liveChanges.ts`), then registers the stack. */
export async function deployGcp(config: ConfigFor<"gcp">, models: PreparedModel[], options: GcpDeployOptions = {}): Promise<StackOutputs> {
    const gke = config.gke;
    const { registry: registrySettings, customMetricsAdapterImage, ...clusterArgs } = gke;
    const settings: DeployedSettings = { schema: STATE_SCHEMA, cloud: "gcp", gke: gkeSettingsOf(gke) };
    const previous = options.previous ?? new PreviousOutputs(options.offline ?? false);
    checkLiveChanges(await readDeployedState(previous), settings);
    const provider = new gcp.Provider("gcp", { project: gke.project, region: gke.region });

    const managedPrometheus = config.monitoring.collector === "gke";
    // A request-rate HPA reads GMP's recorded rate through the Custom Metrics Stackdriver Adapter (config checks it has GMP).
    const customMetricsAdapter = customMetricsAdapterImage !== undefined && models.some((m) => m.settings.autoscaling?.targetRequestsPerSecond !== undefined)
        ? { image: customMetricsAdapterImage } : undefined;
    const cluster = new GkeCluster("gke", { ...clusterArgs, managedPrometheus, customMetricsAdapter }, { providers: [provider] });
    const registry = new ArtifactRegistry("images", {
        project: gke.project,
        settings: registrySettings,
        readers: [pulumi.interpolate`serviceAccount:${cluster.nodeServiceAccountEmail}`],
    }, { providers: [provider] });

    if (managedPrometheus) {
        // The models' dashboards in Cloud Monitoring, over what managed collection stores (PromQL).
        for (const { settings } of models) {
            const target = { name: settings.name, namespace: config.namespace };
            new gcp.monitoring.Dashboard(`${settings.name}-dashboard`, {
                project: gke.project,
                dashboardJson: JSON.stringify(cloudMonitoringDashboard(target, gke.clusterName)),
            }, { provider });
        }
    }
    const ranges = sourceRangesPolicy(config, provider);
    return {
        ...deployToCluster(ranges.config, models, cluster, registry, previous, undefined, ranges.policy ? [ranges.policy] : []),
        deployedSettings: pulumi.output(settings),
    };
}

/**
 * `loadBalancerSourceRanges` with the GKE Gateway: the Cloud Armor policy that allows them (and refuses
 * every other address with 403), and the config the models get, its name in the Gateway's settings so
 * that the model's and the canary's backend policies attach it (docs/guides/endpoint-security.md#gke).
 * Without ranges, or with a LoadBalancer Service (which takes them itself), nothing.
 */
function sourceRangesPolicy(config: ConfigFor<"gcp">, provider: gcp.Provider): { config: ConfigFor<"gcp">; policy?: gcp.compute.SecurityPolicy } {
    const gateway = config.service.endpoint === "gateway" ? config.service.gateway : undefined;
    if (gateway?.platform !== "gke" || config.service.sourceRanges.length === 0) {
        return { config };
    }
    const name = securityPolicyName(pulumi.getProject(), pulumi.getStack(), config.namespace);
    const policy = new gcp.compute.SecurityPolicy("source-ranges", {
        project: config.gke.project,
        name,
        type: "CLOUD_ARMOR",
        description: `loadBalancerSourceRanges of the models in namespace ${config.namespace} (tf-serving stack ${pulumi.getStack()})`,
        rules: sourceRangeRules(config.service.sourceRanges),
    }, { provider });
    return { config: { ...config, service: { ...config.service, gateway: { ...gateway, securityPolicy: name } } }, policy };
}
