/**
 * The stack's whole configuration, read and validated once into one typed object.
 *
 * Every key is declared (type, default, description) in `Pulumi.yaml`; this module is the single
 * place that interprets them. `readConfig` never throws halfway: it collects every problem and
 * raises one `ConfigError` before any resource is registered.
 */
import * as path from "path";
import { cidrProblem } from "../contract/cidr";
import { DEFAULT_SIGNATURE } from "../contract/signature";
import { ConfigError, ConfigReader, misplacedKeyIssues } from "./configReader";
import type { ConfigIssue } from "./configReader";
import type { RulesOf } from "../components/clouds/registry";
import { CLOUDS, COLLECTORS, cloudAbout, cloudRules, cloudSdkProblem } from "../components/clouds/registry";
import type { Cloud, CloudSections, LocalSettings } from "../components/clouds/registry";
import { MODEL_SERVER_BOUNDS, ModelServerChecked, extraServerArgProblem, resolveModelServerSettings } from "../components/modelServerArgs";
import { imageReferenceProblem } from "../serving/images";
import { modelNameProblem, parseVersion, versionLabelProblem } from "../serving/modelConfig";
import { CANARY_DEFAULTS, CanarySettings, canaryPodsAtMost } from "../serving/canary";
import { planGpuCapacity } from "./gpuCapacity";
import { AlertThresholds, DEFAULT_THRESHOLDS } from "../observability/alerts";
import { THRESHOLD_BOUNDS, resolveMonitoring } from "../components/modelMonitoringArgs";
import { ENDPOINT_SECURITY_DOC, MODEL_PLACEHOLDER } from "../serving/gatewayAccess";
import { readGatewayEndpoint } from "./gateway";
import { canaryName } from "../contract/labels";
import { ENDPOINT_KINDS, SERVICE_TYPES } from "./settings";
import type { CommonConfig, ModelSettings, MonitoringSettings, ServiceSettings } from "./settings";

export type { LocalSettings };
export { CLOUDS };
export type { Cloud };
export { ENDPOINT_KINDS, SERVICE_TYPES };
export type { CommonConfig, EndpointKind, ModelSettings, MonitoringSettings, ServiceSettings, ServiceType, StackConfig } from "./settings";

/** The whole configuration; `cloud` says which section the stack has (`CloudSections`, the registry's). */
export type ServingConfig = CommonConfig & { [C in Cloud]: { cloud: C } & CloudSections[C] }[Cloud];

/** The configuration of a stack on `cloud`. */
export type ConfigFor<C extends Cloud> = Extract<ServingConfig, { cloud: C }>;

const MODEL_KEYS = [
    "signature", "versions", "versionLabels", "gpu", "gpuCount", "replicas", "baseImage", "cpu",
    "memoryRequest", "memoryLimit", "batching", "batchingParametersFile", "autoscaling", "canary",
    "extraServerArgs", "enableWarmup", "allowSignatureChange", "golden", "warmup", "modelDelivery",
] as const;

const TOP_KEYS = [
    "cloud", "namespace", "createNamespace", "serviceType", "loadBalancerSourceRanges", "publicEndpoint", "endpoint", "gateway",
    "serviceAnnotations", "modelPath", "modelName", "models", ...CLOUDS.flatMap((c) => cloudAbout(c).ownKeys), "monitoring", ...MODEL_KEYS,
];

/**
 * Why the models' GRPCRoutes could take each other's requests, or undefined: on a cluster of one's own
 * the Gateways of one class may share an address (Traefik serves them all on the same entry points),
 * and a gRPC request names its model only inside its body, so only a host per model tells them apart.
 */
function sharedAddressProblem(models: number, grpcHostname: string | undefined): string | undefined {
    if (models < 2 || grpcHostname?.includes(MODEL_PLACEHOLDER)) {
        return undefined;
    }
    return `${grpcHostname === undefined ? "required" : `must contain ${MODEL_PLACEHOLDER}`} with ${models} models behind Gateways of one class: ` +
        "their Gateways may share one address, and a gRPC request names its model only inside its body, so each model's GRPCRoute " +
        `needs a host of its own that clients send as their authority, e.g. "${MODEL_PLACEHOLDER}.grpc.example.com" (REST is routed by the model's path; ${ENDPOINT_SECURITY_DOC}#several-models)`;
}

