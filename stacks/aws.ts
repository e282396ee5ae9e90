/**
 * cloud: aws. An EKS cluster with a CPU and an optional GPU node group (and NVIDIA's device plugin
 * with it; metrics-server when a model autoscales, prometheus-adapter when one scales on its request
 * rate, the Cluster Autoscaler with `eks.clusterAutoscaler`), one ECR repository per model, then the models
 * through the cloud-agnostic `deployModels`, exposed through a Network Load Balancer (EKS's built-in
 * controller), or with `endpoint: gateway` through an ALB of the AWS Load Balancer Controller the
 * stack installs. The AWS provider is explicit, built from
 * `eks.region` (and `eks.profile`), so the `eks` section is the only place these are set.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { EksCluster } from "../components/clouds/aws/cluster";
import { Ecr } from "../components/clouds/aws/ecr";
import { prometheusEndpoint } from "../components/clouds/aws/prometheusAdapter";
import { adminAccessIssues } from "../components/clouds/aws/config";
import { ConfigFor } from "../config/config";
import { ConfigError } from "../config/configReader";
import { DeployedSettings } from "../config/liveChanges";
import { eksSettingsOf } from "../components/clouds/aws/liveChanges";
import { subnetLayout } from "../components/clouds/aws/vpc";
import { deployToCluster } from "./cloudStack";
import { PreparedModel, StackOutputs } from "./deploy";
import { STATE_SCHEMA, checkLiveChanges, readDeployedState } from "./stateRecords";
import { PreviousOutputs } from "./previousOutputs";
import { AutoscaledGroup, eksDesiredSizeReader, liveDesiredSizes as readLiveDesiredSizes } from "./eksNodeGroupSizes";

/** The `EksCluster` component's name: its children's names (and the checkpoint's URNs) start with it. */
const EKS_RESOURCE_NAME = "eks";

/**
 * Service annotations for the load balancer EKS's built-in cloud controller creates: a Network Load
 * Balancer (TCP, so gRPC's HTTP/2 passes through untouched) rather than a Classic ELB.
 * `serviceAnnotations` in config override them (e.g. for the AWS Load Balancer Controller).
 */
export const AWS_LOAD_BALANCER_ANNOTATIONS: Record<string, string> = {
    "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
};

/** How the stack runs: `offline` for `tfs plan` under the mock runtime, where no AWS identity can be asked for and no deployed settings read. */
export interface AwsDeployOptions {
    offline?: boolean;
    /** The stack's last outputs; default read here (one reader per program run). */
    previous?: PreviousOutputs;
}

/**
 * The IAM principal behind the provider's credentials, as EKS access entries name it: an assumed
 * role's session (`arn:aws:sts::…:assumed-role/ROLE/SESSION`, new every session) resolves to the
 * role's ARN with its path (`getSessionContext` reads it with iam:GetRole); a user is its own ARN.
 */
export async function callerPrincipalArn(provider: aws.Provider): Promise<string> {
    const caller = await aws.getCallerIdentity({}, { provider });
    return (await aws.iam.getSessionContext({ arn: caller.arn }, { provider })).issuerArn;
}

/**
 * Refuses a change the running stack cannot take (`config/liveChanges.ts`), asks AWS who is running
 * (before any resource but the provider is registered), refuses an admin list that would lock that
 * identity out, then registers the stack.
 */
export async function deployAws(config: ConfigFor<"aws">, models: PreparedModel[], options: AwsDeployOptions = {}): Promise<StackOutputs> {
    const eks = config.eks;
    const { registry: registrySettings, adminPrincipalArns, network, prometheusUrl, ...clusterArgs } = eks;
    const previous = options.previous ?? new PreviousOutputs(options.offline ?? false);
    const deployed = await readDeployedState(previous);
    const recorded = eksSettingsOf(eks, models.map((m) => m.settings.name), deployed, config.service.endpoint);
    checkLiveChanges(deployed, { schema: STATE_SCHEMA, cloud: "aws", eks: recorded });
    const layoutProblem = recorded.network.kind === "create" ? subnetLayout(recorded.network.cidr, recorded.network.zones.length, recorded.network.subnetScheme) : undefined;
    if (typeof layoutProblem === "string") {
        throw new ConfigError([{ key: "eks.vpcCidr", value: eks.network.kind === "create" ? eks.network.cidr : undefined, expected: layoutProblem }], pulumi.getProject());
    }
    const provider = new aws.Provider("aws", {
        region: eks.region as aws.Region,
        profile: eks.profile,
        defaultTags: { tags: { "tf-serving:stack": `${pulumi.getProject()}/${pulumi.getStack()}` } },
    });

    const callerArn = options.offline ? undefined : await callerPrincipalArn(provider);
    const issues = adminAccessIssues(adminPrincipalArns, callerArn);
    if (issues.length > 0 || adminPrincipalArns === undefined) {
        throw new ConfigError(issues, pulumi.getProject());
    }

    // An HPA without metrics-server never scales, and EKS does not install it.
    const metricsServer = models.some((m) => m.settings.autoscaling !== undefined);
    // A request-rate HPA reads prometheus-adapter, over the cluster's Prometheus (config requires the URL with the target).
    const endpoint = prometheusUrl !== undefined && models.some((m) => m.settings.autoscaling?.targetRequestsPerSecond !== undefined)
        ? prometheusEndpoint(prometheusUrl) : undefined;
    const prometheusAdapter = endpoint !== undefined && typeof endpoint !== "string" ? { prometheus: endpoint } : undefined;
    const clusterNetwork = network.kind === "create" && recorded.network.kind === "create"
        ? { ...network, subnetScheme: recorded.network.subnetScheme, clusterZones: recorded.network.clusterZones }
        : network;
    // The Gateway on EKS is the AWS Load Balancer Controller's; the stack's own GatewayClass unless one is named.
    const gateway = config.service.endpoint === "gateway" ? config.service.gateway : undefined;
    const loadBalancerController = gateway && { gatewayClassName: gateway.createClass ? gateway.className : undefined };
    // With the autoscaler, a group whose bounds change keeps its live size (moved into the new bounds), read before the cluster is registered.
    const groups: AutoscaledGroup[] = [{ kind: "cpu", key: "eks.cpuNodeGroup", settings: eks.cpuNodeGroup },
        ...(eks.gpuNodeGroup ? [{ kind: "gpu" as const, key: "eks.gpuNodeGroup", settings: eks.gpuNodeGroup }] : [])];
    const liveDesiredSizes = eks.clusterAutoscaler && !options.offline
        ? await readLiveDesiredSizes(EKS_RESOURCE_NAME, groups, (await previous.read()).resources, eksDesiredSizeReader(provider))
        : undefined;
    const cluster = new EksCluster(EKS_RESOURCE_NAME, {
        ...clusterArgs, network: clusterNetwork, adminPrincipalArns, callerArn, metricsServer, loadBalancerController, prometheusAdapter, liveDesiredSizes,
    }, { providers: [provider] });
    const registry = new Ecr("images", { settings: registrySettings, models: models.map((m) => m.settings.name) }, { providers: [provider] });

    // The version EKS runs, not the config key (which may be unset): the next bump is checked against it.
    const deployedSettings = cluster.kubernetesVersion.apply((kubernetesVersion): DeployedSettings =>
        ({ schema: STATE_SCHEMA, cloud: "aws", eks: { ...recorded, kubernetesVersion } }));
    // Behind the Gateway the Service is ClusterIP: no load balancer to annotate.
    return { ...deployToCluster(config, models, cluster, registry, previous, gateway ? undefined : AWS_LOAD_BALANCER_ANNOTATIONS), deployedSettings };
}
