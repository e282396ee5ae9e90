/**
 * cloud: aws, through the `CloudRules` interface: the `eks` section, its checks across the whole
 * configuration, its GPU node group for the capacity plan, its provider's rules and its
 * credentials. The stack it composes is `stacks/aws.ts`.
 */
import * as fs from "fs";
import * as path from "path";
import { EKS_GATEWAY_SECTION } from "./gatewayConfig";
import { ACM_CERTIFICATE_ARN } from "./gatewayChecks";
import type { ModelSettings } from "../../../config/settings";
import type { ConfigIssue } from "../../../config/configReader";
import { INFERENCE_REQUEST_RATE_METRIC } from "../../../serving/autoscaling";
import type { CloudRules, Env } from "../cloud";
import { readAwsConfig } from "./config";
import type { AwsConfig } from "./config";
import { nvidiaGpusPerInstance } from "./instanceTypes";
import { eksChanges } from "./liveChanges";
import type { EksDeployed } from "./liveChanges";
import { eksKubernetesVersionWarning, utcDay } from "./kubernetesVersions";
import { eksCpuPoolSize, eksPoolNode, eksUnsizedPools } from "./nodes";
import { awsPartition } from "./partition";
import { awsProviderIssues } from "./providerRules";
import { eksImageVolumeProblem } from "./imageVolumes";
import { imageVolumeIssues } from "../../../config/imageVolumeIssues";

/** aws's rules: its section `eks`, its record `eks` (the registry's `CloudSections` and `CloudRecords` members). */
type AwsRules = CloudRules<"aws", { eks: AwsConfig }, { eks: EksDeployed }>;

export const awsCloud: AwsRules = {
    readSection: (r) => ({ cloud: "aws", eks: readAwsConfig(r) }),
    gateway: EKS_GATEWAY_SECTION,
    // Nothing is assumed installed: a Prometheus that reads the pods' annotations.
    defaultCollector: "annotations",
    collectorProblem: (collector) => (collector === "gke"
        ? "is Google Cloud Managed Service for Prometheus, which runs on GKE only: on cloud aws choose \"prometheus-operator\" (a Prometheus Operator in the cluster), \"annotations\" or \"none\""
        : undefined),
    configIssues(config, models) {
        const gpuModels = models.filter((m) => m.gpu);
        const certificate = certificateRegionIssue(config.service.gateway?.platform === "eks" ? config.service.gateway.certificateArn : undefined, config.eks.region);
        const group: ConfigIssue[] = gpuModels.length > 0 && !config.eks.gpuNodeGroup
            ? [{ key: "eks.gpuNodeGroup", value: undefined, expected: `model "${gpuModels[0].name}" sets gpu: true, so the cluster needs a GPU node group (see docs/getting-started/eks.md#gpus)` }]
            : [];
        return [
            ...(certificate ? [certificate] : []), ...group, ...requestRateIssues(config, models),
            ...imageVolumeIssues(models, (m) => eksImageVolumeProblem(config.eks.kubernetesVersion, m.gpu)),
        ];
    },
    gpuPool(config) {
        const eks = config.eks.gpuNodeGroup;
        const gpusPerNode = eks && nvidiaGpusPerInstance(eks.instanceType);
        if (eks !== undefined && gpusPerNode !== undefined) {
            const gpu = { gpusPerNode, gpusPerNodeKey: "eks.gpuNodeGroup.instanceType", nodeName: eks.instanceType };
            // With the Cluster Autoscaler the group grows to maxNodes when GPU pods are pending, as GKE's pool does; without it desiredNodes is what runs.
            return config.eks.clusterAutoscaler
                ? { nodes: eks.maxNodes, nodesKey: "eks.gpuNodeGroup.maxNodes", ...gpu }
                : { nodes: eks.desiredNodes, nodesKey: "eks.gpuNodeGroup.desiredNodes", alsoRaise: "eks.gpuNodeGroup.maxNodes", ...gpu };
        }
        return undefined;
    },
    poolNode: eksPoolNode,
    unsizedPools: eksUnsizedPools,
    cpuPoolSize: eksCpuPoolSize,
    liveChanges: (deployed, next, out) => eksChanges(deployed.eks, next.eks, out),
    providerIssues: awsProviderIssues,
    warnings(config, project, today = utcDay()) {
        const warning = config.eks.kubernetesVersion !== undefined ? eksKubernetesVersionWarning(config.eks.kubernetesVersion, today) : undefined;
        return warning === undefined ? [] : [`${project}:eks.kubernetesVersion = ${warning}`];
    },
    credentialProblems: (config, env, home) => (env.TFS_INSTANCE_CREDENTIALS === "1" || hasAwsCredentials(env, home, config.eks.profile) ? [] : [
        `no AWS credentials${config.eks.profile ? ` for profile "${config.eks.profile}" (tf-serving:eks.profile)` : ""}: run ` +
        "`aws configure` or `aws sso login`, or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (CI: aws-actions/configure-aws-credentials " +
        "does); on an instance with a role, set TFS_INSTANCE_CREDENTIALS=1",
    ]),
};