/**
 * The issues of every value the stack would send to its cloud's provider (none for a local stack),
 * leaving out keys that already have an issue: a value refused by the config layer is reported once.
 */
function providerRuleIssues(config: ServingConfig, known: readonly ConfigIssue[]): ConfigIssue[] {
    const issues = cloudRules(config.cloud).providerIssues(config);
    return issues.filter((issue) => !known.some((k) => k.key === issue.key));
}

/**
 * Reads and validates the configuration. `all` is `pulumi.runtime.allConfig()`; `projectDir` resolves
 * relative model paths. Throws `ConfigError` listing every problem.
 */
export function readConfig(all: Record<string, string>, project: string, projectDir: string, secretKeys: ReadonlySet<string> = new Set()): ServingConfig {
    const r = ConfigReader.fromPulumi(all, project);
    r.issues.push(...misplacedKeyIssues(all, project, TOP_KEYS));
    r.rejectUnknown(TOP_KEYS);
    const cloud = r.oneOf("cloud", CLOUDS, "local");
    // The one problem that stops the reading: without its SDK a cloud's rules cannot load.
    const missingSdk = cloudSdkProblem(cloud);
    if (missingSdk !== undefined) {
        r.fail("cloud", missingSdk, cloud);
        throw new ConfigError(r.issues, project);
    }
    const rules = cloudRules(cloud);

    const endpoint = r.oneOf("endpoint", ENDPOINT_KINDS, "loadBalancer");
    const service: ServiceSettings = {
        endpoint: "loadBalancer",
        type: r.oneOf("serviceType", SERVICE_TYPES, endpoint === "gateway" ? "ClusterIP" : "LoadBalancer"),
        sourceRanges: r.stringList("loadBalancerSourceRanges", cidrProblem) ?? [],
        publicEndpoint: r.bool("publicEndpoint", false),
        annotations: r.stringMap("serviceAnnotations") ?? {},
    };
    if (endpoint === "gateway") {
        readGatewayEndpoint(r, rules.gateway, service, secretKeys.has(`${project}:gateway`));
    } else if (r.has("gateway")) {
        r.fail("gateway", "applies only with `endpoint: gateway`");
    }
    // A list whose entries were all refused is not empty: those entries' messages say what to fix.
    if (endpoint === "loadBalancer" && service.type === "LoadBalancer" && (r.listLength("loadBalancerSourceRanges") ?? 0) === 0 && !service.publicEndpoint) {
        r.fail("loadBalancerSourceRanges",
            "a LoadBalancer needs the CIDRs allowed to reach it (`pulumi config set --path 'loadBalancerSourceRanges[0]' 203.0.113.0/24`), " +
            "or `pulumi config set publicEndpoint true` to open it to every address on purpose", []);
    }

    const models = readModels(r, projectDir);
    const generic = service.gateway?.platform === "generic" ? service.gateway : undefined;
    const shared = generic === undefined ? undefined : sharedAddressProblem(models.length, generic.grpcHostname);
    if (shared !== undefined) {
        r.nested("gateway")?.fail("grpcHostname", shared, generic?.grpcHostname);
    }
    const common: CommonConfig = {
        projectDir,
        namespace: r.dnsLabel("namespace", "tf-serving"),
        createNamespace: r.bool("createNamespace", true),
        service,
        models,
        monitoring: readMonitoring(r, cloud, rules),
    };

    for (const owner of CLOUDS.filter((c) => c !== cloud)) {
        const owned = cloudAbout(owner);
        // An existing cluster's keys (kubeconfig, registry) on a cloud whose stack creates its own: say what it uses instead.
        const instead = cloudAbout(cloud).createsInstead !== undefined && owned.createsInstead === undefined ? `; ${cloudAbout(cloud).createsInstead}` : "";
        owned.ownKeys.filter((key) => r.has(key)).forEach((key) => r.fail(key, `applies only to cloud "${owner}"${instead}`));
    }
    const config = { ...common, ...rules.readSection(r, projectDir) } as ServingConfig;

    for (const m of models.filter((model) => model.canary !== undefined && service.endpoint !== "gateway")) {
        r.issues.push({
            key: m.configKey("canary"), value: "set",
            expected: "needs `endpoint: gateway`: a canary moves a share of the requests, which only the Gateway's weighted routes split per request; " +
                "a LoadBalancer splits connections (one gRPC channel would reach the canary for all or none of its calls). Set endpoint: gateway (docs/guides/canary.md#what-it-is-not), or remove canary",
        });
    }
    const gpuModels = models.filter((m) => m.gpu);
    r.issues.push(...rules.configIssues(config, models));
    const pool = rules.gpuPool(config);
    if (pool !== undefined && pool.gpusPerNode >= 1 && gpuModels.length > 0) {
        const plan = planGpuCapacity(pool, gpuModels.map((m) => ({
            name: m.name,
            pods: m.autoscaling?.maxReplicas ?? m.replicas,
            podsKey: m.autoscaling ? `${m.configKey("autoscaling")}.maxReplicas` : m.configKey("replicas"),
            // The canary's pods run beside the serving ones, each on a GPU of its own, as many at its last step as its weight needs.
            ...(m.canary ? { canaryPods: canaryPodsAtMost(m.canary, m.autoscaling?.maxReplicas ?? m.replicas), canaryPodsKey: `${m.configKey("canary")}.replicas and .steps` } : {}),
            gpuCount: m.gpuCount,
            gpuCountKey: m.configKey("gpuCount"),
        })));
        r.issues.push(...plan.issues);
        gpuModels.forEach((m) => { m.rollout = plan.rollouts[m.name]; });
    }

    // What the cloud's provider would refuse, named by the key behind it (`providerRules.ts`).
    r.issues.push(...providerRuleIssues(config, r.issues));
    if (r.issues.length > 0) {
        throw new ConfigError(r.issues, project);
    }
    return config;
}

