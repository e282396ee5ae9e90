/**
 * Everything checked before a single resource is registered, in the order every entry point runs
 * it (the program under `pulumi up`, `tfs plan`, `tfs deploy`): the configuration, the credentials,
 * and each model's preflight (is it a SavedModel TF Serving can load?), its sizing against the
 * configured overrides, and the files config points at. A failure here stops the preview with a
 * message naming the key and the path.
 */
import * as fs from "fs";
import { ModelSettings, ServingConfig, readConfig } from "../config/config";
import { credentialProblems } from "../config/credentials";
import { ConfigError } from "../config/configReader";
import { ignoredStackFileKeys } from "../config/stackFile";
import { preflight } from "../model/savedModel";
import { GoldenError, GoldenSource, goldenIssues, parseGolden, readGoldenSource } from "../contract/golden";
import { warmupFilesFor, warmupSourcesOf } from "../model/stagedWarmup";
import { WarmupSource } from "../model/warmup";
import { modelServerSizing } from "../components/modelServer";
import { resolveModelServerSettings } from "../components/modelServerArgs";
import { SizingError, cpuCores, memoryBytes } from "../serving/sizing";
import { defaultBaseImage } from "../serving/images";
import { canaryPodsAtMost } from "../serving/canary";
import { PoolDemand, nodeFitProblems, poolCapacityProblem } from "../config/nodeFit";
import { cpuPoolSizeOf, poolNodeOf, uncheckedNodeWarnings } from "../config/poolNodes";
import { cloudRules } from "../components/clouds/registry";
import { PreparedModel, serverModelInputs } from "./deploy";

/** How a stack is run. */
export interface LifecycleOptions {
    /** `tfs plan`: nothing outside the machine is needed, so no credentials are checked and no cloud is asked anything. */
    offline: boolean;
}

/** A stack's configuration as the engine hands it to the program. */
export interface StackInput {
    project: string;
    /** Full `project:key` names to string values (structured values as JSON text), as `pulumi.runtime.allConfig()` gives them. */
    config: Record<string, string>;
    /** The project root: relative paths in config start here. */
    projectDir: string;
    /** The stack's name, when known: its `Pulumi.<stack>.yaml` is read for keys Pulumi ignores. */
    stack?: string;
    /** The full names of the keys that hold a secret (the engine's `PULUMI_CONFIG_SECRET_KEYS`). */
    secretKeys?: readonly string[];
}

export interface PreparedStack {
    config: ServingConfig;
    models: PreparedModel[];
    /** Preflight warnings, for the caller to log. */
    warnings: string[];
}

/** Validates the configuration, checks credentials (unless offline), preflights and sizes every model. */
export function prepareStack(input: StackInput, options: LifecycleOptions): PreparedStack {
    const ignored = input.stack === undefined ? [] : ignoredStackFileKeys(input.projectDir, input.stack, input.project);
    let config: ServingConfig;
    try {
        config = readConfig(input.config, input.project, input.projectDir, new Set(input.secretKeys ?? []));
    } catch (err) {
        throw err instanceof ConfigError && ignored.length > 0 ? new ConfigError([...ignored, ...err.issues], input.project) : err;
    }
    if (ignored.length > 0) {
        throw new ConfigError(ignored, input.project);
    }
    const missing = options.offline ? [] : credentialProblems(config);
    if (missing.length > 0) {
        throw new PreparationError(missing);
    }
    return { config, ...prepareModels(config, input.project) };
}

