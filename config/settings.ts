/**
 * What every stack's configuration holds whatever its cloud (`CommonConfig`: the models, the
 * Service, the monitoring), and the shape of a stack's whole configuration on one cloud
 * (`StackConfig`). The config layer's vocabulary, which the cloud folders import: it knows no cloud
 * and never reaches the registry, so the dependency runs one way (`config/config.ts` reads the keys
 * and builds the union over the clouds, `ServingConfig`; docs/development/adding-a-cloud.md).
 */
import type { Collector } from "../components/clouds/collectors";
import type { GatewayPlatformSettings } from "../components/clouds/gateways";
import type { AlertThresholds } from "../observability/alerts";
import type { AutoscalingSettings } from "../serving/autoscaling";
import type { CanarySettings } from "../serving/canary";
import type { ModelDelivery } from "../serving/modelDelivery";
import type { RolloutStrategy } from "../serving/rollout";

export const SERVICE_TYPES = ["LoadBalancer", "NodePort", "ClusterIP"] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

/** One model served by its own image and model server. */
export interface ModelSettings {
    /** DNS label: the TF Serving model name, and the name of its Deployment and Service. */
    name: string;
    /** Absolute path of the model base folder (numeric version folders inside). */
    path: string;
    /** Signature the smoke test and preflight require; TF Serving's REST default is `serving_default`. */
    signature: string;
    /** Versions to bake and serve; undefined means the highest one only (TF Serving's default `latest {1}`). */
    versions?: number[];
    /** TF Serving version labels (`stable: 123`); each must name a served version. */
    versionLabels: Record<string, number>;
    /** Serve on GPU nodes with the `-gpu` base image. */
    gpu: boolean;
    /** `nvidia.com/gpu` per pod; 0 unless `gpu`. */
    gpuCount: number;
    /** Desired pods (the HPA's minimum when autoscaling is on). */
    replicas: number;
    /** How pods are replaced: `surge` unless a GPU pool has no GPU to spare for an extra pod (`gpuCapacity.ts`). */
    rollout: RolloutStrategy;
    /** Base image override; undefined means the pinned `tensorflow/serving` (or `-gpu`) release. */
    baseImage?: string;
    /** Overrides of the sizing derived from the model; each is checked against what the model needs. */
    resources: { cpu?: string; memoryRequest?: string; memoryLimit?: string };
    /** Server-side batching; `parametersFile` is a batching_parameters text proto on disk. */
    batching: { enabled: boolean; parametersFile?: string };
    /** The HPA (`serving/autoscaling.ts`); undefined: a fixed `replicas` count. */
    autoscaling?: AutoscalingSettings;
    /** A metric-gated canary for every new image (needs `endpoint: gateway`); undefined: the rolling update alone. */
    canary?: CanarySettings;
    /** Extra `tensorflow_model_server` flags, appended after the managed ones. */
    extraServerArgs: string[];
    /** Replay `assets.extra/tf_serving_warmup_requests` at each load (TF Serving's default, true); false passes `--enable_model_warmup=false`. */
    enableWarmup: boolean;
    /**
     * Release a version whose signatures break what the stack serves now (a removed or renamed input,
     * a changed dtype or shape; `contract/signatureChange.ts`): true for the one update that makes the
     * change. Default false: such a version stops the preview.
     */
    allowSignatureChange: boolean;
    /**
     * A golden file (`contract/golden.ts`): JSON lines of `:predict` bodies and the outputs expected from
     * them. `path` is absolute; `asWritten` as the config names it (relative to the project), for
     * messages and the canary's inputs (the same in every checkout). The canary checks them first.
     */
    golden?: { path: string; asWritten: string };
    /**
     * `golden`: the image build writes each baked version's `assets.extra/tf_serving_warmup_requests` from the
     * golden cases (in the staged copy; the model folder is not written), replacing any file the folder holds.
     * Needs `golden`. Undefined: the folder's own warmup file, if it has one.
     */
    warmup?: "golden";
    /**
     * How the model reaches its server (`serving/modelDelivery.ts`): `embedded` (default), baked into a TF
     * Serving image, or `imageVolume`, a model-only artifact mounted beside the pinned base, where the
     * cluster can mount one (each cloud's rule).
     */
    modelDelivery: ModelDelivery;
    /** The config key a model setting came from, for messages: `modelPath` or `models[1].path`. */
    configKey(setting: "path" | "signature" | "versions" | "baseImage" | "gpuCount" | "replicas" | "autoscaling" | "canary" | "memoryRequest" | "memoryLimit" | "cpu" | "batchingParametersFile" | "allowSignatureChange" | "golden" | "warmup" | "modelDelivery"): string;
}

export interface ServiceSettings {
    type: ServiceType;
    /**
     * `loadBalancer` (default): the Service is the endpoint (L4; one gRPC channel stays on one pod).
     * `gateway`: a Gateway API Gateway of `gateway.className` in front of a ClusterIP Service,
     * balancing each request; TLS from `gateway.tlsSecretName` or the cloud's controller's own
     * certificate key (`config/gateway.ts`), else plaintext (h2c, where the controller allows it).
     */
    endpoint: EndpointKind;
    /** The platform's own keys by `platform` (the cloud's `GatewaySection`). */
    gateway?: {
        className: string;
        tlsSecretName?: string;
        /** The stack creates the GatewayClass `className` (`GatewaySection.createsClass`). */
        createClass?: boolean;
    } & GatewayPlatformSettings;
    /** CIDRs allowed to reach the load balancer. */
    sourceRanges: string[];
    /**
     * The Gateway's callers' htpasswd lines (`gateway.auth.users`, a secret): the component writes them
     * to a Secret, marked secret; never in an output or a message.
     */
    basicAuthUsers?: string;
    /** Deliberately open the endpoint to any address (needed when `sourceRanges` is empty). */
    publicEndpoint: boolean;
    annotations: Record<string, string>;
}

/** How the model servers are observed (config key `monitoring`). */
export interface MonitoringSettings {
    /**
     * Who scrapes the pods and evaluates the alerts: `prometheus-operator` (PodMonitor and
     * PrometheusRule), `annotations` (a Prometheus that reads `prometheus.io/*`), `none`, or a cloud's
     * managed one (`gke`, components/clouds/collectors.ts); the default and the refused are the cloud's
     * (`CloudRules.defaultCollector`, `collectorProblem`).
     */
    collector: Collector;
    thresholds: AlertThresholds;
    /** Extra labels on the scrape and rule objects, e.g. `release: kube-prometheus-stack` for its Prometheus' selectors. */
    labels: Record<string, string>;
}

/** What every stack has, whatever the cloud. */
export interface CommonConfig {
    /**
     * The project root (Pulumi's program working directory): relative paths in config start here,
     * and resource inputs name files relative to it so they are the same in every checkout.
     */
    projectDir: string;
    namespace: string;
    /** Create (and label for Pod Security `restricted`) the namespace, or use an existing one. */
    createNamespace: boolean;
    service: ServiceSettings;
    models: ModelSettings[];
    monitoring: MonitoringSettings;
}

export const ENDPOINT_KINDS = ["loadBalancer", "gateway"] as const;
export type EndpointKind = typeof ENDPOINT_KINDS[number];

/**
 * A stack's whole configuration on cloud `C`, whose own keys are `Section` (`{ gke: GcpConfig }`):
 * what each cloud's rules read. The registry's `CloudSections` lists every cloud's `Section`, and
 * `ServingConfig` (`config/config.ts`) is the union of these.
 */
export type StackConfig<C extends string, Section extends object> = CommonConfig & { cloud: C } & Section;
