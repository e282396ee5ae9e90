/**
 * `ModelServer`'s arguments resolved, pure: every default filled and every check run, each problem
 * keyed by the field path the Args name it (`autoscaling.maxReplicas`, `canary.settings.steps`,
 * `extraServerArgs[1]`). The component throws them all before it registers a child; the stack's
 * config reader (`config/config.ts`) reads its keys into these Args and records the same issues
 * under its own key names (`components/argsIssues.ts`), so each rule is stated here once.
 */
import type { ClusterAccess } from "./replicaHandback";
import type * as pulumi from "@pulumi/pulumi";
import type { ArgsIssue } from "./argsIssues";
import type { NodePlacement } from "./nodePlacement";
import type { GoldenSource } from "../contract/golden";
import type { SignatureSpec } from "../contract/signature";
import type { PodMetricRef } from "../serving/autoscaling";
import type { RolloutStrategy } from "../serving/rollout";
import { argsError } from "./refusal";
import type { ModelGateway } from "./modelGateway";
import { goldenIssues } from "../contract/golden";
import { canaryName } from "../contract/labels";
import { AutoscalingSettings, DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS } from "../serving/autoscaling";
import { batchingParametersProblem } from "../serving/batchingParameters";
import { CANARY_DEFAULTS, CanaryGates, CanarySettings, canaryHoldProblem } from "../serving/canary";
import { managedFlags } from "../serving/flags";
import { isDigestPinned } from "../serving/images";
import { DEFAULT_MODEL_DELIVERY, MODEL_DELIVERY_DOC, ModelDelivery, modelDeliveryProblem } from "../serving/modelDelivery";
import { modelNameProblem } from "../serving/modelConfig";
import { tfServingFlagProblem } from "../serving/tfServingFlags";

/** The model the server loads, as the preflight found it on disk. */
export interface ServedModel {
    /**
     * TF Serving model name: a DNS label (lowercase letters, digits, `-`; at most 63 characters),
     * checked at construction. Names the Deployment, Service, ServiceAccount, PodDisruptionBudget and
     * NetworkPolicy, is the `app.kubernetes.io/instance` label and the REST path `/v1/models/<name>`.
     * It must match the name baked into the image (`ModelImage`'s `modelName`).
     */
    name: string;
    /**
     * Size on disk of each version the server loads, in bytes (one entry per served version; the
     * preflight's `PreflightReport.versions[].sizeBytes`). Sets the memory request (steady state), the
     * memory limit (reload peak: the largest version loads beside the others), the startup probe's
     * budget, the rollout timeouts, and the `tf-serving.dev/model-bytes` pod annotation (their sum).
     */
    versionBytes: number[];
    /**
     * Warmup records the served versions hold together (the preflight's `PreflightReport.versions[].warmupRecords`).
     * Each is replayed `--num_request_iterations_for_warmup` times at every load (once by default, none with
     * `enableWarmup: false`), which lengthens the startup probe's budget. Default 0.
     */
    warmupRecords?: number;
    /**
     * The signatures of each served version (the preflight's `PreflightReport.versions[].signatures`).
     * With `golden`, each case is checked against every one of them at construction. Default: not
     * checked (a case a version refuses then fails the canary's golden check).
     */
    signatures?: Record<string, SignatureSpec>[];
}

/** What each pod asks for. Unset values are derived from the model (`serving/sizing.ts`). */
export interface ServerResources {
    /**
     * CPU request and limit (equal), a Kubernetes quantity (`"500m"`, `"2"`). At least `250m`.
     * Default `"1"`, `"2"` with GPUs. TF Serving's thread pools (`--tensorflow_intra_op_parallelism`,
     * `--rest_api_num_threads`, ...) follow it, rounded up to whole CPUs.
     */
    cpu?: string;
    /**
     * Memory request, a Kubernetes quantity (`"2Gi"`). Default: the runtime (256 MiB, 1.5 GiB with
     * GPUs) + 1.2 x the served versions (+128 MiB with batching). A value below that default is an
     * error (`SizingError` at construction); it must not exceed the limit.
     */
    memoryRequest?: string;
    /**
     * Memory limit, a Kubernetes quantity. Default 1.25 x the reload peak (the request plus the
     * largest version, loaded beside the old one during an update). A value below the peak is an
     * error (`SizingError` at construction): pods would be OOMKilled on the next model update.
     */
    memoryLimit?: string;
    /**
     * `nvidia.com/gpu` per pod (request and limit). Default 0: CPU serving. Above 0 the pod also gets
     * `TF_FORCE_GPU_ALLOW_GROWTH=true`, the GPU runtime overhead and the longer GPU startup budget and
     * timeouts; it needs an image on the `-gpu` base (`ModelImage`'s `gpu`) and a `placement` that
     * reaches the GPU nodes (their selector and `GPU_TOLERATION`).
     */
    gpuCount?: number;
}

