/**
 * Stack updates from CI, through the Automation API: preflight, preview with the policy pack,
 * update, smoke test. Each step is timed and named; the first failure stops the run and is the
 * one the summary (and the exit code) reports. The stack's configuration comes from the engine
 * (`getAllConfig`), so ESC environments and any secrets provider give the values the update will see.
 */
import * as fs from "fs";
import * as path from "path";
import { CommandError, LocalWorkspace, LocalWorkspaceOptions, Stack } from "@pulumi/pulumi/automation";
import { ConfigError } from "../config/configReader";
import { PreparationError, StackInput, prepareStack } from "../stacks/prepare";
import { PULUMI_CLI_FIX, engineAdvice, engineFailure, engineReason, isPulumiCliMissing } from "./pulumiCli";
import { EndpointCredential } from "./endpointCredential";
import { endpointFromStackOutputs, smoke, SmokeReport } from "./smoke";

export type StepName = "preflight" | "preview" | "update" | "smoke";

export interface StepResult {
    step: StepName;
    ok: boolean;
    seconds: number;
    /** One line: what happened, or why it failed. */
    detail: string;
}

export interface DeploySummary {
    stack: string;
    ok: boolean;
    /** The step that failed, if any. */
    failedStep?: StepName;
    steps: StepResult[];
    /** Resource changes the preview (or update) reported, by operation. */
    changes?: Record<string, number>;
    outputs?: Record<string, unknown>;
    smoke?: Pick<SmokeReport, "outcome" | "message" | "latencyMs" | "answer">;
}

export interface DeployOptions {
    projectDir: string;
    stack: string;
    previewOnly: boolean;
    /** Policy pack folder run with preview and update; default `<project>/policy`. */
    policyPack?: string;
    /** Seconds the smoke test waits for AVAILABLE. */
    smokeTimeoutSeconds?: number;
    /** Sent with every request of the smoke step (an endpoint with caller authentication); never printed. */
    credential?: EndpointCredential;
    /** Engine output lines (the preview diff, the update's progress). */
    onOutput?: (line: string) => void;
    /** One line per step as it starts and ends. */
    onStep?: (line: string) => void;
    /** How the stack is selected; default the Automation API's local workspace (tests pass their own). */
    selectStack?: (args: { stackName: string; workDir: string }, opts?: LocalWorkspaceOptions) => Promise<Stack>;
}

/** A failed step's message; the step name travels with it. */
class StepFailure extends Error {}

async function timed(results: StepResult[], step: StepName, onStep: (l: string) => void, body: () => Promise<string>): Promise<void> {
    onStep(`▶ ${step}`);
    const start = Date.now();
    try {
        const detail = await body();
        results.push({ step, ok: true, seconds: (Date.now() - start) / 1000, detail });
        onStep(`✔ ${step} (${((Date.now() - start) / 1000).toFixed(1)} s): ${detail}`);
    } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        results.push({ step, ok: false, seconds: (Date.now() - start) / 1000, detail });
        onStep(`✘ ${step}: ${detail}`);
        throw new StepFailure(detail);
    }
}

/** Checks the stack's config, credentials and models, exactly as the program will at preview. */
export function preflightStack(input: StackInput): string {
    try {
        const { models, warnings } = prepareStack(input, { offline: false });
        const names = models.map((m) => `${m.settings.name} v${m.report.servedVersions.join(",")}`).join("; ");
        return `${models.length} model(s) servable (${names})${warnings.length ? `, ${warnings.length} warning(s)` : ""}`;
    } catch (err) {
        if (err instanceof ConfigError || err instanceof PreparationError) {
            throw new Error(err.message);
        }
        throw err;
    }
}

/** The stack's configuration as the engine hands it to the program: `project:key` to string values. */
async function engineConfig(stack: Stack, projectDir: string): Promise<StackInput> {
    const project = (await stack.workspace.projectSettings()).name;
    const all = Object.entries(await stack.getAllConfig());
    const config = Object.fromEntries(all.map(([key, item]) => [key, item.value]));
    return { project, config, projectDir, stack: stack.name, secretKeys: all.filter(([, item]) => item.secret).map(([key]) => key) };
}