function readModels(top: ConfigReader, projectDir: string): ModelSettings[] {
    const list = top.nestedList("models");
    if (list === undefined || top.listLength("models") === 0) {
        if (list !== undefined) {
            top.fail("models", "must list at least one model, or be removed to use modelPath");
        }
        const modelPath = top.required("modelPath", "the model base folder, e.g. `pulumi config set modelPath ./models/half_plus_two`");
        const fallbackName = path.basename(modelPath || "model").toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
        const name = top.dnsLabel("modelName", top.has("modelName") ? "model" : fallbackName || "model");
        if (!top.has("modelName") && modelNameProblem(name)) {
            top.fail("modelName", `not set, and the folder name "${path.basename(modelPath)}" does not make a DNS label; set modelName (e.g. "my-model")`, undefined);
        }
        return [readModel(top, top, name, path.resolve(projectDir, modelPath), (k) => (k === "path" ? "modelPath" : k), projectDir)];
    }
    if (top.has("modelPath") || top.has("modelName")) {
        top.fail(top.has("modelPath") ? "modelPath" : "modelName", "use either modelPath/modelName (one model) or models (several), not both");
    }
    const models = list.map((m, i) => {
        m.rejectUnknown(["name", "path", ...MODEL_KEYS]);
        const name = m.dnsLabel("name") ?? (m.fail("name", "required: a DNS label naming this model", undefined), "model");
        const modelPath = m.required("path", "the model base folder");
        return readModel(m, top, name, path.resolve(projectDir, modelPath), (k) => (m.has(k) || k === "path" ? `models[${i}].${k}` : k), projectDir);
    });
    const seen = new Set<string>();
    models.forEach((m, i) => {
        if (seen.has(m.name)) {
            top.issues.push({ key: `models[${i}].name`, value: m.name, expected: "must be unique among models" });
        }
        seen.add(m.name);
    });
    models.forEach((m, i) => {
        const owner = models.find((other) => other.canary !== undefined && canaryName(other.name) === m.name);
        if (owner !== undefined) {
            top.issues.push({ key: `models[${i}].name`, value: m.name,
                expected: `is the name of model "${owner.name}"'s canary (its Deployment and Service are "${m.name}"), so a canary release of "${owner.name}" would replace and then delete this model's: ` +
                    `rename this model (not ending in "-canary"), or remove ${owner.configKey("canary")} (see docs/guides/canary.md#how-a-release-runs)` });
        }
    });
    return models;
}

