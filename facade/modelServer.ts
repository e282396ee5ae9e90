/**
 * `ModelServer` for every Pulumi language: the library's `ModelServer` (components/modelServer.ts)
 * with arguments the schema analyzer accepts (flat resources, named enums, the model read from its
 * folder). A canary and image pull credentials stay TypeScript-only (docs/guides/other-languages.md).
 */
import * as pulumi from "@pulumi/pulumi";
import * as library from "../lib/modelServer";
import { ModelDelivery, Pool, Rollout, ServiceType } from "./enums";
import { absolutePath, goldenSource, loadableModel, oneOf, servedBytes, servedWarmupRecords, stringList } from "./values";

const ROLLOUTS: readonly library.RolloutStrategy[] = ["surge", "oneAtATime"];
const SERVICE_TYPES: readonly NonNullable<library.ModelServerArgs["serviceType"]>[] = ["LoadBalancer", "NodePort", "ClusterIP"];
const POOLS: readonly library.PoolKind[] = ["cpu", "gpu"];

/** A HorizontalPodAutoscaler for the model server. */
export interface ServerAutoscaling {
    /** Fewest pods (at least 1). */
    minReplicas: number;
    /** Most pods. */
    maxReplicas: number;
    /** Target CPU utilization: percent of the pods' CPU request, averaged over the pods. */
    targetCpuUtilization?: number;
    /** Target inference calls per second per pod, averaged over the pods (needs the cluster's custom metrics adapter). */
    targetRequestsPerSecond?: number;
    /** Seconds the HPA keeps its highest recent recommendation before it removes pods. Default 300. */
    scaleDownStabilizationSeconds?: number;
}

export interface ModelServerArgs {
    /** TF Serving model name (a DNS label); the image's model. */
    modelName: string;
    /** Absolute path of the model base folder the image was built from: the pods are sized from its served versions. */
    modelDir: string;
    /** Versions the image serves. Default: the highest version folder. */
    versions?: number[];
    /** Namespace to run in (must exist). */
    namespace: pulumi.Input<string>;
    /** Image to run, pinned by digest: a `ModelImage`'s `serverImage` (its `imageRef`, or with `imageVolume` the base). */
    image: pulumi.Input<string>;
    /** `embedded` (default): `image` holds the model. `imageVolume`: `modelArtifact` holds it, mounted by an image volume at `/models/<modelName>`. */
    modelDelivery?: ModelDelivery;
    /** With `modelDelivery: imageVolume`, and only then: the model artifact pinned by digest (an `imageVolume` `ModelImage`'s `imageRef`). */
    modelArtifact?: pulumi.Input<string>;
    /** CPU request and limit (Kubernetes quantity). Default 1 (2 with GPUs); thread flags follow it. */
    cpu?: string;
    /** Memory request override. Default: derived from the model; a value below what it needs is an error. */
    memoryRequest?: string;
    /** Memory limit override. Default: derived with room for a hot reload; below the reload peak is an error. */
    memoryLimit?: string;
    /** `nvidia.com/gpu` per pod. Default 0; set `pool` to `gpu` with it. */
    gpuCount?: number;
    /** The node pool (as `GkeCluster` and `EksCluster` label theirs). Default: any node. */
    pool?: Pool;
    /** Pods. Default 2; with `autoscaling`, its `minReplicas`. */
    replicas?: number;
    /** How pods are replaced. Default `surge`. */
    rollout?: Rollout;
    /** A HorizontalPodAutoscaler. Default none. */
    autoscaling?: ServerAutoscaling;
    /** Server-side batching with parameters matched to the CPU limit. Default false. */
    batching?: boolean;
    /** A batching_parameters text proto instead of the derived one (turns batching on). */
    batchingParametersText?: string;
    /**
     * Absolute path of a golden file (JSON lines of `:predict` bodies and their expected outputs): each
     * case is checked against the served versions' signatures when the component is made, naming the
     * line (docs/guides/model-contract.md#golden-files).
     */
    golden?: string;
    /** Replay the model's warmup requests at each load. Default true. */
    enableWarmup?: boolean;
    /** Extra tensorflow_model_server flags, one `--name=value` per item (a list, never one string); flags the component manages are refused. Default none. */
    extraServerArgs?: string[];
    /** Service type. Default `LoadBalancer`. */
    serviceType?: ServiceType;
    /** CIDRs allowed through the load balancer. */
    loadBalancerSourceRanges?: string[];
    /** Open the load balancer to every address on purpose. Default false. */
    publicEndpoint?: boolean;
    /** Annotations on the Service (a cloud's load balancer settings). */
    serviceAnnotations?: Record<string, string>;
}

