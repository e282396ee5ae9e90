/**
 * ModelServer: TensorFlow Serving for one model on any Kubernetes cluster.
 *
 * Cloud-agnostic: it takes a `k8s.Provider` and a node placement, and knows nothing of GKE or EKS.
 * It registers the ServiceAccount, the server configuration ConfigMap, the Deployment, the Service,
 * a PodDisruptionBudget and, when asked, a HorizontalPodAutoscaler.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { Sizing } from "../model/sizing";
import {
    BATCHING_CONFIG_FILE, METRICS_PATH, MONITORING_CONFIG_FILE, SERVER_CONFIG_DIR,
    defaultBatchingConfig, monitoringConfig, serverArgs,
} from "../serving/flags";
import { GRPC_PORT, REST_PORT, SERVING_GID, SERVING_UID } from "../serving/images";
import { modelStatusPath, serverProbes } from "../serving/probes";

/** Seconds the pod keeps serving after it is marked terminating, so endpoints and load balancers drain first. */
export const PRESTOP_SLEEP_SECONDS = 10;
/** Seconds TF Serving gets after SIGTERM to finish in-flight requests. */
export const SHUTDOWN_SECONDS = 20;

export interface NodePlacement {
    /** Labels the pod's node must have (e.g. the CPU pool, or `cloud.google.com/gke-accelerator`). */
    nodeSelector?: Record<string, string>;
    /** Taints the pod tolerates (GPU nodes are tainted `nvidia.com/gpu`). */
    tolerations?: k8s.types.input.core.v1.Toleration[];
}

export interface ModelServerArgs {
    /** Kubernetes provider for the target cluster. */
    provider: k8s.Provider;
    /** TF Serving model name (a DNS label); also names the Deployment, Service and labels. */
    modelName: string;
    /** Existing namespace to deploy into (the caller creates it when it should exist). */
    namespace: pulumi.Input<string>;
    /** Image pinned by digest (`repo@sha256:...`), so a new model rolls the pods and an unchanged one rolls nothing. */
    image: pulumi.Input<string>;
    /** Sizing derived from the model (`model/sizing.ts`): resources, thread flags and probe timing. */
    sizing: Sizing;
    /** Desired pods; ignored when `autoscaling` is set (the HPA owns the replica count). Default 2. */
    replicas?: number;
    /** Horizontal autoscaling on CPU utilization. */
    autoscaling?: { minReplicas: number; maxReplicas: number; targetCpuUtilization: number };
    /** `nvidia.com/gpu` per pod; 0 or unset for CPU serving. Requires `placement` to reach GPU nodes. */
    gpuCount?: number;
    /** Where pods may run. GPU models need the GPU toleration; CPU models should select CPU nodes. */
    placement?: NodePlacement;
    /** Server-side batching; `parametersText` overrides the default batching parameters (text proto). */
    batching?: { enabled: boolean; parametersText?: string };
    /** Bytes on disk of the served versions; recorded on the pods so `tfs doctor` can set an OOM beside the model's size. */
    modelBytes?: number;
    /** Replay the model's warmup requests before reporting ready. Default false. */
    enableWarmup?: boolean;
    /** Extra `tensorflow_model_server` flags, appended after the managed ones. */
    extraServerArgs?: string[];
    /** Service type. Default `LoadBalancer`. */
    serviceType?: "LoadBalancer" | "NodePort" | "ClusterIP";
    /** CIDRs allowed through the load balancer; empty means open (only with `publicEndpoint`). */
    loadBalancerSourceRanges?: string[];
    /** Marks an open load balancer as deliberate (the policy pack checks this annotation). */
    publicEndpoint?: boolean;
    /** Extra Service annotations (cloud load balancer settings). */
    serviceAnnotations?: Record<string, string>;
}

export class ModelServer extends pulumi.ComponentResource {
    /** The load balancer's IP; empty where the cloud gives only a hostname (AWS). */
    readonly externalIp: pulumi.Output<string>;
    /** The load balancer's IP or hostname, whichever the cloud sets. */
    readonly externalAddress: pulumi.Output<string>;
    readonly restUrl: pulumi.Output<string>;
    readonly grpcEndpoint: pulumi.Output<string>;
    readonly modelStatusUrl: pulumi.Output<string>;
    readonly imageRef: pulumi.Output<string>;
    readonly deployment: k8s.apps.v1.Deployment;
    readonly service: k8s.core.v1.Service;