/** Reads one model's settings from `r`, falling back to the top-level keys in `defaults`. */
function readModel(r: ConfigReader, defaults: ConfigReader, name: string, modelPath: string, configKey: ModelSettings["configKey"], projectDir: string): ModelSettings {
    const src = (key: string) => (r.has(key) ? r : defaults);
    const gpu = src("gpu").bool("gpu", false);
    // 1 is Pulumi.yaml's default, so only another value shows that gpuCount was set without gpu.
    const requestedGpus = src("gpuCount").int("gpuCount", 1, { min: 0, max: 16 });
    if (!gpu && requestedGpus !== 1) {
        src("gpuCount").fail("gpuCount", "is set but gpu is false; set gpu: true to serve on GPU nodes, or remove gpuCount");
    }
    if (gpu && requestedGpus === 0) {
        src("gpuCount").fail("gpuCount", "is 0 with gpu: true, but a GPU pod needs at least one nvidia.com/gpu: set gpuCount to 1 (the default) or more, or gpu: false to serve on CPU");
    }
    const gpuCount = gpu ? Math.max(1, requestedGpus) : 0;
    const listed = src("versions").list("versions");
    const versions = listed?.length ? listed : undefined;
    const servedVersions = versions?.flatMap((v, i) => {
        const parsed = parseVersion(v);
        if ("problem" in parsed) {
            src("versions").issues.push({ key: src("versions").key(`versions[${i}]`), value: v, expected: parsed.problem });
            return [];
        }
        return [parsed.version];
    });

    const labels: Record<string, number> = {};
    for (const [label, v] of Object.entries(src("versionLabels").stringMap("versionLabels") ?? {})) {
        const key = src("versionLabels").key(`versionLabels.${label}`);
        const labelProblem = versionLabelProblem(label);
        if (labelProblem) {
            r.issues.push({ key, value: label, expected: labelProblem });
        } else if (!/^[0-9]+$/.test(v) || (servedVersions !== undefined && !servedVersions.includes(Number(v)))) {
            r.issues.push({ key, value: v, expected: `must be a served version number${servedVersions ? ` (one of ${servedVersions.join(", ")})` : "; labels need an explicit versions list"}` });
        } else {
            labels[label] = Number(v);
        }
    }
    if (Object.keys(labels).length > 0 && servedVersions === undefined) {
        src("versionLabels").fail("versionLabels", "labels need an explicit `versions` list naming the versions they point at");
    }

    const { modelDelivery, replicas, autoscaling, canary, extraServerArgs } = readServerSettings(src, name);

    const baseImage = src("baseImage").string("baseImage");
    const imageProblem = baseImage === undefined ? undefined : imageReferenceProblem(baseImage);
    if (imageProblem) {
        src("baseImage").fail("baseImage", imageProblem);
    }
    const batchingFile = src("batchingParametersFile").string("batchingParametersFile");
    const golden = src("golden").string("golden");
    const warmup = src("warmup").string("warmup");
    if (warmup !== undefined && warmup !== "golden") {
        src("warmup").fail("warmup", `must be "golden" (generate the warmup file from the golden cases at the image build), or be left out to use the model folder's own (see docs/guides/model-contract.md#warmup-records)`);
    } else if (warmup === "golden" && golden === undefined) {
        src("warmup").fail("warmup", `is "golden", but the model has no golden file: set ${configKey("golden")} to a golden file, or leave warmup out (see docs/guides/model-contract.md#warmup-records)`);
    }
    return {
        name,
        path: modelPath,
        signature: src("signature").string("signature", DEFAULT_SIGNATURE),
        versions: servedVersions,
        versionLabels: labels,
        gpu,
        gpuCount,
        replicas,
        rollout: "surge",
        baseImage: imageProblem ? undefined : baseImage,
        resources: {
            cpu: src("cpu").quantity("cpu", "cpu"),
            memoryRequest: src("memoryRequest").quantity("memoryRequest", "memory"),
            memoryLimit: src("memoryLimit").quantity("memoryLimit", "memory"),
        },
        batching: {
            // A parameters file turns batching on: Pulumi.yaml's default `batching: false` reaches the
            // program as a value, indistinguishable from one the user wrote, so it cannot decide.
            enabled: batchingFile !== undefined || src("batching").bool("batching", false),
            parametersFile: batchingFile,
        },
        autoscaling,
        canary,
        extraServerArgs,
        enableWarmup: src("enableWarmup").bool("enableWarmup", true),
        allowSignatureChange: src("allowSignatureChange").bool("allowSignatureChange", false),
        golden: golden === undefined ? undefined : { path: path.resolve(projectDir, golden), asWritten: golden },
        warmup: warmup === "golden" && golden !== undefined ? "golden" : undefined,
        modelDelivery,
        configKey,
    };
}

