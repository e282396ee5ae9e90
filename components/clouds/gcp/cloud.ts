/**
 * cloud: gcp, through the `CloudRules` interface: the `gke` section, its checks across the whole
 * configuration, its GPU pool for the capacity plan, its provider's rules and its credentials. The
 * stack it composes is `stacks/gcp.ts`.
 */
import * as fs from "fs";
import * as path from "path";
import type { ModelSettings } from "../../../config/settings";
import type { ConfigIssue } from "../../../config/configReader";
import type { CloudRules, Env } from "../cloud";
import { CUSTOM_METRICS_ADAPTER_RELEASE, readGcpConfig } from "./config";
import type { GcpConfig } from "./config";
import { GKE_GATEWAY_SECTION } from "./gatewayConfig";
import { gkeChanges } from "./liveChanges";
import type { GkeDeployed } from "./liveChanges";
import { gkePoolNode, gkeUnsizedPools } from "./nodes";
import { gcpProviderIssues } from "./providerRules";
import { GKE_IMAGE_VOLUME_PROBLEM } from "./imageVolumes";
import { imageVolumeIssues } from "../../../config/imageVolumeIssues";

/** gcp's rules: its section `gke`, its record `gke` (the registry's `CloudSections` and `CloudRecords` members). */
type GcpRules = CloudRules<"gcp", { gke: GcpConfig }, { gke: GkeDeployed }>;

export const gcpCloud: GcpRules = {
    readSection: (r) => ({ cloud: "gcp", gke: readGcpConfig(r) }),
    gateway: GKE_GATEWAY_SECTION,
    // The clusters this stack creates get managed collection (`stacks/gcp.ts`).
    defaultCollector: "gke",
    collectorProblem: () => undefined,
    configIssues(config, models) {
        const gpuModels = models.filter((m) => m.gpu);
        const pool: ConfigIssue[] = gpuModels.length > 0 && !config.gke.gpuPool
            ? [{ key: "gke.gpuPool", value: undefined, expected: `model "${gpuModels[0].name}" sets gpu: true, so the cluster needs a GPU node pool (see docs/getting-started/gke.md#gpus)` }]
            : [];
        return [...pool, ...requestRateIssues(config, models), ...imageVolumeIssues(models, () => GKE_IMAGE_VOLUME_PROBLEM)];
    },
    gpuPool(config) {
        const gke = config.gke.gpuPool;
        if (gke !== undefined) {
            return {
                nodes: gke.maxNodes, nodesKey: "gke.gpuPool.maxNodes",
                gpusPerNode: gke.acceleratorCount, gpusPerNodeKey: "gke.gpuPool.acceleratorCount", nodeName: gke.acceleratorType,
            };
        }
        return undefined;
    },
    poolNode: gkePoolNode,
    unsizedPools: gkeUnsizedPools,
    // GKE's pools autoscale: the node fit is checked per node only.
    cpuPoolSize: () => undefined,
    liveChanges: (deployed, next, out) => gkeChanges(deployed.gke, next.gke, out),
    providerIssues: gcpProviderIssues,
    warnings: () => [],
    credentialProblems: (_config, env, home) => (env.TFS_INSTANCE_CREDENTIALS === "1" || hasGoogleCredentials(env, home) ? [] : [
        "no Google Cloud credentials: run `gcloud auth application-default login` (a workstation), or set " +
        "GOOGLE_APPLICATION_CREDENTIALS to a credentials file (CI: google-github-actions/auth does); on a VM using its " +
        "service account, set TFS_INSTANCE_CREDENTIALS=1",
    ]),
};

/**
 * What a request-rate target needs on GKE: Managed Prometheus (`monitoring.collector: gke`), whose
 * rule evaluator records the rate the Custom Metrics Stackdriver Adapter serves.
 */
function requestRateIssues(config: Parameters<GcpRules["configIssues"]>[0], models: ModelSettings[]): ConfigIssue[] {
    const users = models.filter((m) => m.autoscaling?.targetRequestsPerSecond !== undefined);
    const key = (m: ModelSettings) => `${m.configKey("autoscaling")}.targetRequestsPerSecond`;
    if (users.length > 0 && config.gke.customMetricsAdapterImage === undefined) {
        const release = CUSTOM_METRICS_ADAPTER_RELEASE;
        return [{
            key: "gke.customMetricsAdapterImage", value: undefined,
            expected: `required while ${key(users[0])} is set: the Custom Metrics Stackdriver Adapter the stack installs, pinned by digest (the policy pack refuses tags), ` +
                `e.g. \`pulumi config set --path gke.customMetricsAdapterImage ${release}@sha256:...\` with the digest ` +
                `\`docker buildx imagetools inspect ${release}\` prints; or scale on targetCpuUtilization (docs/guides/autoscaling.md#what-each-cloud-needs)`,
        }];
    }
    if (users.length === 0 && config.gke.customMetricsAdapterImage !== undefined) {
        return [{
            key: "gke.customMetricsAdapterImage", value: config.gke.customMetricsAdapterImage,
            expected: "does nothing without a model's autoscaling.targetRequestsPerSecond (the adapter is installed only for a request-rate HPA): remove it, or set the target",
        }];
    }
    if (config.monitoring.collector !== "gke" && users.length > 0) {
        return [{
            key: "monitoring.collector", value: config.monitoring.collector,
            expected: `must be "gke" (the default on cloud gcp) while ${key(users[0])} is set: on GKE the request rate is recorded by Managed Service for Prometheus ` +
                "and read by the Custom Metrics Stackdriver Adapter the stack installs; remove monitoring.collector, or scale on targetCpuUtilization instead (docs/guides/autoscaling.md#what-each-cloud-needs)",
        }];
    }
    return [];
}

function hasGoogleCredentials(env: Env, home: string): boolean {
    if (env.GOOGLE_CREDENTIALS || env.GOOGLE_OAUTH_ACCESS_TOKEN || env.CLOUDSDK_AUTH_ACCESS_TOKEN) {
        return true;
    }
    if (env.GOOGLE_APPLICATION_CREDENTIALS) {
        return fs.existsSync(env.GOOGLE_APPLICATION_CREDENTIALS);
    }
    const gcloudDir = env.CLOUDSDK_CONFIG ?? path.join(home, ".config", "gcloud");
    return fs.existsSync(path.join(gcloudDir, "application_default_credentials.json"));
}
