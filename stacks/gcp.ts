/**
 * cloud: gcp. A GKE cluster with a CPU and an optional GPU node pool, an Artifact Registry
 * repository its nodes can pull from, then the models through the cloud-agnostic `deployModels`.
 * The Google provider is explicit, built from `gke.project` and `gke.region`, so the `gke` section is
 * the only place these are set (credentials stay ambient: `gcloud auth application-default login`).
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { GkeCluster } from "../components/gke/cluster";
import { ArtifactRegistry } from "../components/registry/artifactRegistry";
import { ConfigFor } from "../config/config";
import { cloudMonitoringDashboard } from "../observability/dashboard";
import { deployToCluster } from "./cloudStack";
import { PreparedModel, StackOutputs } from "./deploy";

export function deployGcp(config: ConfigFor<"gcp">, models: PreparedModel[]): StackOutputs {
    const gke = config.gke;
    const { registry: registrySettings, ...clusterArgs } = gke;
    const provider = new gcp.Provider("gcp", { project: gke.project, region: gke.region });

    const managedPrometheus = config.monitoring.collector === "gke";
    const cluster = new GkeCluster("gke", { ...clusterArgs, managedPrometheus }, { providers: [provider] });
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
    return deployToCluster(config, models, cluster, registry);
}