/** A registry login for pulls; see `ModelServerArgs.imagePullCredentials`. */
export interface ImagePullCredentials {
    server: pulumi.Input<string>;
    username: pulumi.Input<string>;
    /** Made a secret output here, whether or not it is one already. */
    password: pulumi.Input<string>;
}

export interface ModelServerArgs {
    /** The model: its name and the size of each served version. */
    model: ServedModel;
    /** Namespace to deploy into; it must exist (the caller creates it, with Pod Security `restricted` if wanted). */
    namespace: pulumi.Input<string>;
    /**
     * Image to run, pinned by digest (`repo@sha256:...`, e.g. `ModelImage.imageRef`), so a new model rolls
     * the pods and an unchanged one rolls nothing. Its ENTRYPOINT must run `tensorflow_model_server` for
     * `model.name` (as `ModelImage`'s does); the managed flags are passed as container args. With
     * `modelDelivery: imageVolume`: the TF Serving base, pinned by digest (`ModelImage.serverImage`).
     */
    image: pulumi.Input<string>;
    /**
     * How the model reaches the pods. `embedded` (default): `image` holds it. `imageVolume`: `modelArtifact`
     * holds it, mounted read-only by an `image` volume at `/models/<model.name>` (its root: no `subPath`),
     * and the pod runs `tensorflow_model_server` itself with the flags an embedded image's ENTRYPOINT carries;
     * a new base is then a pod template change with the same artifact. Probes, sizing and rollouts are the
     * same either way. Needs Kubernetes 1.35 and nodes on containerd 2.1 or CRI-O 1.31 (docs/concepts/model-image.md).
     */
    modelDelivery?: ModelDelivery;
    /**
     * With `modelDelivery: imageVolume`, and only then: the model artifact pinned by digest (`ModelImage.imageRef`
     * of an `imageVolume` `ModelImage`), pulled as `image` is, with the pods' pull secrets (`imagePullCredentials`).
     */
    modelArtifact?: pulumi.Input<string>;
    /**
     * The login the nodes pull `image` with, for a registry that refuses anonymous pulls. Creates a
     * `kubernetes.io/dockerconfigjson` Secret `<model.name>-registry` in `namespace` (its content a
     * secret output: encrypted in state, redacted in plans) and lists it in the pods' `imagePullSecrets`.
     * `server` is the registry host as `image` writes it (`registry.example.com`, `127.0.0.1:5001`).
     * Default none: the nodes pull anonymously or with their own identity (GKE's and EKS's node roles).
     */
    imagePullCredentials?: ImagePullCredentials;
    /** CPU, memory and GPUs per pod. Default: all derived from `model` (see each field). */
    resources?: ServerResources;
    /** Where pods may run. Default: any amd64 Linux node without taints. */
    placement?: NodePlacement;
    /** Desired pods. Default 2. Ignored when `autoscaling` is set (the HPA owns the replica count; a new Deployment starts at its `minReplicas`). */
    replicas?: number;
    /**
     * How pods are replaced. `surge` (default): one extra pod first (`maxSurge: 1`, `maxUnavailable: 0`),
     * never below the desired count. `oneAtATime`: stop a pod, then start its replacement (`maxSurge: 0`,
     * `maxUnavailable: 1`), for GPU pools with no GPU to spare for a surge pod; with one replica every
     * rollout is an outage while the new pod loads.
     */
    rollout?: RolloutStrategy;
    /**
     * Horizontal autoscaling (`serving/autoscaling.ts`) on CPU utilization (`targetCpuUtilization`, percent
     * of the CPU request; needs metrics-server), on inference calls per second per pod
     * (`targetRequestsPerSecond`; needs a custom metrics API serving `INFERENCE_REQUEST_RATE_METRIC`), or
     * both; at least one. `scaleDownStabilizationSeconds` defaults to 300. Default: none. `maxReplicas`
     * also sets the update timeout.
     */
    autoscaling?: AutoscalingSettings;
    /**
     * The custom metrics API's metric a `targetRequestsPerSecond` HPA reads, as the cluster's adapter
     * names it (e.g. `GkeCluster.requestRateMetric`). Default `PROMETHEUS_ADAPTER_METRIC`, what
     * prometheus-adapter serves with the rule in `tools/e2e-env/go/e2e-env/internal/metricsapi`.
     */
    requestRateMetric?: PodMetricRef;
    /**
     * Server-side batching. Default off. On: `--enable_batching` with a batching parameters file,
     * `parametersText` (a `BatchingParameters` text proto) or, by default, parameters matched to the CPU
     * count; the derived memory request grows by 128 MiB for the queues.
     */
    batching?: { enabled: boolean; parametersText?: string };
    /** Replay the model's warmup requests (`assets.extra/tf_serving_warmup_requests`) at each load. Default true, as in TF Serving. */
    enableWarmup?: boolean;
    /**
     * Extra `tensorflow_model_server` flags, appended after the managed ones. Default none. Must not
     * repeat a managed flag (`managedFlags()` in `serving/flags.ts`): TF Serving takes the last
     * occurrence, so a repeat would silently override the sizing or the image.
     */
    extraServerArgs?: string[];
    /** Service type. Default `LoadBalancer`. */
    serviceType?: "LoadBalancer" | "NodePort" | "ClusterIP";
    /**
     * CIDRs allowed through the load balancer (`loadBalancerSourceRanges`); only with `serviceType`
     * `LoadBalancer`. Default empty: open to any address, which the policy pack accepts only with `publicEndpoint`.
     */
    loadBalancerSourceRanges?: string[];
    /** Marks an open load balancer as deliberate (the `tf-serving.dev/public` annotation the policy pack reads). Default false. */
    publicEndpoint?: boolean;
    /** Extra Service annotations (cloud load balancer settings), merged over the managed ones. Default none. */
    serviceAnnotations?: Record<string, string>;
    /**
     * The model's golden cases (`contract/golden.ts`: JSON lines of `:predict` bodies and expected
     * outputs), as text with the file name messages use. A canary sends each one to a canary pod
     * before any weight moves and stops the release on a different answer
     * (docs/guides/model-contract.md#golden-files). Checked at construction: a file that does not
     * parse, or a case `model.signatures` refuses, throws naming the line.
     */
    golden?: GoldenSource;
    /**
     * A canary for every change of `image` (needs the model's `ModelGateway`, made with `canary: true`,
     * whose routes it shifts): the new image first runs in a Deployment of its
     * own beside the serving one, the routes' weights move to it step by step, and each step's gate
     * reads the canary pods' own metrics; only when every gate passes does the serving Deployment
     * take the image (docs/guides/canary.md). Default none: the rolling update alone.
     */
    canary?: ServerCanary;
    /**
     * How the component's own API calls reach the cluster: turning autoscaling off, the HPA is deleted
     * before the Deployment takes the count back (docs/guides/autoscaling.md#turning-it-on-and-off).
     * Default the ambient kubeconfig; the calls act only where the Deployment the stack updates is.
     */
    cluster?: ClusterAccess;
}

