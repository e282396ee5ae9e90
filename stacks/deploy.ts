/**
 * The cloud-agnostic half of every stack: given a cluster (its provider) and a registry, register
 * the namespace and, per model, its image and its server.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ModelImage, RegistryDigestLookup } from "../components/modelImage";
import { ModelServer, ModelServerArgs, NodePlacement } from "../components/modelServer";
import { MANAGED_BY_LABEL } from "../contract/labels";
import { PreflightReport } from "../model/savedModel";
import { Sizing } from "../serving/sizing";
import { contextFolder } from "../serving/contextLocation";
import { ModelSettings, ServingConfig } from "../config/config";

/** A model that passed preflight and sizing: everything needed to register its resources. */
export interface PreparedModel {
    settings: ModelSettings;
    report: PreflightReport;
    sizing: Sizing;
    /** Batching parameters text read from `batchingParametersFile`, if set. */
    batchingParameters?: string;
}

/**
 * The model-derived inputs of a model's server, the ones its sizing is computed from: by
 * `prepareModels` at preview (for errors that name the config key) and by `ModelServer` itself.
 */
export function serverModelInputs(settings: ModelSettings, report: PreflightReport, batchingParameters?: string): Pick<ModelServerArgs, "model" | "resources" | "batching"> {
    return {
        model: {
            name: settings.name,
            versionBytes: report.versions.filter((v) => report.servedVersions.includes(v.version)).map((v) => v.sizeBytes),
        },
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
    /** Resources the model servers wait for (node pools, the device plugin). */
    dependsOn?: pulumi.Input<pulumi.Resource>[];
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
    models: pulumi.Output<Record<string, { restUrl: string; grpcEndpoint: string; modelStatusUrl: string; imageRef: string }>>;
    kubeconfig?: pulumi.Output<string>;
    clusterName?: pulumi.Output<string>;
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

export function deployModels(args: DeployArgs): StackOutputs {
    const { config, provider } = args;
    const namespace = config.createNamespace
        ? new k8s.core.v1.Namespace(config.namespace, {
            metadata: { name: config.namespace, labels: { ...podSecurityLabels(), [MANAGED_BY_LABEL]: "pulumi" } },
        }, { provider, dependsOn: args.dependsOn }).metadata.name
        : pulumi.output(config.namespace);

    const servers = args.models.map(({ settings, report, batchingParameters }) => {
        const image = new ModelImage(settings.name, {
            modelName: settings.name,
            modelBaseDir: settings.path,
            versions: report.servedVersions,
            versionLabels: settings.versions ? settings.versionLabels : undefined,
            gpu: settings.gpu,
            baseImage: settings.baseImage,
            imageName: args.registry.imageName(settings.name),
            registry: { server: args.registry.server, username: args.registry.username, password: args.registry.password },
            projectDir: config.projectDir,
            contextDir: contextFolder(pulumi.getStack(), settings.name),
            registryDigest: args.registry.registryDigest?.(settings.name),
        });
        return new ModelServer(settings.name, {
            // The inputs `prepareModels` sized the model from, so the server derives the same sizing.
            ...serverModelInputs(settings, report, batchingParameters),
            namespace,
            image: image.imageRef,
            replicas: settings.replicas,
            rollout: settings.rollout,
            autoscaling: settings.autoscaling,
            placement: settings.gpu ? args.placement.gpu : args.placement.cpu,
            enableWarmup: settings.enableWarmup,
            extraServerArgs: settings.extraServerArgs,
            serviceType: config.service.type,
            loadBalancerSourceRanges: config.service.sourceRanges,
            publicEndpoint: config.service.publicEndpoint,
            serviceAnnotations: { ...args.serviceAnnotations, ...config.service.annotations },
            gateway: config.service.endpoint === "gateway" ? config.service.gateway : undefined,
        }, { provider, dependsOn: args.dependsOn });
    });

    const first = servers[0];
    return {
        externalIp: first.externalIp,
        externalAddress: first.externalAddress,
        restUrl: first.restUrl,
        grpcEndpoint: first.grpcEndpoint,
        modelStatusUrl: first.modelStatusUrl,
        imageRef: first.imageRef,
        namespace,
        models: pulumi.all(servers.map((s) => pulumi.all([s.restUrl, s.grpcEndpoint, s.modelStatusUrl, s.imageRef])))
            .apply((rows) => Object.fromEntries(rows.map(([restUrl, grpcEndpoint, modelStatusUrl, imageRef], i) =>
                [args.models[i].settings.name, { restUrl, grpcEndpoint, modelStatusUrl, imageRef }]))),
    };
}
