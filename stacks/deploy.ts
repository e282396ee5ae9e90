/**
 * The cloud-agnostic half of every stack: given a cluster (its provider) and a registry, register
 * the namespace and, per model, its image and its server.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ModelImage, RegistryDigestLookup, RegistryTagProbe } from "../components/modelImage";
import { ModelMonitoring } from "../components/modelMonitoring";
import { ImagePullCredentials, ModelServer, ModelServerArgs, NodePlacement } from "../components/modelServer";
import { ModelGateway } from "../components/modelGateway";
import { grpcHostnameFor } from "../serving/gatewayAccess";
import { GoldenSource } from "../contract/golden";
import { WarmupSource } from "../model/warmup";
import { MANAGED_BY_LABEL } from "../contract/labels";
import { PreflightReport } from "../model/savedModel";
import { Sizing } from "../serving/sizing";
import { PodMetricRef } from "../serving/autoscaling";
import { contextFolder } from "../serving/contextLocation";
import { modelStatusPath } from "../serving/probes";
import { ImageBuildRecord } from "../serving/pushDecision";
import { PreviousOutputs } from "./previousOutputs";
import { IMAGE_BUILDS_OUTPUT, previousImage } from "./stateRecords";
import { ModelSettings, ServingConfig } from "../config/config";

/** A model that passed preflight and sizing: everything needed to register its resources. */
export interface PreparedModel {
    settings: ModelSettings;
    report: PreflightReport;
    sizing: Sizing;
    /** Batching parameters text read from `batchingParametersFile`, if set. */
    batchingParameters?: string;
    /** The golden file's text read from `golden`, named as the config writes it, if set. */
    golden?: GoldenSource;
    /** With `warmup: golden`: the golden cases the image build writes as each baked version's warmup records. */
    warmup?: WarmupSource[];
}

/**
 * The model-derived inputs of a model's server, the ones its sizing is computed from: by
 * `prepareModels` at preview (for errors that name the config key) and by `ModelServer` itself.
 */
export function serverModelInputs(settings: ModelSettings, report: PreflightReport, batchingParameters?: string, warmup?: readonly WarmupSource[]):
    Pick<ModelServerArgs, "model" | "resources" | "batching" | "enableWarmup" | "extraServerArgs"> {
    const served = report.versions.filter((v) => report.servedVersions.includes(v.version));
    return {
        model: {
            name: settings.name,
            versionBytes: served.map((v) => v.sizeBytes),
            // Generated records replace each served version's own file in the image.
            warmupRecords: warmup !== undefined ? warmup.length * served.length : served.reduce((sum, v) => sum + (v.warmupRecords ?? 0), 0),
            signatures: served.map((v) => v.signatures),
        },
        enableWarmup: settings.enableWarmup,
        extraServerArgs: settings.extraServerArgs,
        resources: { ...settings.resources, gpuCount: settings.gpu ? settings.gpuCount : 0 },
        batching: { enabled: settings.batching.enabled, parametersText: batchingParameters },
    };
}

export interface RegistryTarget {
    /** Image name without tag for a model, e.g. `us-central1-docker.pkg.dev/PROJECT/REPO/half-plus-two`. */
    imageName(model: string): pulumi.Input<string>;
    /** Registry host the build logs into. */
    server: pulumi.Input<string>;
    username?: pulumi.Input<string>;
    /** Secret. */
    password?: pulumi.Input<string>;
    /** How to ask the registry for a model's pushed tag digest; default the Docker provider's `getRegistryImage`. */
    registryDigest?(model: string): RegistryDigestLookup;
    /** How to ask the registry whether it holds a model's tag before the build; default the Docker provider's `getRegistryImage`. */
    registryProbe?(model: string): RegistryTagProbe;
    /**
     * Whether the pods pull with `username`/`password` too (an image pull Secret). Yes for a registry of
     * the user's own (local); no where the nodes' identity reads the stack's registry and the push login
     * is a short-lived token (Artifact Registry, ECR).
     */
    pullWithLogin?: boolean;
}