/** What a canary needs besides its settings: the gateway whose routes it shifts, and how to reach the cluster. */
export interface ServerCanary {
    settings: CanarySettings;
    /** The model's `ModelGateway`, made with `canary: true`: the release moves its routes' weights, once they carry the canary's backend. */
    gateway: ModelGateway;
    /** The kubeconfig (contents or file) of the cluster; default the ambient one. The canary's own API calls use it. */
    kubeconfig?: pulumi.Input<string>;
    context?: string;
}


interface Bounds { min: number; max: number }

/**
 * The bounds of `ModelServer`'s numbers, by field path. The config reader words its type errors
 * with them ("must be a whole number from 1 to 1000"); only the resolver checks them.
 */
export const MODEL_SERVER_BOUNDS = {
    /**
     * The most pods one model runs (`replicas`, `autoscaling.maxReplicas`). The Deployment's update
     * timeout grows with the pods (`serving/rollout.ts`, one replaced pod after another) and the engine
     * parses it with Go's `time.ParseDuration` (pulumi/pulumi pkg/resource/deploy/source_eval.go,
     * `generateTimeoutInSeconds`), which refuses anything past 2562047h (an int64 of nanoseconds):
     * 1e9 pods would ask for about 3e9 minutes. The HPA's counts are int32s as well.
     */
    replicas: { min: 1, max: 1000 },
    /**
     * Percent of the CPU request. The limit equals the request (`ServerResources.cpu`), so the pods'
     * utilization never passes 100; and the HPA controller adds pods only when utilization over target
     * is above 1 + its tolerance, 0.1 by default (kubernetes/kubernetes
     * pkg/controller/podautoscaler/replica_calculator.go, `math.Abs(1.0-usageRatio) <= c.tolerance`;
     * kube-controller-manager's `--horizontal-pod-autoscaler-tolerance`, which GKE and EKS do not let
     * users set). Above 90, 100 / target is at most 1.1: the HPA would never scale up.
     */
    targetCpuUtilization: { min: 10, max: 90 },
    targetRequestsPerSecond: { min: 1, max: Number.MAX_SAFE_INTEGER },
    /** The HPA API's bound (autoscaling/v2 HPAScalingRules: stabilizationWindowSeconds <= 3600). */
    scaleDownStabilizationSeconds: { min: 0, max: 3600 },
    /** A hold shorter than a few scrapes of the canary's metrics page decides on too few calls; 0 decides nothing. */
    holdSeconds: { min: 5, max: 3600 },
    canaryReplicas: { min: 1, max: 100 },
    /** A fraction of the canary's calls; 1 would pass a version whose every call fails (refused on its own). */
    maxErrorRatio: { min: 0, max: 1 },
    maxP99Ms: { min: 1, max: 600_000 },
    minRequests: { min: 1, max: 1_000_000 },
} as const satisfies Record<string, Bounds>;

