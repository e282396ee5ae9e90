import { SignatureSpec, isInternalSignature } from "../contract/signature";
import { humanBytes, plural } from "../contract/quantity";
import type { PreflightReport } from "../model/savedModel";

/** Human-readable text for the CLI: versions, sizes, tags, served signatures, findings, then a one-line verdict. */
export function formatReport(report: PreflightReport): string {
    const { server } = report;
    const lines = [
        `Model ${report.baseDir}`,
        `Server ${server.baseImage}: ${server.tensorflow === null
            ? "its tag names no TF Serving release, so exporters' TensorFlow versions are not compared"
            : `TF Serving ${server.servingVersion}, TensorFlow ${server.tensorflow}`}`,
    ];
    for (const v of report.versions) {
        const tags = v.tags.length > 0 ? `tags ${v.tags.join(",")}` : "no matching tags";
        const exporter = v.graphFile === null ? "" : `  exported by TensorFlow ${v.tensorflowVersion ?? "(unrecorded)"}${gitVersion(v.tensorflowGitVersion)}`;
        lines.push(`  version ${v.version}  ${(v.served ? "served" : "not served").padEnd(10)}  ${v.graphFile ?? "no graph file"}  ${humanBytes(v.sizeBytes)}  ${tags}${exporter}`);
        if (v.served) {
            lines.push(...formatSignatures(v.signatures, report.signature).map((line) => `    ${line}`));
        }
    }
    for (const e of report.errors) {
        lines.push(`error ${e.code}: ${e.message}`);
    }
    for (const w of report.warnings) {
        lines.push(`warning ${w.code}: ${w.message}`);
    }
    const counts = `${plural(report.errors.length, "error")}, ${plural(report.warnings.length, "warning")}`;
    lines.push(report.ok
        ? `OK: TF Serving would serve version${report.servedVersions.length === 1 ? "" : "s"} ${report.servedVersions.join(", ")} with signature ${report.signature} (${counts}).`
        : `FAILED: TF Serving would not serve this model as asked (${counts}); fix the errors above.`);
    return lines.join("\n");
}

/** A pip build records "unknown" as its git version: only a real one is worth a column. */
function gitVersion(git: string | null): string {
    return git === null || git === "unknown" ? "" : ` (${git})`;
}

/** `name  method  x: DT_FLOAT[-1,1] -> y: DT_FLOAT[-1,1]`, the checked signature first, TensorFlow's internal ones left out. */
function formatSignatures(signatures: Record<string, SignatureSpec>, first: string): string[] {
    const names = Object.keys(signatures).filter((name) => !isInternalSignature(name))
        .sort((a, b) => Number(b === first) - Number(a === first) || a.localeCompare(b));
    const width = Math.max(0, ...names.map((name) => name.length));
    const tensors = (specs: SignatureSpec["inputs"]): string =>
        Object.entries(specs).map(([name, t]) => `${name}: ${t.dtype}${t.shape === null ? "[unknown rank]" : `[${t.shape.join(",")}]`}`).join(", ") || "(none)";
    return names.map((name) => {
        const sig = signatures[name];
        return `${name.padEnd(width)}  ${sig.method.replace(/^tensorflow\/serving\//, "").padEnd(8)}  ${tensors(sig.inputs)} -> ${tensors(sig.outputs)}`;
    });
}
