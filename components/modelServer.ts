/**
 * ModelServer: TensorFlow Serving for one model on any Kubernetes cluster.
 *
 * Cloud-agnostic: it knows nothing of GKE or EKS. The cluster comes as a Kubernetes provider in
 * the resource options (`new ModelServer(name, args, { provider })`, or `providers: [...]`), which
 * every child inherits through `parent: this`; without one, Pulumi's default provider (the ambient
 * kubeconfig). It sizes the pod from the model (`serving/sizing.ts`) and registers the ServiceAccount,
 * the server configuration ConfigMap, the Deployment, the Service, a PodDisruptionBudget, a
 * NetworkPolicy and, when asked, a HorizontalPodAutoscaler and an image pull Secret. The model comes in
 * its image, or (`modelDelivery: imageVolume`) as an artifact the pods mount beside the TF Serving base.
 */
import * as crypto from "crypto";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { dockerConfigJson } from "../contract/registry";
import {
    MEMORY_PEAK_ANNOTATION, MODEL_BYTES_ANNOTATION, PUBLIC_ANNOTATION, REST_PORT_NAME, SERVER_CONTAINER, canaryLabels, canaryName, isDnsSubdomain, modelServerLabels,
} from "../contract/labels";
import { argsError, refusing } from "./refusal";
import { CanaryRelease, canaryClientProblem } from "./canary/canaryRelease";
import { EPHEMERAL_STORAGE, Sizing, sizeServer } from "../serving/sizing";
import {
    BATCHING_CONFIG_FILE, METRICS_PATH, MONITORING_CONFIG_FILE, SERVER_CONFIG_DIR,
    defaultBatchingConfig, monitoringConfig, serverArgs, warmupReplays,
} from "../serving/flags";
import { GRPC_PORT, MODEL_SERVER_BINARY, REST_PORT, SERVING_GID, SERVING_UID } from "../serving/images";
import { artifactServerFlags } from "../serving/dockerfile";
import { MODEL_VOLUME, artifactMountPath, servedRelease } from "../serving/modelDelivery";
import { flagArgs } from "../serving/serverFlag";
import { modelStatusPath, serverProbes } from "../serving/probes";
import { hpaSpec, replicaOwnership } from "../serving/autoscaling";
import { NodePlacement } from "./nodePlacement";
import { replicaHandbackHook } from "./replicaHandback";
import { resolveModelServerArgs } from "./modelServerArgs";
import type { ServedModel, ImagePullCredentials, ModelServerArgs, ServerCanary } from "./modelServerArgs";
import {
    MIN_READY_SECONDS, PRESTOP_SLEEP_SECONDS, RolloutStrategy, RolloutTiming, SHUTDOWN_SECONDS, deploymentTimeouts, rollingUpdate, rolloutTiming,
} from "../serving/rollout";

export type { NodePlacement, RolloutStrategy };
export { PRESTOP_SLEEP_SECONDS, SHUTDOWN_SECONDS };
export type { ServedModel, ServerResources, ImagePullCredentials, ModelServerArgs, ServerCanary } from "./modelServerArgs";

/** Seconds a weight change is given to reach the Gateway's data plane before the canary's pods go. */
export const CANARY_SETTLE_SECONDS = 5;

export class ModelServer extends pulumi.ComponentResource {
    /** The load balancer's IP; empty where the cloud gives only a hostname (AWS). */
    readonly externalIp: pulumi.Output<string>;
    /** The load balancer's IP or hostname, whichever the cloud sets. */
    readonly externalAddress: pulumi.Output<string>;
    readonly restUrl: pulumi.Output<string>;
    readonly grpcEndpoint: pulumi.Output<string>;
    readonly modelStatusUrl: pulumi.Output<string>;
    /**
     * The model's pinned reference as the pods hold it: the image they run, or with `imageVolume` the
     * artifact they mount (what a model change moves; the stack records it to decide the next push).
     */
    readonly imageRef: pulumi.Output<string>;
    /** The TF Serving model name. */
    readonly model: string;
    readonly deployment: k8s.apps.v1.Deployment;
    readonly service: k8s.core.v1.Service;

