/**
 * Entry point `tf-serving/preflight` (pure: no Pulumi): reads a SavedModel folder as TF Serving would
 * (version folders, graph, signatures, links out of the model) and reports what would stop it loading.
 * `PreflightReport.versions[].sizeBytes` of the served versions is `ModelServer`'s `model.versionBytes`.
 */
export { preflight } from "../model/savedModel";
export type { Finding, PreflightOptions, PreflightReport, PreflightSettings, ServerReport, VersionReport } from "../model/savedModel";
export type { SignatureSpec, TensorSpec } from "../contract/signature";