/**
 * A model's `modelDelivery`, `replicas`, `autoscaling`, `canary` and `extraServerArgs`, read as written and
 * checked by `ModelServer`'s own resolver (`components/modelServerArgs.ts`), whose issues are recorded here
 * under the keys behind them: `autoscaling.maxReplicas`, `canary.steps`, `models[1].canary.gates.maxErrorRatio`.
 */
function readServerSettings(src: (key: string) => ConfigReader, model: string): Pick<ModelSettings, "modelDelivery" | "replicas" | "autoscaling" | "canary" | "extraServerArgs"> {
    const autoscalingReader = src("autoscaling").nested("autoscaling");
    const canaryRead = readCanary(src("canary"));
    const extraServerArgs = src("extraServerArgs").stringList("extraServerArgs", extraServerArgProblem) ?? [];
    const args: ModelServerChecked = {
        model: { name: model },
        modelDelivery: src("modelDelivery").string("modelDelivery"),
        replicas: src("replicas").int("replicas", 2, MODEL_SERVER_BOUNDS.replicas, false),
        autoscaling: autoscalingReader && readAutoscaling(autoscalingReader),
        extraServerArgs,
        canary: canaryRead && { settings: canaryRead.settings },
    };
    /** The reader and the key name a resolver field is written under. */
    const at = (field: string): [ConfigReader, string] => {
        const [head, ...rest] = field.split(".");
        if (head === "autoscaling" && rest.length > 0 && autoscalingReader) {
            return [autoscalingReader, rest.join(".")];
        }
        if (head === "canary" && rest[0] === "settings" && canaryRead) {
            const inner = rest.slice(1);
            return inner[0] === "gates" && canaryRead.gates ? [canaryRead.gates, inner.slice(1).join(".")] : [canaryRead.reader, inner.join(".")];
        }
        return [src(head), field];
    };
    const { settings, issues } = resolveModelServerSettings(args, (field) => {
        const [reader, name] = at(field);
        return reader.key(name);
    });
    for (const issue of issues) {
        const [reader, name] = at(issue.field);
        reader.fail(name, issue.message);
    }
    return { modelDelivery: settings.modelDelivery, replicas: settings.replicas, autoscaling: settings.autoscaling, canary: settings.canary, extraServerArgs };
}

/** `canary`: steps, the hold, the canary's pods and the gates, as written (the resolver checks them); its readers, for the resolver's issues. */
function readCanary(r: ConfigReader): { settings: CanarySettings; reader: ConfigReader; gates?: ConfigReader } | undefined {
    const c = r.nested("canary");
    if (c === undefined) {
        return undefined;
    }
    c.rejectUnknown(["steps", "holdSeconds", "replicas", "gates"]);
    const g = c.nested("gates");
    g?.rejectUnknown(["maxErrorRatio", "maxP99Ms", "minRequests"]);
    const defaults = CANARY_DEFAULTS.gates;
    const bounds = MODEL_SERVER_BOUNDS;
    return {
        reader: c,
        gates: g,
        settings: {
            steps: (c.list("steps") ?? CANARY_DEFAULTS.steps) as number[],
            holdSeconds: c.int("holdSeconds", CANARY_DEFAULTS.holdSeconds, bounds.holdSeconds, false),
            replicas: c.int("replicas", CANARY_DEFAULTS.replicas, bounds.canaryReplicas, false),
            gates: {
                maxErrorRatio: g?.number("maxErrorRatio", defaults.maxErrorRatio, bounds.maxErrorRatio, false) ?? defaults.maxErrorRatio,
                maxP99Ms: g?.int("maxP99Ms", defaults.maxP99Ms, bounds.maxP99Ms, false) ?? defaults.maxP99Ms,
                minRequests: g?.int("minRequests", defaults.minRequests, bounds.minRequests, false) ?? defaults.minRequests,
            },
        },
    };
}