    /** CPU, memory and probe timing derived from the model and `resources`. */
    readonly sizing: Sizing;

    /**
     * @param opts the cluster's Kubernetes provider goes here (`provider` or `providers`); children inherit it.
     * @throws pulumi.RunError, before anything is registered, when an argument cannot work: a `resources` value
     * the model cannot run with names `resources.<field>` and both numbers (the sizing's `SizingError`).
     */
    constructor(name: string, args: ModelServerArgs, opts?: pulumi.ComponentResourceOptions) {
        // Every default and check (`modelServerArgs.ts`), before any child is registered.
        args = resolveModelServerArgs(name, args);
        const sizing = refusing("ModelServer", name, "resources", () => modelServerSizing(args));
        const noClient = args.canary === undefined ? undefined : canaryClientProblem();
        if (noClient !== undefined) {
            throw argsError("ModelServer", name, [{ field: "canary", value: undefined, message: noClient }]);
        }
        super("tf-serving:index:ModelServer", name, {}, opts);
        this.sizing = sizing;
        const modelName = args.model.name;
        this.model = modelName;
        const childOpts = { parent: this };
        const labels = modelServerLabels(modelName);
        const meta = { namespace: args.namespace, labels };

        const serviceAccount = new k8s.core.v1.ServiceAccount(name, {
            metadata: { ...meta, name: modelName },
            automountServiceAccountToken: false,
        }, childOpts);

        const configData: Record<string, string> = { [MONITORING_CONFIG_FILE]: monitoringConfig() };
        if (args.batching?.enabled) {
            configData[BATCHING_CONFIG_FILE] = args.batching.parametersText ?? defaultBatchingConfig(sizing.cpuCount);
        }
        // Auto-named, so a config change creates a new ConfigMap and rolls the pods onto it; named
        // after the model where the component's name would make an object name Kubernetes refuses.
        const serverConfig = new k8s.core.v1.ConfigMap(`${name}-server-config`, {
            metadata: { ...meta, ...serverConfigName(name, modelName, configData) },
            data: configData,
        }, childOpts);

        const pullSecret = args.imagePullCredentials === undefined ? undefined : new k8s.core.v1.Secret(`${name}-registry`, {
            metadata: { ...meta, name: `${modelName}-registry` },
            type: "kubernetes.io/dockerconfigjson",
            stringData: { ".dockerconfigjson": pullSecretContent(args.imagePullCredentials) },
        }, childOpts);

        const release = args.canary && canaryRelease(name, args, args.canary, sizing, {
            serviceAccount: serviceAccount.metadata.name, serverConfig: serverConfig.metadata.name, pullSecret: pullSecret?.metadata.name,
        }, this);

        const replicas = replicaOwnership(args.replicas ?? 2, args.autoscaling);
        // Without autoscaling, an update that turns it off deletes the HPA first (components/replicaHandback.ts).
        const handback = args.autoscaling === undefined
            ? replicaHandbackHook(modelName, args.cluster ?? (args.canary && { kubeconfig: args.canary.kubeconfig, context: args.canary.context }))
            : undefined;
        // A first GPU rollout (node from zero, driver, multi-GB pull) outlasts the provider's default 10 minutes.
        this.deployment = new k8s.apps.v1.Deployment(name, {
            metadata: { ...meta, name: modelName, ...(replicas.annotations ? { annotations: replicas.annotations } : {}) },
            spec: deploymentSpec(args, sizing, labels, serviceAccount.metadata.name, serverConfig.metadata.name, pullSecret?.metadata.name),
        }, {
            ...childOpts, customTimeouts: deploymentTimeouts(modelServerTiming(args, sizing)), dependsOn: release ? [release.release] : [],
            ...(replicas.ignoreChanges.length > 0 ? { ignoreChanges: replicas.ignoreChanges } : {}),
            ...(handback ? { hooks: { beforeUpdate: [handback] } } : {}),
        });
        if (release) {
            // After the serving Deployment rolled onto the image the canary proved: the routes back to it alone.
            new CanaryRelease(`${name}-canary-finish`, { ...release.inputs, phase: "finish" }, { parent: this, dependsOn: [this.deployment] });
        }

        this.service = new k8s.core.v1.Service(name, {
            metadata: {
                ...meta,
                name: modelName,
                annotations: {
                    ...(args.publicEndpoint ? { [PUBLIC_ANNOTATION]: "true" } : {}),
                    ...args.serviceAnnotations,
                },
            },
            spec: {
                type: args.serviceType ?? "LoadBalancer",
                selector: labels,
                ports: SERVING_PORTS,
                loadBalancerSourceRanges: (args.serviceType ?? "LoadBalancer") === "LoadBalancer" && args.loadBalancerSourceRanges?.length
                    ? args.loadBalancerSourceRanges : undefined,
            },
        }, { ...childOpts, dependsOn: [this.deployment] });

        // maxUnavailable 1 lets a node drain evict pods one at a time; with one replica a drain is a brief outage.
        // AlwaysAllow: a pod that is not Ready serves nothing, so evicting it costs nothing; with the default
        // (IfHealthyBudget) a crash-looping or still-loading pod would count against the budget and stall the drain.
        new k8s.policy.v1.PodDisruptionBudget(name, {
            metadata: { ...meta, name: modelName },
            spec: { maxUnavailable: 1, selector: { matchLabels: labels }, unhealthyPodEvictionPolicy: "AlwaysAllow" },
        }, childOpts);

        new k8s.networking.v1.NetworkPolicy(name, {
            metadata: { ...meta, name: modelName },
            spec: networkPolicySpec(labels),
        }, childOpts);

        if (args.autoscaling) {
            new k8s.autoscaling.v2.HorizontalPodAutoscaler(name, {
                metadata: { ...meta, name: modelName },
                spec: hpaSpec(this.deployment.metadata.name, args.autoscaling, args.requestRateMetric),
            }, childOpts);
        }

        const ingress = this.service.status.loadBalancer.ingress;
        this.externalIp = ingress.apply((i) => i?.[0]?.ip ?? "");
        this.externalAddress = pulumi.all([ingress, this.service.spec.clusterIP]).apply(([i, clusterIp]) =>
            i?.[0]?.ip || i?.[0]?.hostname || clusterIp || "");
        this.restUrl = pulumi.interpolate`http://${formatHost(this.externalAddress)}:${REST_PORT}`;
        this.grpcEndpoint = pulumi.interpolate`${formatHost(this.externalAddress)}:${GRPC_PORT}`;
        this.modelStatusUrl = pulumi.interpolate`${this.restUrl}${modelStatusPath(modelName)}`;
        // With a canary the serving image is the Deployment's once it has rolled: after a release whose
        // gate failed, the Deployment keeps the old image and so do the stack's outputs.
        const template = this.deployment.spec.template.spec;
        this.imageRef = args.modelDelivery === "imageVolume"
            ? (args.canary ? template.volumes.apply((v) => v.find((volume) => volume.name === MODEL_VOLUME)?.image?.reference ?? "") : pulumi.output(args.modelArtifact ?? ""))
            : args.canary ? template.containers.apply((c) => c[0].image) : pulumi.output(args.image);

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

/** The provider's auto-name suffix: `-` and 8 lowercase letters or digits. */
const AUTONAME_SUFFIX = "-abcd1234";

/**
 * The server config ConfigMap's `metadata.name`, when it needs one. The ConfigMap is auto-named
 * after its Pulumi name (`<component>-server-config-<8 random>`), which live stacks hold; a component
 * name that makes no DNS-1123 subdomain (`twoServer`, as Pulumi YAML programs name resources) would
 * make a ConfigMap the API server refuses at `pulumi up`. Then: the model's name (a DNS label) and
 * the data's hash, so a config change still makes a new ConfigMap and rolls the pods onto it.
 */
export function serverConfigName(component: string, model: string, data: Record<string, string>): { name?: string } {
    const autoPrefix = `${component}-server-config`;
    if (isDnsSubdomain(`${autoPrefix}${AUTONAME_SUFFIX}`)) {
        return {};
    }
    const hash = crypto.createHash("sha256").update(JSON.stringify(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : 1)))).digest("hex");
    return { name: `${model}-server-config-${hash.slice(0, 10)}` };
}

