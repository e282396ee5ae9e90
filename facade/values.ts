/**
 * Checks on what a multi-language program passes a facade component: a YAML or Python program is
 * not type-checked against the library's unions, so each value is checked against the library's own
 * list, and a path must be absolute (the component runs in the plugin's process, not the program's
 * folder). Each refusal is one line naming the component, the argument and the fix: a
 * `pulumi.RunError`, which the engine prints without a stack trace.
 */
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { argsError } from "../components/refusal";
import { GoldenError, readGoldenSource } from "../lib/preflight";
import type { GoldenSource } from "../lib/preflight";
import { preflight } from "../lib/preflight";
import type { PreflightReport } from "../lib/preflight";

const DOCS = "docs/guides/other-languages.md";

/** `value` if `allowed` holds it; else an error naming `where` and the allowed values. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], where: string): T {
    if (!(allowed as readonly string[]).includes(value)) {
        throw new pulumi.RunError(`${where}: ${JSON.stringify(value)} is not one of ${allowed.join(", ")} (see ${DOCS}#arguments)`);
    }
    return value as T;
}

/**
 * `value` if it is a list of strings (the library's `string[]`), undefined if absent. A YAML or Python
 * program may pass one string where a list belongs; the library would spread it a character per
 * argument, so it is refused, as is an item that is not a string.
 */
export function stringList(value: unknown, component: string, name: string, field: string, example: string): string[] | undefined {
    if (value === undefined) {
        return undefined;
    }
    const fix = `give a list, one item each, e.g. ${field}: [${JSON.stringify(example)}] (see ${DOCS}#arguments)`;
    if (!Array.isArray(value)) {
        const what = typeof value === "string" ? `the string ${JSON.stringify(value)}` : JSON.stringify(value);
        throw argsError(component, `"${name}"`, [{ field, value, message: `is ${what}, not a list: ${fix}` }]);
    }
    const stray = value.findIndex((item) => typeof item !== "string");
    if (stray >= 0) {
        throw argsError(component, `"${name}"`, [{ field: `${field}[${stray}]`, value: value[stray], message: `is ${JSON.stringify(value[stray])}, not a string: ${fix}` }]);
    }
    return value as string[];
}

/** `value` if it is an absolute path; else an error saying how a program passes one. */
export function absolutePath(value: string, where: string): string {
    if (!path.isAbsolute(value)) {
        throw new pulumi.RunError(`${where}: ${JSON.stringify(value)} is not an absolute path; the component runs in the plugin's folder, ` +
            `so pass one, e.g. \${pulumi.cwd}/models/half_plus_two in YAML (see ${DOCS}#paths)`);
    }
    return value;
}

/** The model folder read as TF Serving would; an error listing what would stop it loading. */
export function loadableModel(modelDir: string, versions: number[] | undefined, where: string): PreflightReport {
    const report = preflight(absolutePath(modelDir, where), versions === undefined ? {} : { versions });
    if (!report.ok) {
        throw new pulumi.RunError(`${where}: TF Serving could not load ${modelDir}: ${report.errors.map((e) => `${e.code}: ${e.message}`).join("; ")}` +
            ` (run \`tfs preflight\` on it; see docs/reference/cli.md#tfs-preflight-and-tfs-build-context)`);
    }
    return report;
}

/** The sizes in bytes of the versions a report serves, lowest version first: `ModelServer`'s `model.versionBytes`. */
export function servedBytes(report: PreflightReport): number[] {
    return report.versions.filter((v) => v.served).map((v) => v.sizeBytes);
}

/** The warmup records the versions a report serves hold together: `ModelServer`'s `model.warmupRecords`. */
export function servedWarmupRecords(report: PreflightReport): number {
    return report.versions.filter((v) => v.served).reduce((sum, v) => sum + (v.warmupRecords ?? 0), 0);
}

/** The golden file at `file` (absolute), bounded and read; an error naming `where` when it cannot be. */
export function goldenSource(file: string, where: string): GoldenSource {
    try {
        return readGoldenSource(file);
    } catch (err) {
        throw err instanceof GoldenError ? new pulumi.RunError(`${where}: ${err.message}`) : err;
    }
}
