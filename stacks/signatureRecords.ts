/**
 * The third record a stack keeps about itself (beside those of `stateRecords.ts`, with the same
 * schema version): `servedSignatures`, each model's serving SignatureDefs by served version, as the
 * last update that succeeded deployed them. The next preview compares the versions it would serve
 * with these (`contract/signatureChange.ts`), from the stack's checkpoint alone: no cluster is
 * asked, so the check runs offline from the cluster and in CI, and a release that failed (a
 * canary rolled back) leaves the record of what still serves.
 */
import * as pulumi from "@pulumi/pulumi";
import { SignatureSpec, TensorSpec } from "../contract/signature";
import { VersionChanges, servedVersionChanges } from "../contract/signatureChange";
import { PreflightReport } from "../model/savedModel";
import { servedSignaturesOf } from "../model/servedSignatures";
import { PreparationError } from "./prepare";
import { PreparedModel } from "./deploy";
import { PreviousOutputs } from "./previousOutputs";
import { IMAGE_BUILDS_OUTPUT, STATE_SCHEMA, recordSchema } from "./stateRecords";

/** The stack output holding the signature records, by model name. */
export const SERVED_SIGNATURES_OUTPUT = "servedSignatures";

/** One model's record: the signatures of each served version (by version number). */
export interface SignatureRecord {
    schema: number;
    versions: Record<string, Record<string, SignatureSpec>>;
}

const DOCS = "docs/guides/model-contract.md#signatures-at-preview";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The record of what `report` serves: every served version's client-callable signatures. */
export function signatureRecord(report: PreflightReport): SignatureRecord {
    return { schema: STATE_SCHEMA, versions: Object.fromEntries(Object.entries(servedSignaturesOf(report))) };
}

function readTensors(value: unknown): Record<string, TensorSpec> | undefined {
    if (!isObject(value)) {
        return undefined;
    }
    const out: Record<string, TensorSpec> = {};
    for (const [name, t] of Object.entries(value)) {
        const shape = isObject(t) ? t.shape : undefined;
        const shapeOk = shape === null || (Array.isArray(shape) && shape.every((d) => Number.isInteger(d)));
        if (!isObject(t) || typeof t.dtype !== "string" || !shapeOk) {
            return undefined;
        }
        out[name] = { dtype: t.dtype, shape: shape as number[] | null };
    }
    return out;
}

/** One model's record read back (undefined unless it is one, so an unreadable record compares nothing). Throws for a newer schema. */
export function readSignatureRecord(value: unknown): Record<number, Record<string, SignatureSpec>> | undefined {
    if (!isObject(value)) {
        return undefined;
    }
    recordSchema(SERVED_SIGNATURES_OUTPUT, value);
    if (!isObject(value.versions)) {
        return undefined;
    }
    const versions: Record<number, Record<string, SignatureSpec>> = {};
    for (const [version, signatures] of Object.entries(value.versions)) {
        if (!/^\d+$/.test(version) || !isObject(signatures)) {
            return undefined;
        }
        versions[Number(version)] = {};
        for (const [name, s] of Object.entries(signatures)) {
            const inputs = isObject(s) ? readTensors(s.inputs) : undefined;
            const outputs = isObject(s) ? readTensors(s.outputs) : undefined;
            if (!isObject(s) || typeof s.method !== "string" || inputs === undefined || outputs === undefined) {
                return undefined;
            }
            versions[Number(version)][name] = { method: s.method, inputs, outputs };
        }
    }
    return versions;
}

/** What the comparison found for one model: problems stop the run; warnings (an allowed break, an allowance with nothing to allow) and notes (additive changes) are logged. */
export interface SignatureVerdict {
    problems: string[];
    warnings: string[];
    notes: string[];
}

/** How one model is named in messages, and the keys that change its outcome. */
export interface ModelKeys {
    model: string;
    /** `tf-serving:models[0].path (/abs/path)`: the key of the folder whose versions changed. */
    path: string;
    /** `tf-serving:models[0].allowSignatureChange`. */
    allow: string;
}

