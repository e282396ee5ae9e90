/** The doctor's answer as text for a terminal, and as one JSON object for scripts. */
import { plural } from "../../contract/quantity";
import { Diagnosis, ModelChecked } from "./diagnose";
import { Finding } from "./findings";

/** Where the snapshot came from. */
export interface ClusterInfo {
    server: string;
    context?: string;
}

/** What one run of the doctor found, and where. */
export interface DoctorResult {
    diagnosis: Diagnosis;
    cluster: ClusterInfo;
    /** Logs that could not be read, each with the reason. */
    unreadLogs: string[];
}

export interface DoctorJson {
    healthy: boolean;
    findings: Finding[];
    checked: Diagnosis["checked"] & { cluster: ClusterInfo; unreadLogs: string[] };
}

export function doctorJson({ diagnosis, cluster, unreadLogs }: DoctorResult): DoctorJson {
    return { healthy: diagnosis.healthy, findings: diagnosis.findings, checked: { ...diagnosis.checked, cluster, unreadLogs } };
}

const WIDTH = 100;

export function formatReport({ diagnosis, cluster, unreadLogs }: DoctorResult): string {
    const { checked, findings } = diagnosis;
    const lines = [
        `tfs doctor: namespace ${checked.namespace} on ${cluster.server}${cluster.context ? ` (context ${cluster.context})` : ""}`,
        `checked ${plural(checked.pods, "pod")}, ${plural(checked.deployments, "deployment")}, ${plural(checked.services, "service")}, `
            + `${plural(checked.events, "event")}, ${plural(checked.logs, "container log")} (${checked.selector})`,
        ...checked.models.map((m) => `model ${m.model}: ${describeModel(m)}`),
        ...checked.endpoints.map((e) => `endpoint of ${e.model}: ${e.call}: ${e.answer}`),
        ...unreadLogs.map((u) => `could not read the ${u}`),
    ];
    if (diagnosis.healthy) {
        lines.push("", "healthy: every pod is Ready and every LoadBalancer has an address");
    }
    for (const f of findings) {
        lines.push("", ...formatFinding(f));
    }
    if (!diagnosis.healthy) {
        const errors = findings.filter((f) => f.severity === "error").length;
        const warnings = findings.filter((f) => f.severity === "warning").length;
        lines.push("", `${plural(errors + warnings, "problem")} found: ${plural(errors, "error")}, ${plural(warnings, "warning")}`);
    }
    return lines.join("\n");
}

export function formatFinding(f: Finding): string[] {
    return [
        `${f.severity.toUpperCase()} ${f.kind}: ${f.object}${f.model && !f.object.endsWith(`/${f.model}`) ? ` (model ${f.model})` : ""}`,
        `  ${f.summary}`,
        "  evidence:",
        ...f.evidence.map((e) => `    - ${e}`),
        ...wrap(`fix: ${f.fix}`, WIDTH - 2).map((l, i) => (i === 0 ? `  ${l}` : `       ${l}`)),
    ];
}

function describeModel(m: ModelChecked): string {
    const pods = `${m.readyPods}/${m.desiredReplicas ?? m.pods} pods Ready`;
    if (!m.service) {
        return `${pods}, no Service`;
    }
    const where = m.service.address ? `at ${m.service.address}` : "without an address";
    return `${pods}, service ${m.service.name} (${m.service.type}) ${where}`;
}

function wrap(text: string, width: number): string[] {
    const lines: string[] = [];
    let line = "";
    for (const word of text.split(" ")) {
        if (line && line.length + 1 + word.length > width) {
            lines.push(line);
            line = word;
        } else {
            line = line ? `${line} ${word}` : word;
        }
    }
    return line ? [...lines, line] : lines;
}
