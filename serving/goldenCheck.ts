/**
 * The canary's golden check in words: one line for a check that passed, and for one that failed
 * the first failing case, its output, the expected and the received values (`contract/golden.ts`
 * compares; this says it as the update's output and its error say it).
 */
import { CaseResult, OutputDiff, Tolerance } from "../contract/golden";

/** Cases a failure lists after the first before it says how many more failed. */
const LISTED = 3;

const clip = (value: unknown) => {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

export function toleranceText(t: Tolerance): string {
    return t.kind === "argmax" ? "argmax" : `atol ${t.atol}, rtol ${t.rtol}`;
}

function caseName(r: CaseResult, file: string): string {
    return `case "${r.case.name}" (${file}:${r.case.line})`;
}

function outputText(o: OutputDiff): string {
    if (o.why !== undefined) {
        return `output "${o.output}": ${o.why}`;
    }
    const where = o.at === undefined ? "" : ` at [${o.at.join(",")}]`;
    return `output "${o.output}"${where}: expected ${clip(o.expected)}, received ${clip(o.received)} (worst |difference| ${o.worst}, ${toleranceText(o.tolerance)})`;
}

/** Why a case failed, in one clause. */
export function caseFailure(r: CaseResult, file: string): string {
    const bad = r.outputs.filter((o) => !o.ok);
    return `${caseName(r, file)}: ${r.error ?? bad.map(outputText).join("; ")}`;
}

/** The error of a check with a failing case (undefined when every case passed). */
export function goldenFailure(results: CaseResult[], file: string): string | undefined {
    const failed = results.filter((r) => !r.ok);
    if (failed.length === 0) {
        return undefined;
    }
    const more = failed.length > LISTED ? `; ${failed.length - LISTED} more failed` : "";
    return `golden check: ${failed.length} of ${results.length} cases of ${file} answered otherwise on the canary, before any traffic moved: ` +
        `${failed.slice(0, LISTED).map((r) => caseFailure(r, file)).join("; ")}${more}`;
}

/** The line of a check that passed: the cases, the worst difference per output, the time it took. */
export function goldenSummary(results: CaseResult[], file: string, seconds: number): string {
    const worst = new Map<string, number>();
    for (const o of results.flatMap((r) => r.outputs)) {
        worst.set(o.output, Math.max(worst.get(o.output) ?? 0, o.worst));
    }
    const figures = [...worst].map(([output, w]) => `${output} ${w}`).join(", ");
    return `golden check: ${results.length} cases of ${file} answered as expected on the canary in ${seconds.toFixed(1)} s` +
        `${figures ? ` (worst |difference|: ${figures})` : ""}; moving traffic`;
}