const pairText = (c: VersionChanges) => (c.before === c.after ? `version ${c.after} (re-exported)` : `version ${c.after}, which replaces version ${c.before},`);

/**
 * The verdict for one model: `recorded` is what the stack serves (undefined: nothing recorded),
 * `served` what this update would serve, `allowed` the model's `allowSignatureChange`.
 */
export function signatureVerdict(keys: ModelKeys, recorded: Record<number, Record<string, SignatureSpec>> | undefined,
    served: Record<number, Record<string, SignatureSpec>>, allowed: boolean): SignatureVerdict {
    const changes = recorded === undefined ? [] : servedVersionChanges(recorded, served);
    const breaking = changes.filter((c) => c.changes.some((x) => x.breaking));
    const problems: string[] = [];
    const warnings: string[] = [];
    const notes: string[] = [];
    for (const c of changes) {
        const lines = c.changes.filter((x) => x.breaking).map((x) => `signature "${x.signature}": ${x.detail}`);
        const additive = c.changes.filter((x) => !x.breaking).map((x) => `signature "${x.signature}": ${x.detail}`);
        if (lines.length > 0 && !allowed) {
            problems.push(`${keys.path}: model "${keys.model}" ${pairText(c)} breaks what its clients call: ${lines.join("; ")}. ` +
                `Keep the old signature beside the new one in the export, or, to release it anyway, set ${keys.allow}: true for this update (see ${DOCS})`);
        } else if (lines.length > 0) {
            warnings.push(`model "${keys.model}" ${pairText(c)} breaks what its clients call, released because ${keys.allow} is true: ${lines.join("; ")}; ` +
                `remove ${keys.allow} after this update (see ${DOCS})`);
        }
        if (additive.length > 0) {
            notes.push(`model "${keys.model}" ${pairText(c)} changes its signatures in ways clients need not notice: ${additive.join("; ")}`);
        }
    }
    if (allowed && breaking.length === 0) {
        warnings.push(recorded === undefined
            ? `${keys.allow} is true, but this stack has no record of the signatures it serves yet, so there is nothing to allow; remove it (see ${DOCS})`
            : `${keys.allow} is true, but no served version breaks the signatures this stack serves; remove it (see ${DOCS})`);
    }
    return { problems, warnings, notes };
}

/**
 * Compares every model's served signatures with the stack's record, before anything is registered:
 * a breaking change not allowed stops the run (a `PreparationError`, every model's problems at once);
 * the rest is logged. Offline (`tfs plan`) there is no record to read.
 */
export async function checkSignatureChanges(previous: PreviousOutputs, models: PreparedModel[], project: string): Promise<void> {
    if (previous.offline) {
        return;
    }
    const value = await previous.value(SERVED_SIGNATURES_OUTPUT);
    const records = isObject(value) ? value : {};
    const deployed = (await previous.value(IMAGE_BUILDS_OUTPUT)) !== undefined;
    const problems: string[] = [];
    for (const { settings, report } of models) {
        const keys = {
            model: settings.name,
            path: `${project}:${settings.configKey("path")} (${settings.path})`,
            allow: `${project}:${settings.configKey("allowSignatureChange")}`,
        };
        const recorded = readSignatureRecord(records[settings.name]);
        if (recorded === undefined && deployed && isObject(value) === false) {
            pulumi.log.info(`model "${settings.name}": this stack has no record of the signatures it serves (an earlier version deployed it); ` +
                `this update records them, and the next one compares its versions with them (see ${DOCS})`);
        }
        const verdict = signatureVerdict(keys, recorded, servedSignaturesOf(report), settings.allowSignatureChange);
        verdict.warnings.forEach((w) => pulumi.log.warn(w));
        verdict.notes.forEach((n) => pulumi.log.info(n));
        problems.push(...verdict.problems);
    }
    if (problems.length > 0) {
        throw new PreparationError(problems);
    }
}
