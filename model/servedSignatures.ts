/**
 * The signatures a preflight found for each served version, as clients can call them: what a stack
 * records after an update and what `tfs preflight --against` compares (TensorFlow's own left out).
 */
import { SignatureSpec, isInternalSignature } from "../contract/signature";
import { PreflightReport } from "./savedModel";

/** Each served version's client-callable signatures, by version number. */
export function servedSignaturesOf(report: PreflightReport): Record<number, Record<string, SignatureSpec>> {
    return Object.fromEntries(report.versions.filter((v) => report.servedVersions.includes(v.version))
        .map((v) => [v.version, Object.fromEntries(Object.entries(v.signatures).filter(([name]) => !isInternalSignature(name)))]));
}