export interface DeployArgs {
    config: ServingConfig;
    models: PreparedModel[];
    provider: k8s.Provider;
    registry: RegistryTarget;
    /** How CPU pods land on CPU nodes and GPU pods on GPU nodes. */
    placement: { cpu: NodePlacement; gpu: NodePlacement };
    /** Extra Service annotations (cloud load balancer settings). */
    serviceAnnotations?: Record<string, string>;
    /** The metric a model's request-rate HPA reads on this cluster; default what prometheus-adapter serves. */
    requestRateMetric?: (model: string) => PodMetricRef;
    /** The stack's last outputs (which image each model ran); default read here (one reader per program run). */
    previous?: PreviousOutputs;
    /** Resources the model servers wait for (node pools, the device plugin). */
    dependsOn?: pulumi.Input<pulumi.Resource>[];
    /** How the components' own API calls (a canary release, the HPA's deletion first) reach the cluster: the provider's kubeconfig and context; default the ambient kubeconfig. */
    cluster?: { kubeconfig?: pulumi.Input<string>; context?: string };
    /** Labels the cluster's controllers read on the models' namespace (EKS: the load balancer controller's readiness gates); default none. */
    namespaceLabels?: Record<string, string>;
}

/** The outputs every stack exports, whatever the cloud. */
export interface StackOutputs {
    externalIp: pulumi.Output<string>;
    externalAddress: pulumi.Output<string>;
    restUrl: pulumi.Output<string>;
    grpcEndpoint: pulumi.Output<string>;
    modelStatusUrl: pulumi.Output<string>;
    imageRef: pulumi.Output<string>;
    /** Namespace of the model servers (`tfs doctor --stack` reads it). */
    namespace: pulumi.Output<string>;
    /** Every model's endpoints by name, for stacks that serve several. */
    /** `grpcAuthority`: the host a gRPC client names for the model where its Gateway routes gRPC by host (`gateway.grpcHostname`). */
    models: pulumi.Output<Record<string, { restUrl: string; grpcEndpoint: string; modelStatusUrl: string; imageRef: string; grpcAuthority?: string }>>;
    /** Every model's image: its content tag and whether it was pushed or the registry's copy reused (read back at the next run). */
    imageBuilds: pulumi.Output<Record<string, ImageBuildRecord>>;
    kubeconfig?: pulumi.Output<string>;
    clusterName?: pulumi.Output<string>;
    /** GKE and EKS stacks: the settings a running stack must keep, read back at the next preview (`stacks/stateRecords.ts`). */
    deployedSettings?: pulumi.Output<unknown>;
    /** Every model's serving signatures by served version, read back at the next preview (`stacks/signatureRecords.ts`). */
    servedSignatures?: pulumi.Output<unknown>;
}

/** The models' namespace labels: Pod Security `restricted`, managed by Pulumi, and what the cluster's controllers read (`extra`). */
export function modelNamespaceLabels(extra: Record<string, string> = {}): Record<string, string> {
    return { ...podSecurityLabels(), [MANAGED_BY_LABEL]: "pulumi", ...extra };
}

/** Pod Security Standard labels: enforce `restricted`, and warn and audit at the same level. */
export function podSecurityLabels(): Record<string, string> {
    return {
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/enforce-version": "latest",
        "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/audit": "restricted",
    };
}

function pullCredentials(registry: RegistryTarget): ImagePullCredentials | undefined {
    const { server, username, password } = registry;
    return registry.pullWithLogin && username !== undefined && password !== undefined ? { server, username, password } : undefined;
}