export async function ciDeploy(options: DeployOptions): Promise<DeploySummary> {
    const steps: StepResult[] = [];
    const onStep = options.onStep ?? (() => undefined);
    const onOutput = options.onOutput ?? (() => undefined);
    const policyPack = options.policyPack ?? path.join(options.projectDir, "policy");
    const policyPacks = fs.existsSync(path.join(policyPack, "PulumiPolicy.yaml")) ? [policyPack] : [];
    const summary: DeploySummary = { stack: options.stack, ok: false, steps };
    const selectStack = options.selectStack ?? ((args) => LocalWorkspace.selectStack(args));
    let stack: Stack | undefined;
    try {
        await timed(steps, "preflight", onStep, async () => {
            stack = await selectStack({ stackName: options.stack, workDir: options.projectDir }).catch((err) => {
                throw new Error(isPulumiCliMissing(err)
                    ? `tfs deploy runs the Pulumi CLI, which is not on PATH: ${PULUMI_CLI_FIX}`
                    : `cannot select stack "${options.stack}" in ${options.projectDir}: ${engineReason(err)} (${engineAdvice(err, options.stack) ?? "pulumi stack ls shows the stacks"})`);
            });
            const input = await engineConfig(stack, options.projectDir).catch((err) => {
                throw new Error(`cannot read stack "${options.stack}"'s configuration: ${engineFailure(err, options.stack)}`);
            });
            return preflightStack(input);
        });
        await timed(steps, "preview", onStep, async () => {
            const preview = await stack!.preview({ policyPacks, diff: true, onOutput }).catch((err) => { throw engineError(err, options.stack); });
            summary.changes = preview.changeSummary;
            return describeChanges(preview.changeSummary);
        });
        if (options.previewOnly) {
            summary.ok = true;
            return summary;
        }
        await timed(steps, "update", onStep, async () => {
            const up = await stack!.up({ policyPacks, onOutput }).catch((err) => { throw engineError(err, options.stack); });
            summary.changes = up.summary.resourceChanges;
            summary.outputs = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.secret ? "[secret]" : v.value]));
            if (up.summary.result !== "succeeded") {
                throw new Error(`update ${up.summary.result}`);
            }
            return describeChanges(up.summary.resourceChanges);
        });
        await timed(steps, "smoke", onStep, async () => {
            const outputs = await stack!.outputs();
            const endpoint = endpointFromStackOutputs(outputs, options.stack);
            const report = await smoke({
                restUrl: endpoint.restUrl,
                model: endpoint.model ?? "",
                timeoutMs: (options.smokeTimeoutSeconds ?? 300) * 1000,
                credential: options.credential,
                onProgress: onOutput,
            });
            summary.smoke = { outcome: report.outcome, message: report.message, latencyMs: report.latencyMs, answer: report.answer };
            if (report.outcome !== "ok") {
                throw new Error(`${report.outcome}: ${report.message}`);
            }
            return `${report.message}${report.latencyMs !== undefined ? ` (${report.latencyMs} ms)` : ""}`;
        });
        summary.ok = true;
    } catch (err) {
        if (!(err instanceof StepFailure)) {
            throw err;
        }
        summary.failedStep = steps.find((s) => !s.ok)?.step;
    }
    return summary;
}

/** A failed Pulumi command as one line: the CLI's own error and what to do (its whole output went to `onOutput` already). */
function engineError(err: unknown, stack: string): Error {
    const failed = err instanceof CommandError || /^code: -?[0-9]+\n stdout: /.test(String((err as Error)?.message));
    return failed ? new Error(engineFailure(err, stack)) : (err as Error);
}

function describeChanges(changes: Record<string, number> | undefined): string {
    const parts = Object.entries(changes ?? {}).filter(([, n]) => n > 0).map(([op, n]) => `${n} ${op}`);
    return parts.length ? parts.join(", ") : "no changes";
}

/** The summary as Markdown, for a CI job summary (`$GITHUB_STEP_SUMMARY`). */
export function summaryMarkdown(summary: DeploySummary, diff?: string): string {
    const lines = [
        `### tf-serving: stack \`${summary.stack}\` ${summary.ok ? "✅" : `❌ failed at **${summary.failedStep}**`}`,
        "",
        "| step | result | seconds | detail |",
        "| --- | --- | ---: | --- |",
        ...summary.steps.map((s) => `| ${s.step} | ${s.ok ? "ok" : "failed"} | ${s.seconds.toFixed(1)} | ${s.detail.replace(/\|/g, "\\|").replace(/\n/g, "<br>")} |`),
    ];
    if (diff) {
        lines.push("", "<details><summary>Preview diff</summary>", "", "```diff", diff.trimEnd(), "```", "", "</details>");
    }
    return lines.join("\n") + "\n";
}
