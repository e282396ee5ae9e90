/**
 * TF Serving's model config file (`--model_config_file`): a `ModelServerConfig` text proto listing
 * each model with its base path, version policy and version labels.
 */
import { StagingError } from "./stagingError";

/** One model entry of the config file. */
export interface ServedModel {
    /** TF Serving model name: the `NAME` of `/v1/models/NAME`. */
    name: string;
    /** Folder holding the numeric version folders, as seen by the server (e.g. `/models/NAME`). */
    basePath: string;
    /**
     * Versions to serve (`specific` policy), in any order; duplicates are ignored.
     * Undefined means TF Serving's default policy, the highest version only (`latest {1}`).
     */
    versions?: number[];
    /** Version labels, e.g. `{ stable: 2, canary: 3 }`; each must name one of `versions`. */
    labels?: Record<string, number>;
}

/** A model name that is also a DNS-1035 label, so it can name the model's Deployment and Service. */
const MODEL_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** TF Serving's rule for version label names. */
const VERSION_LABEL = /^[a-zA-Z0-9_]+$/;

/** What is wrong with a model name, or undefined when it is valid. */
export function modelNameProblem(name: string): string | undefined {
    if (MODEL_NAME.test(name)) {
        return undefined;
    }
    return `model name "${name}" must be a DNS label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, at most 63 characters (e.g. "half-plus-two")`;
}

/** What is wrong with a version label name, or undefined when it is valid. */
export function versionLabelProblem(label: string): string | undefined {
    if (VERSION_LABEL.test(label)) {
        return undefined;
    }
    return `version label "${label}" may contain only letters, digits and '_' (e.g. "stable")`;
}

/** What is wrong with a model version number, or undefined for a positive int64 JavaScript can hold exactly. */
export function versionProblem(version: number): string | undefined {
    if (Number.isSafeInteger(version) && version > 0) {
        return undefined;
    }
    return `model version ${version} must be a positive whole number (the name of a numeric version folder)`;
}

const INT64_MAX = 9223372036854775807n;

/**
 * Reads a version number as written (a flag's text, a YAML number or string), the one rule for
 * `versions` in config and `--version` on the command line: a version or what is wrong with it.
 */
export function parseVersion(written: unknown): { version: number } | { problem: string } {
    const text = typeof written === "number" && Number.isInteger(written) ? BigInt(written).toString() : typeof written === "string" ? written.trim() : undefined;
    if (text === undefined || !/^[0-9]+$/.test(text)) {
        return { problem: "is not a version number: a version is the positive whole number a version folder is named, such as 123" };
    }
    const big = BigInt(text);
    if (big === 0n) {
        return { problem: "is not a version: versions start at 1 (the name of a numeric version folder such as 123)" };
    }
    if (big > INT64_MAX) {
        return { problem: `is too large: TF Serving reads versions as 64-bit integers, at most ${INT64_MAX}` };
    }
    if (big > BigInt(Number.MAX_SAFE_INTEGER)) {
        return { problem: `is too large: this tool handles versions up to ${Number.MAX_SAFE_INTEGER}; rename the version folder to a smaller number` };
    }
    return { version: Number(big) };
}

/** Versions ascending, without duplicates; throws on a version that is not a positive integer. */
export function normalizeVersions(versions: readonly number[]): number[] {
    for (const v of versions) {
        const problem = versionProblem(v);
        if (problem) {
            throw new StagingError(problem);
        }
    }
    return [...new Set(versions)].sort((a, b) => a - b);
}

/**
 * Renders the text proto for `--model_config_file`. Output is deterministic: versions ascending,
 * labels sorted by name. Throws on an invalid name, version or label, or a label that points at a
 * version not served (TF Serving refuses labels for versions it has not loaded).
 */
export function renderModelConfig(models: readonly ServedModel[]): string {
    if (models.length === 0) {
        throw new StagingError("a model config needs at least one model");
    }
    const seen = new Set<string>();
    const lines = ["model_config_list {"];
    for (const model of models) {
        const nameProblem = modelNameProblem(model.name);
        if (nameProblem) {
            throw new StagingError(nameProblem);
        }
        if (seen.has(model.name)) {
            throw new StagingError(`model "${model.name}" appears twice in the model config; model names must be unique`);
        }
        seen.add(model.name);
        lines.push("  config {");
        lines.push(`    name: ${quote(model.name)}`);
        lines.push(`    base_path: ${quote(model.basePath)}`);
        lines.push(`    model_platform: ${quote("tensorflow")}`);
        const versions = model.versions === undefined ? undefined : normalizeVersions(model.versions);
        if (versions !== undefined) {
            if (versions.length === 0) {
                throw new StagingError(`model "${model.name}": an empty versions list would serve nothing; list at least one version or leave it unset for the latest`);
            }
            lines.push("    model_version_policy {", "      specific {");
            lines.push(...versions.map((v) => `        versions: ${v}`));
            lines.push("      }", "    }");
        }
        for (const [label, version] of sortedLabels(model, versions)) {
            lines.push("    version_labels {", `      key: ${quote(label)}`, `      value: ${version}`, "    }");
        }
        lines.push("  }");
    }
    lines.push("}");
    return lines.join("\n") + "\n";
}

function sortedLabels(model: ServedModel, versions: number[] | undefined): [string, number][] {
    const labels = Object.entries(model.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [label, version] of labels) {
        const problem = versionLabelProblem(label) ?? versionProblem(version);
        if (problem) {
            throw new StagingError(`model "${model.name}": ${problem}`);
        }
        if (versions === undefined) {
            throw new StagingError(`model "${model.name}": label "${label}" needs an explicit versions list naming version ${version}`);
        }
        if (!versions.includes(version)) {
            throw new StagingError(`model "${model.name}": label "${label}" points at version ${version}, which is not served (served: ${versions.join(", ")})`);
        }
    }
    return labels;
}

/** A text-proto string literal: single-quoted, with C escapes for quotes, backslashes and control bytes. */
export function quote(text: string): string {
    let out = "'";
    for (const byte of Buffer.from(text, "utf8")) {
        const ch = String.fromCharCode(byte);
        if (ch === "'" || ch === "\\" || ch === '"') {
            out += `\\${ch}`;
        } else if (byte === 0x0a) {
            out += "\\n";
        } else if (byte === 0x09) {
            out += "\\t";
        } else if (byte < 0x20 || byte >= 0x7f) {
            out += `\\${byte.toString(8).padStart(3, "0")}`;
        } else {
            out += ch;
        }
    }
    return out + "'";
}