/** The Secret's `.dockerconfigjson`, a secret output whatever the inputs' secretness. */
function pullSecretContent(login: ImagePullCredentials): pulumi.Output<string> {
    return pulumi.secret(pulumi.all([login.server, login.username, login.password])
        .apply(([server, username, password]) => dockerConfigJson(server, username, password)));
}

/** The Service's ports, the serving Service's and the canary's. */
const SERVING_PORTS = [
    { name: "grpc", port: GRPC_PORT, targetPort: "grpc", protocol: "TCP", appProtocol: "kubernetes.io/h2c" },
    { name: "http", port: REST_PORT, targetPort: "http", protocol: "TCP", appProtocol: "http" },
];

/**
 * The canary's Service and NetworkPolicy (kept between releases: a route's backend must exist) and
 * the release that runs before the serving Deployment changes; its inputs, for the `finish` after it.
 */
function canaryRelease(
    name: string, args: ModelServerArgs, canary: ServerCanary, sizing: Sizing,
    names: { serviceAccount: pulumi.Input<string>; serverConfig: pulumi.Input<string>; pullSecret?: pulumi.Input<string> },
    parent: pulumi.Resource,
): { release: CanaryRelease; inputs: Omit<ConstructorParameters<typeof CanaryRelease>[1], "phase"> } {
    const model = args.model.name;
    const labels = canaryLabels(model);
    const meta = { namespace: args.namespace, labels, name: canaryName(model) };
    const service = new k8s.core.v1.Service(`${name}-canary`, {
        metadata: meta,
        spec: { type: "ClusterIP", selector: labels, ports: SERVING_PORTS },
    }, { parent });
    new k8s.networking.v1.NetworkPolicy(`${name}-canary`, { metadata: meta, spec: networkPolicySpec(labels) }, { parent });
    const { settings } = canary;
    // The serving pods' spec with the canary's labels and count; never autoscaled.
    const spec = deploymentSpec({ ...args, replicas: settings.replicas, autoscaling: undefined }, sizing, labels, names.serviceAccount, names.serverConfig, names.pullSecret);
    const inputs = {
        kubeconfig: canary.kubeconfig,
        context: canary.context,
        namespace: args.namespace,
        model,
        // What the pods run, as the release compares it with the serving Deployment's (`servedRelease`): the image alone when embedded.
        image: args.modelDelivery === "imageVolume"
            ? pulumi.all([args.image, args.modelArtifact ?? ""]).apply(([image, reference]) => servedRelease(modelPodSpec(image, reference)) ?? image)
            : args.image,
        serving: model,
        canary: canaryName(model),
        canaryDeployment: pulumi.output(args.namespace).apply((namespace) => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { ...meta, namespace }, spec })),
        routes: canary.gateway.routes,
        steps: settings.steps,
        holdSeconds: settings.holdSeconds,
        gates: settings.gates,
        readySeconds: modelServerTiming(args, sizing).progressDeadlineSeconds,
        settleSeconds: CANARY_SETTLE_SECONDS,
        golden: args.golden,
    };
    const release = new CanaryRelease(`${name}-canary-release`, { ...inputs, phase: "release" }, {
        parent, dependsOn: [service, ...canary.gateway.routeResources],
    });
    return { release, inputs };
}