export function deployModels(args: DeployArgs): StackOutputs {
    const { config, provider } = args;
    const namespace = config.createNamespace
        ? new k8s.core.v1.Namespace(config.namespace, {
            metadata: { name: config.namespace, labels: modelNamespaceLabels(args.namespaceLabels) },
        }, { provider, dependsOn: args.dependsOn }).metadata.name
        : pulumi.output(config.namespace);
    // A namespace the stack does not own still needs the labels its cluster's controllers read: a patch of those alone.
    const labelsToPatch = args.namespaceLabels ?? {};
    if (!config.createNamespace && Object.keys(labelsToPatch).length > 0) {
        new k8s.core.v1.NamespacePatch(`${config.namespace}-labels`, { metadata: { name: config.namespace, labels: labelsToPatch } }, { provider, dependsOn: args.dependsOn });
    }

    const previous = args.previous ?? new PreviousOutputs(false);
    const previousBuilds = pulumi.all([previous.output(IMAGE_BUILDS_OUTPUT), previous.output("models"), previous.resources()]);
    const images: ModelImage[] = [];
    const servers = args.models.map(({ settings, report, batchingParameters, golden, warmup }) => {
        const image = new ModelImage(settings.name, {
            model: settings.name,
            modelPath: settings.path,
            versions: report.servedVersions,
            versionLabels: settings.versions ? settings.versionLabels : undefined,
            gpu: settings.gpu,
            baseImage: settings.baseImage,
            imageName: args.registry.imageName(settings.name),
            registry: { server: args.registry.server, username: args.registry.username, password: args.registry.password },
            projectDir: config.projectDir,
            contextDir: contextFolder(pulumi.getStack(), settings.name),
            registryDigest: args.registry.registryDigest?.(settings.name),
            registryProbe: args.registry.registryProbe?.(settings.name),
            previousImage: previousBuilds.apply(([builds, models, checkpoint]) => previousImage(builds, models, checkpoint, settings.name)),
            warmup: warmup === undefined ? undefined : { requests: warmup },
            modelDelivery: settings.modelDelivery,
        });
        images.push(image);
        const gatewaySettings = config.service.endpoint === "gateway" ? config.service.gateway : undefined;
        const gateway = gatewaySettings && new ModelGateway(settings.name, {
            model: settings.name,
            namespace,
            ...gatewaySettings,
            ...(gatewaySettings.platform === "generic" && gatewaySettings.grpcHostname !== undefined
                ? { grpcHostname: grpcHostnameFor(gatewaySettings.grpcHostname, settings.name) } : {}),
            sourceRanges: config.service.sourceRanges,
            ...(config.service.basicAuthUsers === undefined ? {} : { basicAuthUsers: pulumi.secret(config.service.basicAuthUsers) }),
            canary: settings.canary !== undefined,
        }, { provider, dependsOn: args.dependsOn });
        const server = new ModelServer(settings.name, {
            // The inputs `prepareModels` sized the model from, so the server derives the same sizing.
            ...serverModelInputs(settings, report, batchingParameters, warmup),
            golden,
            namespace,
            // The model's image; with `imageVolume` the pinned base, the artifact mounted beside it.
            image: image.serverImage,
            ...(settings.modelDelivery === "imageVolume" ? { modelDelivery: settings.modelDelivery, modelArtifact: image.imageRef } : {}),
            imagePullCredentials: pullCredentials(args.registry),
            replicas: settings.replicas,
            rollout: settings.rollout,
            autoscaling: settings.autoscaling,
            requestRateMetric: settings.autoscaling?.targetRequestsPerSecond !== undefined ? args.requestRateMetric?.(settings.name) : undefined,
            placement: settings.gpu ? args.placement.gpu : args.placement.cpu,
            serviceType: config.service.type,
            loadBalancerSourceRanges: config.service.sourceRanges,
            publicEndpoint: config.service.publicEndpoint,
            serviceAnnotations: { ...args.serviceAnnotations, ...config.service.annotations },
            canary: settings.canary && gateway ? {
                settings: settings.canary, gateway, ...args.cluster,
            } : undefined,
            cluster: args.cluster,
        }, { provider, dependsOn: args.dependsOn });
        return { server, endpoint: gateway ?? server };
    });

    for (const { settings } of args.models) {
        new ModelMonitoring(settings.name, {
            model: settings.name, namespace: config.namespace, namespaceRef: namespace, ...config.monitoring,
            // On GKE the request-rate HPA reads what GMP's rule evaluator records from these Rules.
            recordRequestRate: settings.autoscaling?.targetRequestsPerSecond !== undefined,
        }, { provider, dependsOn: args.dependsOn });
    }

    const endpoints = servers.map(({ endpoint, server }) => ({
        restUrl: endpoint.restUrl,
        grpcEndpoint: endpoint.grpcEndpoint,
        modelStatusUrl: pulumi.interpolate`${endpoint.restUrl}${modelStatusPath(server.model)}`,
        imageRef: server.imageRef,
    }));
    const first = { ...servers[0].endpoint, ...endpoints[0] };
    return {
        externalIp: first.externalIp,
        externalAddress: first.externalAddress,
        restUrl: first.restUrl,
        grpcEndpoint: first.grpcEndpoint,
        modelStatusUrl: first.modelStatusUrl,
        imageRef: first.imageRef,
        namespace,
        models: pulumi.all(endpoints.map((e) => pulumi.all([e.restUrl, e.grpcEndpoint, e.modelStatusUrl, e.imageRef])))
            .apply((rows) => Object.fromEntries(rows.map(([restUrl, grpcEndpoint, modelStatusUrl, imageRef], i) => {
                const grpcAuthority = (servers[i].endpoint as { grpcAuthority?: string }).grpcAuthority;
                return [args.models[i].settings.name, { restUrl, grpcEndpoint, modelStatusUrl, imageRef, ...(grpcAuthority === undefined ? {} : { grpcAuthority }) }];
            }))),
        imageBuilds: pulumi.all(images.map((i) => i.build)).apply((builds) => Object.fromEntries(builds.map((b, i) => [args.models[i].settings.name, b]))),
    };
}
