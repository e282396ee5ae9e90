/**
 * `tfs smoke --golden FILE`: every case of a golden file sent through the endpoint, one after the
 * other, and each answer compared with the case's expected outputs by contract/golden.ts's rule.
 * The transport (REST or gRPC) only sends a case and hands back its outputs by name; judging and
 * wording are here, so both report alike.
 */
import { CaseResult, compareOutputs, GoldenCase, OutputDiff } from "../contract/golden";
import { caseFailure, toleranceText } from "../serving/goldenCheck";

/** A golden file as read for smoke: its name as the user gave it (messages name it) and its cases. */
export interface GoldenInput {
    file: string;
    cases: GoldenCase[];
}

/** What sending one case gave: its outputs by name (columnar), or why there are none. */
export type CaseAnswer = { outputs: Record<string, unknown> } | { error: string };

/** One case in the smoke report (`--json`). */
export interface GoldenCaseReport {
    name: string;
    line: number;
    signature: string;
    /** Answered, and (where the case has expected outputs) within every output's tolerance. */
    ok: boolean;
    /** False for a case without expected outputs: it only had to answer. */
    compared: boolean;
    latencyMs: number;
    /** The request failed, or its answer could not be read. */
    error?: string;
    outputs: OutputDiff[];
    /** The case's line in the text report. */
    text: string;
}

export interface GoldenReport {
    file: string;
    passed: number;
    /** Cases that answered otherwise than expected. */
    differed: number;
    /** Cases whose request failed or whose answer could not be read. */
    failed: number;
    cases: GoldenCaseReport[];
}

/**
 * Sends every case with `send` in file order (sequential: smoke measures the model, not how much
 * concurrency the endpoint takes) and compares each answer. Never throws for an answer; `send`
 * reports a failed request as `{ error }`.
 */
export async function runGoldenCases(
    golden: GoldenInput,
    send: (c: GoldenCase) => Promise<CaseAnswer>,
    progress: (line: string) => void,
): Promise<GoldenReport> {
    const report: GoldenReport = { file: golden.file, passed: 0, differed: 0, failed: 0, cases: [] };
    progress(`golden: ${golden.cases.length} ${golden.cases.length === 1 ? "case" : "cases"} of ${golden.file}, one at a time`);
    for (const c of golden.cases) {
        const started = performance.now();
        const answer = await send(c);
        const latencyMs = Math.round((performance.now() - started) * 10) / 10;
        let result: CaseResult;
        if ("error" in answer) {
            result = { case: c, ok: false, outputs: [], error: answer.error };
            report.failed++;
        } else {
            result = c.expected === undefined ? { case: c, ok: true, outputs: [] } : compareOutputs(c, c.expected, answer.outputs);
            report[result.ok ? "passed" : "differed"]++;
        }
        const text = caseLine(result, golden.file, "outputs" in answer ? Object.keys(answer.outputs) : []);
        report.cases.push({
            name: c.name, line: c.line, signature: c.signatureName, ok: result.ok, compared: c.expected !== undefined, latencyMs,
            ...(result.error === undefined ? {} : { error: result.error }), outputs: result.outputs, text,
        });
    }
    return report;
}

/**
 * One case as a line: `case "three rows" (golden.jsonl:1): ok, worst |difference| y 0 (atol
 * 0.000001, rtol 0.00001)`; a failure in the canary's words (serving/goldenCheck.ts).
 */
export function caseLine(result: CaseResult, file: string, answered: string[]): string {
    if (!result.ok) {
        return caseFailure(result, file);
    }
    const head = `case "${result.case.name}" (${file}:${result.case.line})`;
    if (result.case.expected === undefined) {
        return `${head}: answered (no expected outputs to compare; outputs ${answered.sort().join(", ") || "none"})`;
    }
    const figures = result.outputs.map((o) => o.tolerance.kind === "argmax"
        ? `${o.output} ${o.worst} of ${o.compared} rows differ (argmax)`
        : `${o.output} ${o.worst} (${o.exact ? "exact" : toleranceText(o.tolerance)})`);
    return `${head}: ok, worst |difference| ${figures.join(", ")}`;
}

/** The report's outcome and its sentence: a failed request outranks a difference, as smoke's predict error does. */
export function goldenOutcome(report: GoldenReport, model: string): { outcome: "ok" | "golden-mismatch" | "predict-error"; message: string } {
    const of = `of ${report.cases.length} ${report.cases.length === 1 ? "case" : "cases"} of ${report.file}`;
    if (report.failed > 0) {
        return { outcome: "predict-error", message: `${report.failed} ${of} got no usable answer from model "${model}" (each case's line says why)` };
    }
    if (report.differed > 0) {
        return { outcome: "golden-mismatch", message: `${report.differed} ${of} answered otherwise than expected by model "${model}" (each case's line says how)` };
    }
    return { outcome: "ok", message: `${of.slice(3)} answered as expected by model "${model}"` };
}