function formatHost(address: pulumi.Output<string>): pulumi.Output<string> {
    return address.apply((a) => (a.includes(":") ? `[${a}]` : a));
}

/**
 * Ingress on the serving ports only, from any address; no egress at all (the model is in the image,
 * and TF Serving calls nothing). Not narrowed to `loadBalancerSourceRanges`: behind a LoadBalancer
 * with the default `externalTrafficPolicy: Cluster`, kube-proxy rewrites the client's address to a
 * node's, so an ipBlock of client CIDRs would refuse every client; the load balancer's own source
 * ranges already filter them. The kubelet's probes target the REST port, which is open anyway.
 */
export function networkPolicySpec(labels: Record<string, string>): k8s.types.input.networking.v1.NetworkPolicySpec {
    return {
        podSelector: { matchLabels: labels },
        policyTypes: ["Ingress", "Egress"],
        ingress: [{ ports: [{ protocol: "TCP", port: GRPC_PORT }, { protocol: "TCP", port: REST_PORT }] }],
    };
}

/** The pod's sizing: derived from the model's versions and warmup records, its GPUs and batching, with `resources` as overrides. */
export function modelServerSizing(args: Pick<ModelServerArgs, "model" | "resources" | "batching" | "enableWarmup" | "extraServerArgs">): Sizing {
    const { gpuCount, ...overrides } = args.resources ?? {};
    return sizeServer({
        servedVersionBytes: args.model.versionBytes,
        gpu: (gpuCount ?? 0) > 0,
        batching: args.batching?.enabled ?? false,
        warmupRequests: warmupReplays(args.model.warmupRecords ?? 0, { enableWarmup: args.enableWarmup ?? true, extraServerArgs: args.extraServerArgs ?? [] }),
        overrides,
    });
}