    constructor(name: string, args: ModelServerArgs, opts?: pulumi.ComponentResourceOptions) {
        super("tf-serving:index:ModelServer", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const labels = modelServerLabels(args.modelName);
        const meta = { namespace: args.namespace, labels };

        const serviceAccount = new k8s.core.v1.ServiceAccount(name, {
            metadata: { ...meta, name: args.modelName },
            automountServiceAccountToken: false,
        }, childOpts);

        const configData: Record<string, string> = { [MONITORING_CONFIG_FILE]: monitoringConfig() };
        if (args.batching?.enabled) {
            configData[BATCHING_CONFIG_FILE] = args.batching.parametersText ?? defaultBatchingConfig(args.sizing.cpuCount);
        }
        // Auto-named, so a config change creates a new ConfigMap and rolls the pods onto it.
        const serverConfig = new k8s.core.v1.ConfigMap(`${name}-server-config`, {
            metadata: meta,
            data: configData,
        }, childOpts);

        this.deployment = new k8s.apps.v1.Deployment(name, {
            metadata: { ...meta, name: args.modelName, annotations: { [ROLLOUT_TIMEOUT_ANNOTATION]: String(rolloutTimeoutSeconds(args)) } },
            spec: deploymentSpec(args, labels, serviceAccount.metadata.name, serverConfig.metadata.name),
        }, childOpts);

        this.service = new k8s.core.v1.Service(name, {
            metadata: {
                ...meta,
                name: args.modelName,
                annotations: {
                    ...(args.publicEndpoint ? { [PUBLIC_ANNOTATION]: "true" } : {}),
                    ...args.serviceAnnotations,
                },
            },
            spec: {
                type: args.serviceType ?? "LoadBalancer",
                selector: labels,
                ports: [
                    { name: "grpc", port: GRPC_PORT, targetPort: "grpc", protocol: "TCP", appProtocol: "kubernetes.io/h2c" },
                    { name: "http", port: REST_PORT, targetPort: "http", protocol: "TCP", appProtocol: "http" },
                ],
                loadBalancerSourceRanges: (args.serviceType ?? "LoadBalancer") === "LoadBalancer" && args.loadBalancerSourceRanges?.length
                    ? args.loadBalancerSourceRanges : undefined,
            },
        }, { ...childOpts, dependsOn: [this.deployment] });

        // maxUnavailable 1 lets a node drain evict pods one at a time; with one replica a drain is a brief outage.
        new k8s.policy.v1.PodDisruptionBudget(name, {
            metadata: { ...meta, name: args.modelName },
            spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
        }, childOpts);

        if (args.autoscaling) {
            new k8s.autoscaling.v2.HorizontalPodAutoscaler(name, {
                metadata: { ...meta, name: args.modelName },
                spec: {
                    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: this.deployment.metadata.name },
                    minReplicas: args.autoscaling.minReplicas,
                    maxReplicas: args.autoscaling.maxReplicas,
                    metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: args.autoscaling.targetCpuUtilization } } }],
                    // Loading a model takes a while: scale down slowly so a brief dip does not cost a reload.
                    behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
                },
            }, childOpts);
        }

        const ingress = this.service.status.loadBalancer.ingress;
        this.externalIp = ingress.apply((i) => i?.[0]?.ip ?? "");
        this.externalAddress = pulumi.all([ingress, this.service.spec.clusterIP]).apply(([i, clusterIp]) =>
            i?.[0]?.ip || i?.[0]?.hostname || clusterIp || "");
        this.restUrl = pulumi.interpolate`http://${formatHost(this.externalAddress)}:${REST_PORT}`;
        this.grpcEndpoint = pulumi.interpolate`${formatHost(this.externalAddress)}:${GRPC_PORT}`;
        this.modelStatusUrl = pulumi.interpolate`${this.restUrl}${modelStatusPath(args.modelName)}`;
        this.imageRef = pulumi.output(args.image);

        this.registerOutputs({
            externalIp: this.externalIp,
            externalAddress: this.externalAddress,
            restUrl: this.restUrl,
            grpcEndpoint: this.grpcEndpoint,
            modelStatusUrl: this.modelStatusUrl,
            imageRef: this.imageRef,
        });
    }
}

/** Pod annotations recording the model's size and the memory it peaks at during a reload (bytes). */
export const MODEL_BYTES_ANNOTATION = "tf-serving.dev/model-bytes";
export const MEMORY_PEAK_ANNOTATION = "tf-serving.dev/memory-peak-bytes";

/** How long `@pulumi/kubernetes` waits for the rollout before it fails the update (its default is 10 minutes). */
export const ROLLOUT_TIMEOUT_ANNOTATION = "pulumi.com/timeoutSeconds";
/** Seconds a new pod gets beyond its startup budget and minReadySeconds: scheduling, image pull, container start. */
const POD_START_SLACK_SECONDS = 60;
const MIN_READY_SECONDS = 10;

/** The Deployment's progress deadline: a new pod that is not available this long after the last progress stops the rollout. */
export function progressDeadlineSeconds(sizing: Sizing): number {
    return sizing.startupBudgetSeconds + 120;
}

/**
 * The provider's wait on the rollout. It reports the Deployment's ProgressDeadlineExceeded only
 * when this wait ends, so a stuck rollout should end it soon after the deadline, while a healthy
 * one, which brings up one surge pod at a time, must never hit it: the larger of the deadline and
 * every pod's start in turn, plus half a minute.
 */
export function rolloutTimeoutSeconds(args: Pick<ModelServerArgs, "sizing" | "replicas" | "autoscaling">): number {
    const pods = args.autoscaling ? args.autoscaling.maxReplicas : args.replicas ?? 2;
    const perPod = args.sizing.startupBudgetSeconds + MIN_READY_SECONDS + POD_START_SLACK_SECONDS;
    return Math.max(progressDeadlineSeconds(args.sizing), pods * perPod) + 30;
}

