/**
 * Runs the commands a user runs (`pulumi`, `tfs`) as child processes, the way the docs tell them
 * to: in the project folder, with the environment's variables. Each run is bounded, and its whole
 * process group is killed when it overruns or when the test process exits, pass or fail.
 */
import { spawn } from "child_process";
import * as path from "path";

export interface CliResult {
    code: number;
    stdout: string;
    stderr: string;
    seconds: number;
}

const running = new Set<number>();
process.on("exit", () => {
    for (const pid of running) {
        try {
            process.kill(-pid, "SIGKILL");
        } catch {
            // already gone
        }
    }
});

/** Runs `command args` in `cwd`; resolves with its exit code and output (never rejects on a non-zero exit). */
export function runCli(command: string, args: string[], options: { cwd: string; timeoutMs?: number; env?: Record<string, string>; onSpawn?: (pid: number) => void }): Promise<CliResult> {
    const t0 = Date.now();
    return new Promise((resolve, reject) => {
        const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
        const pid = child.pid;
        if (pid !== undefined) {
            running.add(pid);
            options.onSpawn?.(pid);
        }
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => { stdout += d; });
        child.stderr.setEncoding("utf8").on("data", (d: string) => { stderr += d; });
        const limit = options.timeoutMs ?? 15 * 60 * 1000;
        const timer = setTimeout(() => {
            if (pid !== undefined) {
                process.kill(-pid, "SIGKILL");
            }
            stderr += `\n[killed after ${limit / 1000} s]`;
        }, limit);
        child.on("error", (err) => { clearTimeout(timer); reject(err); });
        child.on("close", (code, signal) => {
            clearTimeout(timer);
            if (pid !== undefined) {
                running.delete(pid);
            }
            resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, seconds: (Date.now() - t0) / 1000 });
        });
    });
}

/** One step of a `pulumi preview --json`, as `OP TYPE::NAME` (the type without its parents). */
export function stepLabel(step: { op: string; urn: string }): string {
    const parts = step.urn.split("::");
    const qualified = parts[2] ?? "";
    return `${step.op} ${qualified.slice(qualified.lastIndexOf("$") + 1)}::${parts.slice(3).join("::")}`;
}

/**
 * The steps of a `pulumi preview --json` that change something, sorted: not `same`, and not `read`
 * (the stack's reference to its own outputs is read at every run, and changes nothing).
 */
export function changedSteps(previewJson: string): string[] {
    const parsed = JSON.parse(previewJson) as { steps?: { op: string; urn: string }[] };
    return (parsed.steps ?? []).filter((s) => s.op !== "same" && s.op !== "read").map(stepLabel).sort();
}

/**
 * The operations in an engine summary (`changeSummary`, `resourceChanges`) that change something:
 * not `same`, and not `read` (the stack's reference to its own outputs, read at every run).
 */
export function changingOps(counts: Record<string, number> | undefined): string[] {
    return Object.keys(counts ?? {}).filter((op) => op !== "same" && op !== "read");
}

/** `node bin/tfs.js` of this repository. */
export const TFS = path.resolve(__dirname, "../../bin/tfs.js");

/** What `pulumi up` did, read the way a user reads it: its exit code and output, then `pulumi stack history` and `pulumi stack output`. */
export interface PulumiUpResult extends CliResult {
    /** The update's record in `pulumi stack history --json` (result, resourceChanges). */
    summary: { result: string; resourceChanges?: Record<string, number> };
    /** `pulumi stack output --json --show-secrets`: the stack's outputs after the update. */
    outputs: Record<string, unknown>;
}

/** The `pulumi` CLI on one stack of one project folder, as the docs run it. */
export interface PulumiCli {
    run(...args: string[]): Promise<CliResult>;
    /** `pulumi up --yes` (which previews first); rejects with the command's output unless it exits 0. */
    up(options?: { policyPacks?: string[] }): Promise<PulumiUpResult>;
    /** `pulumi preview --json`: the changed steps (changedSteps); rejects unless it exits 0. */
    preview(options?: { policyPacks?: string[]; expectNoChanges?: boolean }): Promise<string[]>;
    outputs(): Promise<Record<string, unknown>>;
}

export class PulumiCommandError extends Error {
    constructor(readonly result: CliResult, what: string) {
        super(`${what} exited ${result.code} after ${result.seconds.toFixed(0)} s:\n${readable(result).slice(-4000)}`);
    }
}

/** A command's output to read: with `--json`, the engine's diagnostics instead of the whole plan. */
function readable(result: CliResult): string {
    try {
        const parsed = JSON.parse(result.stdout) as { diagnostics?: { severity: string; message: string }[] };
        if (parsed.diagnostics) {
            return parsed.diagnostics.map((d) => `${d.severity}: ${d.message}`).join("\n") + result.stderr;
        }
    } catch {
        // not JSON: the command's own text
    }
    return result.stdout + result.stderr;
}

export function pulumiCli(cwd: string, stackName: string, env?: Record<string, string>): PulumiCli {
    const run = (...args: string[]) => runCli("pulumi", [...args, "--stack", stackName, "--non-interactive"], { cwd, env, timeoutMs: 20 * 60 * 1000 });
    const must = async (what: string, ...args: string[]) => {
        const r = await run(...args);
        if (r.code !== 0) {
            throw new PulumiCommandError(r, what);
        }
        return r;
    };
    const policy = (packs: string[] = []) => packs.flatMap((p) => ["--policy-pack", p]);
    const outputs = async () => JSON.parse((await must("pulumi stack output", "stack", "output", "--json", "--show-secrets")).stdout) as Record<string, unknown>;
    return {
        run,
        outputs,
        async up(options = {}) {
            const r = await must("pulumi up", "up", "--yes", ...policy(options.policyPacks));
            const history = JSON.parse((await must("pulumi stack history", "stack", "history", "--json", "--page-size", "1")).stdout) as PulumiUpResult["summary"][];
            return { ...r, summary: history[0], outputs: await outputs() };
        },
        async preview(options = {}) {
            const r = await must("pulumi preview", "preview", "--json", ...policy(options.policyPacks), ...(options.expectNoChanges ? ["--expect-no-changes"] : []));
            return changedSteps(r.stdout);
        },
    };
}