/** Bytes on disk of the served versions together (the image's model layers). */
function modelBytes(model: ServedModel): number {
    return model.versionBytes.reduce((sum, bytes) => sum + bytes, 0);
}

/** How long this server's pods may take to start and to roll, from its sizing, GPUs and size. */
export function modelServerTiming(args: ModelServerArgs, sizing: Sizing = modelServerSizing(args)): RolloutTiming {
    return rolloutTiming({
        sizing,
        gpu: (args.resources?.gpuCount ?? 0) > 0,
        modelBytes: modelBytes(args.model),
        pods: args.autoscaling?.maxReplicas ?? args.replicas ?? 2,
        terminationGraceSeconds: PRESTOP_SLEEP_SECONDS + SHUTDOWN_SECONDS,
    });
}

type DeploymentSpec = k8s.types.input.apps.v1.DeploymentSpec;

/** The Deployment spec, kept apart from resource wiring so its shape reads top to bottom. */
export function deploymentSpec(
    args: ModelServerArgs,
    sizing: Sizing,
    labels: Record<string, string>,
    serviceAccountName: pulumi.Input<string>,
    serverConfigName: pulumi.Input<string>,
    pullSecretName?: pulumi.Input<string>,
): DeploymentSpec {
    const gpuCount = args.resources?.gpuCount ?? 0;
    const gpu: Record<string, string> = gpuCount > 0 ? { "nvidia.com/gpu": String(gpuCount) } : {};
    return {
        replicas: replicaOwnership(args.replicas ?? 2, args.autoscaling).replicas,
        selector: { matchLabels: labels },
        strategy: { type: "RollingUpdate", rollingUpdate: rollingUpdate(args.rollout ?? "surge") },
        minReadySeconds: MIN_READY_SECONDS,
        progressDeadlineSeconds: modelServerTiming(args, sizing).progressDeadlineSeconds,
        revisionHistoryLimit: 5,
        template: {
            metadata: {
                labels,
                annotations: {
                    [MODEL_BYTES_ANNOTATION]: String(modelBytes(args.model)),
                    [MEMORY_PEAK_ANNOTATION]: String(Math.round(sizing.peakBytes)),
                    "prometheus.io/scrape": "true",
                    "prometheus.io/port": String(REST_PORT),
                    "prometheus.io/path": METRICS_PATH,
                },
            },
            spec: {
                serviceAccountName,
                automountServiceAccountToken: false,
                imagePullSecrets: pullSecretName === undefined ? undefined : [{ name: pullSecretName }],
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
                    name: SERVER_CONTAINER,
                    image: args.image,
                    ...serverCommand(args, serverArgs({
                        sizing,
                        batching: args.batching?.enabled ?? false,
                        enableWarmup: args.enableWarmup ?? true,
                        extraServerArgs: args.extraServerArgs ?? [],
                    })),
                    ports: [
                        { name: "grpc", containerPort: GRPC_PORT, protocol: "TCP" },
                        { name: REST_PORT_NAME, containerPort: REST_PORT, protocol: "TCP" },
                    ],
                    env: gpuCount > 0 ? [{ name: "TF_FORCE_GPU_ALLOW_GROWTH", value: "true" }] : [],
                    resources: {
                        requests: { "cpu": sizing.cpu, "memory": sizing.memoryRequest, "ephemeral-storage": EPHEMERAL_STORAGE.request, ...gpu },
                        limits: { "cpu": sizing.cpu, "memory": sizing.memoryLimit, "ephemeral-storage": EPHEMERAL_STORAGE.limit, ...gpu },
                    },
                    ...serverProbes(args.model.name, sizing),
                    // The native sleep action needs no shell in the image (Kubernetes 1.30+).
                    lifecycle: { preStop: { sleep: { seconds: PRESTOP_SLEEP_SECONDS } } },
                    securityContext: {
                        allowPrivilegeEscalation: false,
                        readOnlyRootFilesystem: true,
                        runAsNonRoot: true,
                        // Repeated from the pod level for linters that read containers only (kube-score, trivy).
                        runAsUser: SERVING_UID,
                        runAsGroup: SERVING_GID,
                        capabilities: { drop: ["ALL"] },
                    },
                    volumeMounts: [
                        { name: "tmp", mountPath: "/tmp" },
                        { name: "server-config", mountPath: SERVER_CONFIG_DIR, readOnly: true },
                        ...modelVolume(args).mounts,
                    ],
                }],
                volumes: [
                    { name: "tmp", emptyDir: { sizeLimit: EPHEMERAL_STORAGE.tmpSizeLimit } },
                    { name: "server-config", configMap: { name: serverConfigName } },
                    ...modelVolume(args).volumes,
                ],
            },
        },
    };
}

