/**
 * Warmup files generated for an image rather than written into the model folder: one per baked version,
 * from the same requests, each checked against that version's own signatures.
 */
import { PreflightReport } from "./savedModel";
import { buildWarmupFile, WarmupSource, warmupRequests } from "./warmup";

/**
 * The warmup file of each served version of `report` for `sources`, or every problem (one line each, naming
 * the version and the source) when a version's signatures would refuse a request.
 */
export function warmupFilesFor(report: PreflightReport, sources: readonly WarmupSource[], modelName?: string): { files: Record<number, Buffer>; problems: string[] } {
    const files: Record<number, Buffer> = {};
    const problems: string[] = [];
    for (const version of report.versions.filter((v) => report.servedVersions.includes(v.version))) {
        const built = warmupRequests(sources, version.signatures, modelName);
        if (built.problems.length > 0) {
            problems.push(...built.problems.map((p) => `version ${version.version}: ${p}`));
        } else {
            files[version.version] = buildWarmupFile(built.requests);
        }
    }
    return { files, problems };
}