/**
 * `autoscaling`: the HPA's bounds and targets, as written (the resolver checks them). Without either
 * target the HPA is on CPU at 70 %, as it always was; a request-rate target alone leaves CPU out (a
 * batching or GPU server is full long before its CPU is); both make the HPA follow whichever asks for
 * more pods. The counts default in the resolver (2, and 10 or `minReplicas`).
 */
function readAutoscaling(r: ConfigReader): NonNullable<ModelServerChecked["autoscaling"]> {
    r.rejectUnknown(["minReplicas", "maxReplicas", "targetCpuUtilization", "targetRequestsPerSecond", "scaleDownStabilizationSeconds"]);
    const bounds = MODEL_SERVER_BOUNDS;
    const targetRequestsPerSecond = r.int("targetRequestsPerSecond", undefined, { min: bounds.targetRequestsPerSecond.min }, false);
    const targetCpuUtilization = targetRequestsPerSecond === undefined
        ? r.int("targetCpuUtilization", 70, bounds.targetCpuUtilization, false)
        : r.int("targetCpuUtilization", undefined, bounds.targetCpuUtilization, false);
    return {
        minReplicas: r.int("minReplicas", undefined, bounds.replicas, false),
        maxReplicas: r.int("maxReplicas", undefined, bounds.replicas, false),
        ...(targetCpuUtilization !== undefined ? { targetCpuUtilization } : {}),
        ...(targetRequestsPerSecond !== undefined ? { targetRequestsPerSecond } : {}),
        scaleDownStabilizationSeconds: r.int("scaleDownStabilizationSeconds", undefined, bounds.scaleDownStabilizationSeconds, false),
    };
}

function readMonitoring(top: ConfigReader, cloud: Cloud, rules: RulesOf<Cloud>): MonitoringSettings {
    const fallback = rules.defaultCollector;
    const r = top.nested("monitoring");
    if (r === undefined) {
        return { collector: fallback, thresholds: { ...DEFAULT_THRESHOLDS }, labels: {} };
    }
    r.rejectUnknown(["collector", "labels", ...Object.keys(THRESHOLD_BOUNDS)]);
    const choices = COLLECTORS.map((c) => `"${c}"`).join(", ");
    if (r.isEmptyString("collector")) {
        // Unlike Pulumi.yaml's "" (no default), an empty string inside the object is written by the user: it would silently mean the default.
        r.fail("collector", `is empty: name one of ${choices}, or remove the key for the default ("${fallback}" on cloud ${cloud})`);
    }
    let collector = r.oneOf("collector", COLLECTORS, fallback);
    const refused = rules.collectorProblem(collector);
    if (refused !== undefined) {
        r.fail("collector", refused);
        collector = fallback;
    }
    // Each threshold as written; `resolveMonitoring` (ModelMonitoring's) checks them and the labels, recorded under these keys.
    const given = Object.fromEntries(Object.keys(THRESHOLD_BOUNDS).flatMap((name) => {
        const value = r.int(name, undefined);
        return value === undefined ? [] : [[name, value]];
    })) as Partial<AlertThresholds>;
    if (collector === "none") {
        for (const key of Object.keys(THRESHOLD_BOUNDS).filter((k) => r.has(k))) {
            r.fail(key, "does nothing with monitoring.collector \"none\" (no alert rules are created): remove it, or choose a collector that evaluates the rules");
        }
    }
    const resolved = resolveMonitoring({ collector, thresholds: given, labels: r.stringMap("labels") ?? {} }, (field) => r.key(field));
    const already = new Set(r.issues.map((i) => i.key));
    for (const issue of resolved.issues) {
        const key = r.key(issue.field.replace(/^thresholds\./, ""));
        if (!already.has(key)) {
            r.issues.push({ key, value: issue.value, expected: issue.message });
        }
    }
    return { collector, thresholds: resolved.thresholds, labels: resolved.labels };
}