/** The longest model name a canary allows: its Deployment and Service are `<name>-canary`, a DNS label too. */
export const CANARY_NAME_MAX = 63 - "-canary".length;

/** What the checks read: the Args' fields, with a canary's gateway optional (the config layer has none yet). */
export interface ModelServerChecked {
    model: { name: string };
    /** Checked here: one of `MODEL_DELIVERIES` (a config value may be any string). */
    modelDelivery?: string;
    replicas?: number;
    /** The counts may be left out here (the config layer's defaults are the resolver's: 2, and 10 or `minReplicas`). */
    autoscaling?: Omit<AutoscalingSettings, "minReplicas" | "maxReplicas"> & Partial<Pick<AutoscalingSettings, "minReplicas" | "maxReplicas">>;
    extraServerArgs?: string[];
    batching?: ModelServerArgs["batching"];
    canary?: { settings: CanarySettings; gateway?: Pick<ModelGateway, "model" | "canaryService"> };
}

/** The checked fields with every default filled; a refused value is replaced by its default. */
export interface ModelServerSettings {
    modelDelivery: ModelDelivery;
    replicas: number;
    autoscaling?: AutoscalingSettings & { scaleDownStabilizationSeconds: number };
    extraServerArgs: string[];
    batching: { enabled: boolean; parametersText?: string };
    canary?: CanarySettings;
}

/** `ModelServerArgs` with the defaults `ModelServerSettings` names filled in. */
export type ResolvedModelServerArgs = ModelServerArgs & Omit<ModelServerSettings, "canary"> & { enableWarmup: boolean };

/** Why `arg` cannot be one of `extraServerArgs`: a flag this program sets, or one TF Serving would not take. */
export function extraServerArgProblem(arg: string): string | undefined {
    const flag = arg.split("=")[0];
    const why = managedFlags().get(flag);
    return why !== undefined ? `${flag} is set by this program: ${why}` : tfServingFlagProblem(arg);
}

const TOO_MANY_PODS = "the Deployment's update timeout grows with the pods, one replaced after another, and far past 1000 it becomes a duration " +
    "Pulumi's engine cannot parse (Go's time.ParseDuration stops at 2562047h)";

const STEPS_MESSAGE = "must list 1 to 10 percents of the requests sent to the canary, ascending, each from 1 to 99 (e.g. [10, 50]); after the last step the new version takes all";

