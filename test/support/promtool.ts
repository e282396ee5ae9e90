/**
 * Prometheus' own rule checker, `promtool` (Debian's `prometheus` package; `scripts/e2e-env packages`
 * installs it): `check rules` parses every expression as Prometheus would, `test rules` evaluates the
 * rules over given series. A machine without it fails the tests that need it (never skips them).
 */
import * as assert from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stringify } from "yaml";

/** The promtool binary: `PROMTOOL`, else the first on PATH. */
export function promtoolPath(): string {
    const candidates = process.env.PROMTOOL ? [process.env.PROMTOOL]
        : (process.env.PATH ?? "").split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, "promtool"));
    const found = candidates.find((c) => fs.existsSync(c));
    assert.ok(found, "promtool is not installed: install Debian's prometheus package (apt-get install -y prometheus, or scripts/e2e-env packages), or set PROMTOOL");
    return found;
}

export interface PromtoolRun {
    status: number | null;
    output: string;
}

/** Runs promtool in `dir` with `args`. */
export function promtool(dir: string, args: string[]): PromtoolRun {
    const run = spawnSync(promtoolPath(), args, { cwd: dir, encoding: "utf8", timeout: 60_000 });
    return { status: run.status, output: `${run.stdout ?? ""}${run.stderr ?? ""}` };
}

let root: string | undefined;

/** A folder holding `files` (name -> text), removed at exit. */
export function ruleFolder(files: Record<string, string>): string {
    if (root === undefined) {
        const made = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-promtool-"));
        process.on("exit", () => fs.rmSync(made, { recursive: true, force: true }));
        root = made;
    }
    const dir = fs.mkdtempSync(path.join(root, "run-"));
    for (const [name, text] of Object.entries(files)) {
        fs.writeFileSync(path.join(dir, name), text);
    }
    return dir;
}

export interface SeriesInput {
    series: string;
    /** promtool's expanding notation: `0+10x20`, `1x30`, `_x4 1x10` (`_` = no sample). */
    values: string;
}

export interface ExpectedAlert {
    labels: Record<string, string>;
    annotations: Record<string, string>;
}

export interface AlertCheck {
    evalTime: string;
    alertname: string;
    alerts: ExpectedAlert[];
}

export interface RuleTest {
    name: string;
    interval: string;
    series: SeriesInput[];
    checks: AlertCheck[];
}

/** A `promtool test rules` file over `ruleFiles`. */
export function ruleTestFile(ruleFiles: string[], tests: RuleTest[], evaluationInterval: string): string {
    return stringify({
        rule_files: ruleFiles,
        evaluation_interval: evaluationInterval,
        tests: tests.map((t) => ({
            name: t.name,
            interval: t.interval,
            input_series: t.series,
            alert_rule_test: t.checks.map((c) => ({
                eval_time: c.evalTime,
                alertname: c.alertname,
                exp_alerts: c.alerts.map((a) => ({ exp_labels: a.labels, exp_annotations: a.annotations })),
            })),
        })),
    }, { lineWidth: 0 });
}

/**
 * An alert's annotations as Prometheus expands them for one alert, for the few template forms the
 * rules use: `{{ $labels.NAME }}` and `{{ $value | printf "%.Nf" }}`. Any other form is a test bug.
 */
export function expandAnnotations(annotations: Record<string, string>, labels: Record<string, string>, value?: number): Record<string, string> {
    return Object.fromEntries(Object.entries(annotations).map(([k, text]) => [k, text.replace(/\{\{(.*?)\}\}/g, (_, inner: string) => {
        const label = /^\s*\$labels\.(\w+)\s*$/.exec(inner);
        if (label) {
            return labels[label[1]] ?? "";
        }
        const printf = /^\s*\$value \| printf "%\.(\d)f"\s*$/.exec(inner);
        if (printf) {
            assert.ok(value !== undefined, `annotation ${k} prints the value: give the case's value`);
            return value.toFixed(Number(printf[1]));
        }
        throw new Error(`annotation ${k}: template {{${inner}}} is not one the tests expand`);
    })]));
}