/** The library's arguments for these. */
export function toModelServerArgs(name: string, args: ModelServerArgs): library.ModelServerArgs {
    const where = `ModelServer "${name}"`;
    const report = loadableModel(args.modelDir, args.versions, `${where} modelDir`);
    const batching = args.batching === true || args.batchingParametersText !== undefined
        ? { enabled: true, parametersText: args.batchingParametersText } : undefined;
    return {
        model: {
            name: args.modelName, versionBytes: servedBytes(report), warmupRecords: servedWarmupRecords(report),
            signatures: report.versions.filter((v) => v.served).map((v) => v.signatures),
        },
        golden: args.golden === undefined ? undefined : goldenSource(absolutePath(args.golden, `${where} golden`), `${where} golden`),
        namespace: args.namespace,
        image: args.image,
        modelDelivery: args.modelDelivery === undefined ? undefined : oneOf(args.modelDelivery, library.MODEL_DELIVERIES, `${where} modelDelivery`),
        modelArtifact: args.modelArtifact,
        resources: { cpu: args.cpu, memoryRequest: args.memoryRequest, memoryLimit: args.memoryLimit, gpuCount: args.gpuCount },
        placement: args.pool === undefined ? undefined : library.poolPlacement()[oneOf(args.pool, POOLS, `${where} pool`)],
        replicas: args.replicas,
        rollout: args.rollout === undefined ? undefined : oneOf(args.rollout, ROLLOUTS, `${where} rollout`),
        autoscaling: args.autoscaling,
        batching,
        enableWarmup: args.enableWarmup,
        extraServerArgs: stringList(args.extraServerArgs, "ModelServer", name, "extraServerArgs", "--rest_api_timeout_in_ms=30000"),
        serviceType: args.serviceType === undefined ? undefined : oneOf(args.serviceType, SERVICE_TYPES, `${where} serviceType`),
        loadBalancerSourceRanges: args.loadBalancerSourceRanges,
        publicEndpoint: args.publicEndpoint,
        serviceAnnotations: args.serviceAnnotations,
    };
}

/** TF Serving for one model: a Deployment sized from the model, its Service, probes and disruption budget. */
export class ModelServer extends pulumi.ComponentResource {
    /** `http://ADDRESS:8501`: the REST endpoint. */
    readonly restUrl: pulumi.Output<string>;
    /** `ADDRESS:8500`: the gRPC endpoint. */
    readonly grpcEndpoint: pulumi.Output<string>;
    /** `restUrl` + `/v1/models/NAME`: the model's status. */
    readonly modelStatusUrl: pulumi.Output<string>;
    /** The load balancer's address (IP or host name). */
    readonly externalAddress: pulumi.Output<string>;
    /** The model's pinned reference: the image the pods run, or with `imageVolume` the artifact they mount. */
    readonly imageRef: pulumi.Output<string>;
    /** The memory request per pod, as derived or given. */
    readonly memoryRequest: pulumi.Output<string>;
    /** The memory limit per pod: room for the reload peak. */
    readonly memoryLimit: pulumi.Output<string>;

    constructor(name: string, args: ModelServerArgs, opts?: pulumi.ComponentResourceOptions) {
        // Mapped before anything is registered: a refused argument registers nothing.
        const libraryArgs = toModelServerArgs(name, args);
        super("tf-serving:index:ModelServer", name, {}, opts);
        const server = new library.ModelServer(name, libraryArgs, { parent: this });
        this.restUrl = server.restUrl;
        this.grpcEndpoint = server.grpcEndpoint;
        this.modelStatusUrl = server.modelStatusUrl;
        this.externalAddress = server.externalAddress;
        this.imageRef = server.imageRef;
        this.memoryRequest = pulumi.output(server.sizing.memoryRequest);
        this.memoryLimit = pulumi.output(server.sizing.memoryLimit);
        this.registerOutputs({
            restUrl: this.restUrl, grpcEndpoint: this.grpcEndpoint, modelStatusUrl: this.modelStatusUrl,
            externalAddress: this.externalAddress, imageRef: this.imageRef, memoryRequest: this.memoryRequest, memoryLimit: this.memoryLimit,
        });
    }
}
