/**
 * Entry point `tf-serving/preflight` (pure: no Pulumi): reads a SavedModel folder as TF Serving would
 * (version folders, graph, signatures, links out of the model) and reports what would stop it loading.
 * `PreflightReport.versions[].sizeBytes` of the served versions is `ModelServer`'s `model.versionBytes`, and their
 * `warmupRecords` its `model.warmupRecords`. Warmup files (`assets.extra/tf_serving_warmup_requests`) are built
 * and checked here too, and so are golden files (`ModelServer`'s `golden`) and the signature comparison
 * between two versions that `pulumi preview` and `tfs preflight --against` run.
 */
export { preflight } from "../model/savedModel";
export type { Finding, PreflightOptions, PreflightReport, PreflightSettings, ServerReport, VersionReport } from "../model/savedModel";
export type { SignatureSpec, TensorSpec } from "../contract/signature";
export { buildWarmupFile, readWarmupFile, WARMUP_FILE, WARMUP_MAX_RECORDS, WarmupError, warmupProblems, warmupRequests } from "../model/warmup";
export type { RecordedTensor, WarmupFile, WarmupKind, WarmupProblem, WarmupRecord, WarmupRequest, WarmupSource } from "../model/warmup";
export type { TfRecordProblem } from "../model/tfRecord";
export type { PredictRequestBody } from "../contract/signature";
export { compareSignatures, replacedVersions, servedVersionChanges } from "../contract/signatureChange";
export type { ChangeKind, SignatureChange, VersionChanges, VersionPair } from "../contract/signatureChange";
export { servedSignaturesOf } from "../model/servedSignatures";
export {
    DEFAULT_ATOL, DEFAULT_RTOL, GOLDEN_MAX_BYTES, GOLDEN_MAX_CASES, GOLDEN_MAX_LINE_BYTES, GoldenError,
    compareOutputs, goldenIssues, goldenProblems, parseGolden, readGoldenFile, readGoldenSource, restOutputs,
} from "../contract/golden";
export type { CaseResult, GoldenCase, GoldenSource, OutputDiff, Tolerance } from "../contract/golden";
export { warmupFilesFor, warmupSourcesOf } from "../model/stagedWarmup";
export type { RecordedCase } from "../model/stagedWarmup";