type Container = k8s.types.input.core.v1.Container;

/**
 * The server container's command and args. Embedded: the image's ENTRYPOINT runs tensorflow_model_server
 * itself (no bash wrapper), and the pod's flags follow it as `args`. `imageVolume`: the base's ENTRYPOINT
 * is TF Serving's bash wrapper, so the pod runs the binary itself with the flags an embedded image bakes
 * (`artifactServerFlags`: ports, polling, the artifact's model config file) before the pod's own.
 */
function serverCommand(args: Pick<ModelServerArgs, "modelDelivery" | "model">, podArgs: string[]): Pick<Container, "command" | "args"> {
    return args.modelDelivery === "imageVolume"
        ? { command: [MODEL_SERVER_BINARY], args: [...flagArgs(artifactServerFlags(args.model.name)), ...podArgs] }
        : { args: podArgs };
}

/**
 * With `imageVolume`, the artifact as an `image` volume mounted read-only at the model's base path, its
 * root (no `subPath`: containerd 2.1 ignores it silently); `IfNotPresent`, as the artifact is pinned by
 * digest. The kubelet pulls it with the pod's `imagePullSecrets`, as it pulls the image. Nothing when embedded.
 */
function modelVolume(args: Pick<ModelServerArgs, "modelDelivery" | "modelArtifact" | "model">): {
    mounts: k8s.types.input.core.v1.VolumeMount[]; volumes: k8s.types.input.core.v1.Volume[];
} {
    if (args.modelDelivery !== "imageVolume") {
        return { mounts: [], volumes: [] };
    }
    return {
        mounts: [{ name: MODEL_VOLUME, mountPath: artifactMountPath(args.model.name), readOnly: true }],
        volumes: [{ name: MODEL_VOLUME, image: { reference: args.modelArtifact, pullPolicy: "IfNotPresent" } }],
    };
}

/** The parts of an `imageVolume` pod that `servedRelease` reads, for the canary's comparison. */
function modelPodSpec(image: string, reference: string): { containers: { image: string }[]; volumes: { name: string; image: { reference: string } }[] } {
    return { containers: [{ image }], volumes: [{ name: MODEL_VOLUME, image: { reference } }] };
}