/**
 * The checked fields resolved, and every problem found, keyed by field path. `key` names another field
 * inside a message (the config layer's `autoscaling.minReplicas`; the field itself for a library user).
 */
export function resolveModelServerSettings(args: ModelServerChecked, key: (field: string) => string = (field) => field): { settings: ModelServerSettings; issues: ArgsIssue[] } {
    const issues: ArgsIssue[] = [];
    const whole: Whole = (field, value, fallback, bounds, whyAbove) => {
        if (value === undefined) {
            return fallback;
        }
        if (!Number.isSafeInteger(value) || value < bounds.min || value > bounds.max) {
            const why = whyAbove !== undefined && Number.isSafeInteger(value) && value > bounds.max ? `: ${whyAbove}` : "";
            issues.push({ field, value, message: `must be a whole number ${rangeText(bounds)}${why}` });
            return fallback;
        }
        return value;
    };
    const deliveryProblem = args.modelDelivery === undefined ? undefined : modelDeliveryProblem(args.modelDelivery);
    if (deliveryProblem !== undefined) {
        issues.push({ field: "modelDelivery", value: args.modelDelivery, message: deliveryProblem });
    }
    const modelDelivery = deliveryProblem === undefined ? (args.modelDelivery as ModelDelivery | undefined) ?? DEFAULT_MODEL_DELIVERY : DEFAULT_MODEL_DELIVERY;
    const replicas = whole("replicas", args.replicas, 2, MODEL_SERVER_BOUNDS.replicas, TOO_MANY_PODS);
    const autoscaling = args.autoscaling && resolveAutoscaling(args.autoscaling, whole, issues, key);
    const extraServerArgs = (args.extraServerArgs ?? []).filter((arg, i) => {
        const problem = typeof arg !== "string" || arg.trim() === "" ? "must be a non-empty string" : extraServerArgProblem(arg);
        if (problem !== undefined) {
            issues.push({ field: `extraServerArgs[${i}]`, value: arg, message: problem });
        }
        return problem === undefined;
    });
    const batching = { enabled: args.batching?.enabled ?? false, parametersText: args.batching?.parametersText };
    if (batching.enabled && batching.parametersText !== undefined) {
        const problem = batchingParametersProblem(batching.parametersText);
        if (problem !== undefined) {
            issues.push({ field: "batching.parametersText", value: batching.parametersText, message: problem });
        }
    }
    let canary: CanarySettings | undefined;
    if (args.canary !== undefined) {
        canary = resolveCanary(args.canary.settings, whole, issues);
        if (args.model.name.length > CANARY_NAME_MAX) {
            issues.push({
                field: "canary", value: args.model.name,
                message: `a canary runs as "${args.model.name}-canary", longer than a DNS label's 63 characters: shorten the model name to ${CANARY_NAME_MAX} characters`,
            });
        }
        const gateway = args.canary.gateway;
        const gatewayProblem = gateway === undefined ? undefined : canaryGatewayProblem(args.model.name, gateway);
        if (gatewayProblem !== undefined) {
            issues.push({ field: "canary.gateway", value: gateway?.model, message: gatewayProblem });
        }
        const hold = autoscaling === undefined ? undefined : canaryHoldProblem(canary, autoscaling.scaleDownStabilizationSeconds);
        if (hold !== undefined) {
            issues.push({ field: "canary.settings.holdSeconds", value: canary.holdSeconds, message: hold });
        }
    }
    return { settings: { modelDelivery, replicas, ...(autoscaling ? { autoscaling } : {}), extraServerArgs, batching, ...(canary ? { canary } : {}) }, issues };
}

/** A whole number within `bounds`, else an issue (with `whyAbove` when it is too large) and `fallback`. */
type Whole = (field: string, value: number | undefined, fallback: number, bounds: Bounds, whyAbove?: string) => number;

function rangeText(bounds: Bounds): string {
    return bounds.max === Number.MAX_SAFE_INTEGER ? `>= ${bounds.min}` : `from ${bounds.min} to ${bounds.max}`;
}