/**
 * What a request-rate target needs on EKS: a Prometheus the cluster runs (`eks.prometheusUrl`) for
 * the prometheus-adapter the stack installs, and a collector that has it scrape the pods.
 */
function requestRateIssues(config: Parameters<AwsRules["configIssues"]>[0], models: ModelSettings[]): ConfigIssue[] {
    const users = models.filter((m) => m.autoscaling?.targetRequestsPerSecond !== undefined);
    const key = (m: ModelSettings) => `${m.configKey("autoscaling")}.targetRequestsPerSecond`;
    if (users.length > 0 && config.eks.prometheusUrl === undefined) {
        return users.map((m) => ({
            key: key(m), value: m.autoscaling?.targetRequestsPerSecond,
            expected: `needs a custom metrics API serving ${INFERENCE_REQUEST_RATE_METRIC}: on EKS the stack installs prometheus-adapter over the Prometheus that scrapes the model pods, ` +
                "which EKS does not run; set eks.prometheusUrl to its in-cluster URL (e.g. `pulumi config set --path eks.prometheusUrl http://prometheus-server.monitoring.svc:80`), " +
                "or scale on targetCpuUtilization (docs/guides/autoscaling.md#what-each-cloud-needs)",
        }));
    }
    if (users.length > 0 && config.monitoring.collector === "none") {
        return [{
            key: "monitoring.collector", value: "none",
            expected: `must be "annotations" or "prometheus-operator" while ${key(users[0])} is set: prometheus-adapter reads the request rate from the Prometheus that scrapes the model pods`,
        }];
    }
    if (users.length === 0 && config.eks.prometheusUrl !== undefined) {
        return [{
            key: "eks.prometheusUrl", value: config.eks.prometheusUrl,
            expected: "does nothing without a model's autoscaling.targetRequestsPerSecond (prometheus-adapter is installed only for a request-rate HPA): remove it, or set the target",
        }];
    }
    return [];
}

/** The certificate's region: an ALB takes ACM certificates from its own region only. */
function certificateRegionIssue(certificateArn: string | undefined, region: string): ConfigIssue | undefined {
    const match = certificateArn === undefined ? null : ACM_CERTIFICATE_ARN.exec(certificateArn);
    const [partition, certificateRegion] = match === null ? [undefined, undefined] : [match[1], match[2]];
    if (partition !== undefined && certificateRegion !== undefined && awsPartition(certificateRegion) !== partition) {
        return {
            key: "gateway.certificateArn", value: certificateArn,
            expected: `names region ${certificateRegion}, which is in partition ${awsPartition(certificateRegion)}, not ${partition}, so no such certificate exists: ` +
                `copy the ARN as \`aws acm list-certificates --region ${region || certificateRegion}\` prints it (arn:${awsPartition(region || certificateRegion)}:acm:...)`,
        };
    }
    if (certificateRegion === undefined || region === "" || certificateRegion === region) {
        return undefined;
    }
    return {
        key: "gateway.certificateArn", value: certificateArn,
        expected: `is in ${certificateRegion}, but the ALB is in eks.region (${region}) and takes certificates from its own region only: request or import the certificate in ${region}`,
    };
}

function hasAwsCredentials(env: Env, home: string, profile: string | undefined): boolean {
    if (!profile && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
        return true;
    }
    if (env.AWS_WEB_IDENTITY_TOKEN_FILE || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI) {
        return true;
    }
    const wanted = profile ?? env.AWS_PROFILE ?? "default";
    const files = [env.AWS_SHARED_CREDENTIALS_FILE ?? path.join(home, ".aws", "credentials"), env.AWS_CONFIG_FILE ?? path.join(home, ".aws", "config")];
    return files.some((file) => {
        try {
            const text = fs.readFileSync(file, "utf8");
            return new RegExp(`^\\[(profile )?${wanted.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\]`, "m").test(text);
        } catch {
            return false;
        }
    });
}
