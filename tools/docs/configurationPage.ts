/**
 * The scalar keys of the configuration reference, rendered from `Pulumi.yaml`: the project file
 * declares each key's type, default and description (what `pulumi config` shows), and the program
 * reads those declarations (`config/config.ts`), so the page shows the same.
 */
import { parse } from "yaml";

interface Declared {
    type?: string;
    items?: { type?: string };
    default?: unknown;
    description?: string;
}

function typeOf(d: Declared): string {
    return d.type === "array" ? `${d.items?.type ?? "value"} list` : d.type ?? "string";
}

function defaultOf(d: Declared): string {
    if (d.default === undefined || d.default === "" || (Array.isArray(d.default) && d.default.length === 0)) {
        return "—";
    }
    return `\`${typeof d.default === "string" ? d.default : JSON.stringify(d.default)}\``;
}

/** Escapes what would break a Markdown table cell. */
function cell(text: string): string {
    return text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();
}

/** The table of the keys `Pulumi.yaml` declares, in its order. */
export function renderConfigurationTable(pulumiYaml: string): string {
    const project = parse(pulumiYaml) as { config?: Record<string, Declared> };
    const rows = Object.entries(project.config ?? {}).map(([key, d]) =>
        `| \`${key}\` | ${typeOf(d)} | ${defaultOf(d)} | ${cell(d.description ?? "")} |`);
    return ["| key | type | default | meaning |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