/** The HPA: its counts, its targets (at least one), its scale-down window (default 300 s). */
function resolveAutoscaling(a: NonNullable<ModelServerChecked["autoscaling"]>, whole: Whole, issues: ArgsIssue[], key: (field: string) => string): ModelServerSettings["autoscaling"] {
    const minReplicas = whole("autoscaling.minReplicas", a.minReplicas, 2, MODEL_SERVER_BOUNDS.replicas);
    let maxReplicas = whole("autoscaling.maxReplicas", a.maxReplicas, Math.max(minReplicas, 10), MODEL_SERVER_BOUNDS.replicas, TOO_MANY_PODS);
    if (maxReplicas < minReplicas) {
        issues.push({ field: "autoscaling.maxReplicas", value: a.maxReplicas, message: `must be >= ${key("autoscaling.minReplicas")} (${minReplicas})` });
        maxReplicas = minReplicas;
    }
    const cpu = a.targetCpuUtilization === undefined ? undefined : whole("autoscaling.targetCpuUtilization", a.targetCpuUtilization, 70, MODEL_SERVER_BOUNDS.targetCpuUtilization,
        "the CPU limit equals the request, so utilization never passes 100 %, and the HPA adds pods only when utilization is above the target by more than " +
        "its 10 % tolerance: above 90 it would never scale up (see docs/guides/autoscaling.md)");
    const rps = a.targetRequestsPerSecond === undefined ? undefined : whole("autoscaling.targetRequestsPerSecond", a.targetRequestsPerSecond, 1, MODEL_SERVER_BOUNDS.targetRequestsPerSecond);
    if (a.targetCpuUtilization === undefined && a.targetRequestsPerSecond === undefined) {
        issues.push({
            field: "autoscaling", value: a,
            message: `needs ${key("autoscaling.targetCpuUtilization")} (e.g. 70), ${key("autoscaling.targetRequestsPerSecond")} or both: the HPA needs a metric to follow (see docs/guides/autoscaling.md)`,
        });
    }
    const scaleDownStabilizationSeconds = whole("autoscaling.scaleDownStabilizationSeconds", a.scaleDownStabilizationSeconds,
        DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS, MODEL_SERVER_BOUNDS.scaleDownStabilizationSeconds);
    return {
        minReplicas, maxReplicas,
        ...(cpu !== undefined ? { targetCpuUtilization: cpu } : {}),
        ...(rps !== undefined ? { targetRequestsPerSecond: rps } : {}),
        scaleDownStabilizationSeconds,
    };
}