/** Annotation that marks a deliberately open load balancer; the policy pack reads it. */
export const PUBLIC_ANNOTATION = "tf-serving.dev/public";

/** The labels every model-server object carries; the policy pack and `tfs doctor` select on them. */
export function modelServerLabels(modelName: string): Record<string, string> {
    return {
        "app.kubernetes.io/name": "tf-serving",
        "app.kubernetes.io/component": "model-server",
        "app.kubernetes.io/instance": modelName,
        "app.kubernetes.io/managed-by": "pulumi",
    };
}

function formatHost(address: pulumi.Output<string>): pulumi.Output<string> {
    return address.apply((a) => (a.includes(":") ? `[${a}]` : a));
}

type DeploymentSpec = k8s.types.input.apps.v1.DeploymentSpec;

/** The Deployment spec, kept apart from resource wiring so its shape reads top to bottom. */
export function deploymentSpec(
    args: ModelServerArgs,
    labels: Record<string, string>,
    serviceAccountName: pulumi.Input<string>,
    serverConfigName: pulumi.Input<string>,
): DeploymentSpec {
    const { sizing } = args;
    const gpuCount = args.gpuCount ?? 0;
    const gpu: Record<string, string> = gpuCount > 0 ? { "nvidia.com/gpu": String(gpuCount) } : {};
    return {
        replicas: args.autoscaling ? undefined : args.replicas ?? 2,
        selector: { matchLabels: labels },
        // Surge one pod at a time and never go below the desired count: a new pod must be ready (model loaded) first.
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        minReadySeconds: MIN_READY_SECONDS,
        progressDeadlineSeconds: progressDeadlineSeconds(sizing),
        revisionHistoryLimit: 5,
        template: {
            metadata: {
                labels,
                annotations: {
                    ...(args.modelBytes !== undefined ? { [MODEL_BYTES_ANNOTATION]: String(args.modelBytes) } : {}),
                    [MEMORY_PEAK_ANNOTATION]: String(Math.round(sizing.peakBytes)),
                    "prometheus.io/scrape": "true",
                    "prometheus.io/port": String(REST_PORT),
                    "prometheus.io/path": METRICS_PATH,
                },
            },
            spec: {
                serviceAccountName,
                automountServiceAccountToken: false,
                terminationGracePeriodSeconds: PRESTOP_SLEEP_SECONDS + SHUTDOWN_SECONDS,
                // TF Serving installs no SIGTERM handler, and a PID 1 without one never receives SIGTERM:
                // run as PID 1 it would sit out the whole grace period and be SIGKILLed. With a shared
                // process namespace the pod's pause process is PID 1, so the server gets SIGTERM's default
                // action and exits as soon as the preStop pause ends. (Allowed by the restricted standard.)
                shareProcessNamespace: true,
                securityContext: {
                    runAsNonRoot: true,
                    runAsUser: SERVING_UID,
                    runAsGroup: SERVING_GID,
                    fsGroup: SERVING_GID,
                    seccompProfile: { type: "RuntimeDefault" },
                },
                nodeSelector: { "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", ...args.placement?.nodeSelector },
                tolerations: args.placement?.tolerations,
                topologySpreadConstraints: [
                    { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: labels } },
                    { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: labels } },
                ],
                containers: [{
                    name: "tf-serving",
                    image: args.image,
                    // The image's ENTRYPOINT runs tensorflow_model_server itself (no bash wrapper); these flags follow it.
                    args: serverArgs({
                        sizing,
                        batching: args.batching?.enabled ?? false,
                        enableWarmup: args.enableWarmup ?? false,
                        extraServerArgs: args.extraServerArgs ?? [],
                    }),
                    ports: [
                        { name: "grpc", containerPort: GRPC_PORT, protocol: "TCP" },
                        { name: "http", containerPort: REST_PORT, protocol: "TCP" },
                    ],
                    env: gpuCount > 0 ? [{ name: "TF_FORCE_GPU_ALLOW_GROWTH", value: "true" }] : [],
                    resources: {
                        requests: { cpu: sizing.cpu, memory: sizing.memoryRequest, ...gpu },
                        limits: { cpu: sizing.cpu, memory: sizing.memoryLimit, ...gpu },
                    },
                    ...serverProbes(args.modelName, sizing),
                    // The native sleep action needs no shell in the image (Kubernetes 1.30+).
                    lifecycle: { preStop: { sleep: { seconds: PRESTOP_SLEEP_SECONDS } } },
                    securityContext: {
                        allowPrivilegeEscalation: false,
                        readOnlyRootFilesystem: true,
                        runAsNonRoot: true,
                        capabilities: { drop: ["ALL"] },
                    },
                    volumeMounts: [
                        { name: "tmp", mountPath: "/tmp" },
                        { name: "server-config", mountPath: SERVER_CONFIG_DIR, readOnly: true },
                    ],
                }],
                volumes: [
                    { name: "tmp", emptyDir: { sizeLimit: "1Gi" } },
                    { name: "server-config", configMap: { name: serverConfigName } },
                ],
            },
        },
    };
}
