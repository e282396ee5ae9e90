/**
 * Warmup files generated for an image rather than written into the model folder: one per baked version,
 * from the same requests, each checked against that version's own signatures.
 */
import { PreflightReport } from "./savedModel";
import { PredictRequestBody } from "./tensorJson";
import { buildWarmupFile, WarmupSource, warmupRequests } from "./warmup";

/** What a warmup record needs of a golden case (`contract/golden.ts`'s GoldenCase has it). */
export interface RecordedCase {
    line: number;
    request: PredictRequestBody;
    expected?: Record<string, unknown>;
}

/** A golden file's cases as warmup sources, each named `FILE:LINE` for messages, their expected outputs kept as the logged answers. */
export function warmupSourcesOf(cases: readonly RecordedCase[], file: string): WarmupSource[] {
    return cases.map((c) => ({ name: `${file}:${c.line}`, body: c.request, ...(c.expected === undefined ? {} : { expected: c.expected }) }));
}

/**
 * The warmup file of each served version of `report` for `sources`, or every problem (one line each, naming
 * the version and the source) when a version's signatures would refuse a request; `warnings`: shapes that
 * differ from a version's signature (`warmupRequests`).
 */
export function warmupFilesFor(report: PreflightReport, sources: readonly WarmupSource[], modelName?: string): { files: Record<number, Buffer>; problems: string[]; warnings: string[] } {
    const files: Record<number, Buffer> = {};
    const problems: string[] = [];
    const warnings: string[] = [];
    for (const version of report.versions.filter((v) => report.servedVersions.includes(v.version))) {
        const built = warmupRequests(sources, version.signatures, modelName);
        warnings.push(...built.warnings.map((w) => `version ${version.version}: ${w}`));
        if (built.problems.length > 0) {
            problems.push(...built.problems.map((p) => `version ${version.version}: ${p}`));
        } else {
            files[version.version] = buildWarmupFile(built.requests);
        }
    }
    return { files, problems, warnings };
}