/** Problems that stop the program before any resource is registered. */
export class PreparationError extends Error {
    constructor(readonly problems: string[]) {
        super(`the stack cannot be deployed (${problems.length} ${problems.length === 1 ? "problem" : "problems"}):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
        this.name = "PreparationError";
    }
}

export interface Prepared {
    models: PreparedModel[];
    /** Preflight warnings, for the program to log. */
    warnings: string[];
}

/** `today` (UTC, YYYY-MM-DD) dates the cloud's version support; tests pass their own. */
export function prepareModels(config: ServingConfig, project: string, today?: string): Prepared {
    const problems: string[] = [];
    const warnings: string[] = [];
    const cpuDemand: PoolDemand[] = [];
    const models = config.models.flatMap((settings) => {
        const key = (k: Parameters<ModelSettings["configKey"]>[0]) => `${project}:${settings.configKey(k)}`;
        const report = preflight(settings.path, {
            signature: settings.signature,
            versions: settings.versions,
            baseImage: settings.baseImage ?? defaultBaseImage(settings.gpu),
            settings: {
                signature: (v) => `${key("signature")}: ${v}`,
                tags: (v) => `TF Serving's default --saved_model_tags=${v}`,
                baseImage: (v) => `${key("baseImage")}: ${v}`,
            },
        });
        warnings.push(...report.warnings.map((w) => `model "${settings.name}": ${w.message}`));
        if (!report.ok) {
            problems.push(...report.errors.map((e) => `${key("path")} (${settings.path}): ${e.message}`));
            return [];
        }
        let batchingParameters: string | undefined;
        if (settings.batching.parametersFile !== undefined) {
            try {
                batchingParameters = fs.readFileSync(settings.batching.parametersFile, "utf8");
                // ModelServer's own check (`components/modelServerArgs.ts`), named here by the key.
                const unparsed = resolveModelServerSettings({ model: { name: settings.name }, batching: { enabled: true, parametersText: batchingParameters } })
                    .issues.filter((i) => i.field === "batching.parametersText");
                problems.push(...unparsed.map((i) => `${key("batchingParametersFile")} = ${settings.batching.parametersFile}: ${i.message}`));
            } catch (err) {
                problems.push(`${key("batchingParametersFile")} = ${settings.batching.parametersFile}: cannot read it (${(err as NodeJS.ErrnoException).code ?? err}); point it at a batching_parameters text proto file`);
            }
        }
        let golden: GoldenSource | undefined;
        let warmup: WarmupSource[] | undefined;
        if (settings.golden !== undefined) {
            try {
                golden = readGoldenSource(settings.golden.path, settings.golden.asWritten);
                const served = report.versions.filter((v) => report.servedVersions.includes(v.version)).map((v) => v.signatures);
                const issues = goldenIssues(golden, served);
                problems.push(...issues.map((p) => `${key("golden")}: ${p}`));
                if (settings.warmup === "golden" && issues.length === 0) {
                    // The staging's own check, here so that the message names the key at preview.
                    warmup = warmupSourcesOf(parseGolden(golden.text, golden.file), golden.file);
                    problems.push(...warmupFilesFor(report, warmup, settings.name).problems.map((p) => `${key("warmup")}: ${p} (see docs/guides/model-contract.md#warmup-records)`));
                }
            } catch (err) {
                if (!(err instanceof GoldenError)) {
                    throw err;
                }
                problems.push(`${key("golden")}: ${err.message}`);
            }
        }
        try {
            const sizing = modelServerSizing(serverModelInputs(settings, report, batchingParameters, warmup));
            const node = poolNodeOf(config, settings.gpu);
            const requests = {
                model: settings.name,
                cpu: sizing.cpu, cpuMillis: cpuCores(sizing.cpu) * 1000, cpuKey: key("cpu"),
                memoryRequest: sizing.memoryRequest, memoryBytes: memoryBytes(sizing.memoryRequest, "memoryRequest"), memoryKey: key("memoryRequest"),
            };
            const unfit = node === undefined ? [] : nodeFitProblems(requests, { ...node, key: `${project}:${node.key}` });
            if (unfit.length > 0) {
                problems.push(...unfit.map((p) => `${p.key}: ${p.message}`));
                return [];
            }
            if (!settings.gpu) {
                cpuDemand.push({
                    requests,
                    pods: settings.autoscaling?.maxReplicas ?? settings.replicas,
                    podsKey: settings.autoscaling ? `${key("autoscaling")}.maxReplicas` : key("replicas"),
                    // As many canary pods as its last step's weight needs beside the serving pods (serving/canary.ts).
                    canaryPods: settings.canary ? canaryPodsAtMost(settings.canary, settings.autoscaling?.maxReplicas ?? settings.replicas) : 0,
                    canaryPodsKey: `${key("canary")}.replicas and .steps`,
                });
            }
            if (settings.rollout === "oneAtATime" && (settings.autoscaling?.minReplicas ?? settings.replicas) === 1) {
                warnings.push(`model "${settings.name}": the GPU pool has no GPU to spare for an extra pod, so a rollout stops the only replica `
                    + `before its replacement loads: every model update is an outage of up to ${sizing.startupBudgetSeconds} s (the startup budget) `
                    + `plus the pod's start. Give the pool ${settings.gpuCount} more GPU(s) for a surge pod, or run 2 replicas so one keeps serving while the other is replaced (docs/concepts/model-server.md#gpu-capacity).`);
            }
            return [{ settings, report, sizing, batchingParameters, golden, warmup }];
        } catch (err) {
            if (err instanceof SizingError) {
                problems.push(`${key(err.key)}: ${err.message}`);
                return [];
            }
            throw err;
        }
    });
    const cpuNode = poolNodeOf(config, false);
    const cpuPool = cpuPoolSizeOf(config);
    const crowded = cpuNode && cpuPool && problems.length === 0 && cpuDemand.length > 0
        ? poolCapacityProblem(cpuDemand, { ...cpuNode, key: `${project}:${cpuNode.key}` }, { ...cpuPool, nodesKey: `${project}:${cpuPool.nodesKey}` })
        : undefined;
    if (crowded !== undefined) {
        problems.push(`${crowded.key}: ${crowded.message}`);
    }
    if (problems.length > 0) {
        throw new PreparationError(problems);
    }
    warnings.push(...uncheckedNodeWarnings(config, project));
    warnings.push(...cloudRules(config.cloud).warnings(config, project, today));
    return { models, warnings };
}