/** A canary's steps (ascending percents), hold, pods and gates, each checked with its bounds. */
function resolveCanary(c: CanarySettings, whole: Whole, issues: ArgsIssue[]): CanarySettings {
    const listed: unknown = c.steps;
    let steps = CANARY_DEFAULTS.steps;
    if (listed !== undefined) {
        const list = Array.isArray(listed) ? listed : [];
        const valid = Array.isArray(listed) && list.length >= 1 && list.length <= 10
            && list.every((v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 99)
            && list.every((v, i) => i === 0 || (v as number) > (list[i - 1] as number));
        if (valid) {
            steps = list as number[];
        } else {
            issues.push({ field: "canary.settings.steps", value: listed, message: STEPS_MESSAGE });
        }
    }
    const g: Partial<CanaryGates> = c.gates ?? {};
    const defaults = CANARY_DEFAULTS.gates;
    return {
        steps,
        holdSeconds: whole("canary.settings.holdSeconds", c.holdSeconds, CANARY_DEFAULTS.holdSeconds, MODEL_SERVER_BOUNDS.holdSeconds),
        replicas: whole("canary.settings.replicas", c.replicas, CANARY_DEFAULTS.replicas, MODEL_SERVER_BOUNDS.canaryReplicas),
        gates: {
            maxErrorRatio: errorRatio(g.maxErrorRatio, defaults.maxErrorRatio, issues),
            maxP99Ms: whole("canary.settings.gates.maxP99Ms", g.maxP99Ms, defaults.maxP99Ms, MODEL_SERVER_BOUNDS.maxP99Ms),
            minRequests: whole("canary.settings.gates.minRequests", g.minRequests, defaults.minRequests, MODEL_SERVER_BOUNDS.minRequests),
        },
    };
}

/**
 * `maxErrorRatio`: a fraction, failed calls over all calls. The gate fails a step when the canary's
 * ratio is above it, so 1 (all calls failing) passes everything: refused, with the reading that leads
 * there ("1" meant as 1 %) named.
 */
function errorRatio(ratio: number | undefined, fallback: number, issues: ArgsIssue[]): number {
    const field = "canary.settings.gates.maxErrorRatio";
    const { min, max } = MODEL_SERVER_BOUNDS.maxErrorRatio;
    if (ratio === undefined) {
        return fallback;
    }
    if (!Number.isFinite(ratio) || ratio < min || ratio > max) {
        issues.push({ field, value: ratio, message: `must be a number from ${min} to ${max}` });
        return fallback;
    }
    if (ratio >= 1) {
        issues.push({
            field, value: ratio,
            message: "is a fraction of the canary's calls, not a percent (0.01 = 1 %), and at 1 or more the gate passes a version whose every call fails: " +
                `set a fraction below 1, e.g. 0.01, or remove the key for the default ${fallback} (see docs/guides/canary.md#gates)`,
        });
        return fallback;
    }
    return ratio;
}

/** Why `gateway` cannot be the one a canary of `model` shifts (another model's, or made without `canary`); undefined when it can. */
function canaryGatewayProblem(model: string, gateway: Pick<ModelGateway, "model" | "canaryService">): string | undefined {
    if (gateway.model === model && gateway.canaryService === canaryName(model)) {
        return undefined;
    }
    return `is the ModelGateway of model "${gateway.model}"${gateway.canaryService === undefined ? ", made without canary: true" : ""}; ` +
        `a canary shifts the routes of its own model's gateway, which must carry ${canaryName(model)}: new ModelGateway(name, { model: "${model}", canary: true, ... }) (see docs/guides/canary.md)`;
}

/**
 * `args` resolved, or the one error naming every field `ModelServer` `name` cannot take: the model's
 * name, the checked settings, and the golden cases against the served signatures.
 */
export function resolveModelServerArgs(name: string, args: ModelServerArgs): ResolvedModelServerArgs {
    const issues: ArgsIssue[] = [];
    const nameProblem = modelNameProblem(args.model.name);
    if (nameProblem !== undefined) {
        issues.push({ field: "model.name", value: args.model.name, message: nameProblem.replace(/^model name /, "") });
    }
    const { settings, issues: found } = resolveModelServerSettings(args);
    issues.push(...found);
    issues.push(...modelArtifactIssues(settings.modelDelivery, args.modelArtifact, found.some((i) => i.field === "modelDelivery")));
    if (args.golden !== undefined) {
        issues.push(...goldenIssues(args.golden, args.model.signatures ?? []).map((message) => ({ field: "golden", value: args.golden?.file, message: `(${message})` })));
    }
    if (issues.length > 0) {
        throw argsError("ModelServer", name, issues);
    }
    const { canary, ...resolved } = settings;
    return {
        ...args,
        ...resolved,
        autoscaling: resolved.autoscaling,
        enableWarmup: args.enableWarmup ?? true,
        canary: args.canary && canary ? { ...args.canary, settings: canary } : undefined,
    };
}

/**
 * `modelArtifact` against the delivery: required with `imageVolume` and pinned by digest (the volume's
 * `IfNotPresent` would keep a node's old bytes under a moved tag), refused with `embedded` (the image
 * holds the model; an artifact beside it would be a second model). Nothing when the delivery itself was refused.
 */
function modelArtifactIssues(delivery: ModelDelivery, artifact: pulumi.Input<string> | undefined, deliveryRefused: boolean): ArgsIssue[] {
    if (deliveryRefused) {
        return [];
    }
    if (delivery === "embedded") {
        return artifact === undefined ? [] : [{
            field: "modelArtifact", value: artifact,
            message: `applies only with modelDelivery "imageVolume": the embedded image holds the model; remove it, or set modelDelivery "imageVolume" (see ${MODEL_DELIVERY_DOC})`,
        }];
    }
    if (artifact === undefined) {
        return [{
            field: "modelArtifact", value: undefined,
            message: `is required with modelDelivery "imageVolume": the model artifact pinned by digest, an imageVolume ModelImage's imageRef (see ${MODEL_DELIVERY_DOC})`,
        }];
    }
    return typeof artifact === "string" && !isDigestPinned(artifact) ? [{
        field: "modelArtifact", value: artifact,
        message: "is not pinned by digest (NAME@sha256:<64 hex>): the image volume pulls it IfNotPresent, so a node would keep the bytes it has under a tag that moved",
    }] : [];
}
