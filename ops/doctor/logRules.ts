/**
 * Rules that read TF Serving's own log lines: a model path without version folders, a model that
 * fails to load, model files the server may not read.
 */
import { Finding, Rule, podFinding, podName, quoteLog, readinessEvidence, runAsEvidence } from "./findings";
import { ClusterSnapshot, Pod, logKey } from "./snapshot";

/** Every log line of a pod's containers, current run last, with the container it came from. */
function podLogLines(snapshot: ClusterSnapshot, pod: Pod): { container: string; line: string }[] {
    const name = podName(pod);
    return (pod.spec?.containers ?? []).flatMap((c) => [
        snapshot.previousLogs[logKey(name, c.name)],
        snapshot.logs[logKey(name, c.name)],
    ].flatMap((log) => (log ?? "").split("\n").filter((line) => line.trim() !== "").map((line) => ({ container: c.name, line }))));
}

function lastMatch(snapshot: ClusterSnapshot, pod: Pod, pattern: RegExp): { container: string; line: string; match: RegExpExecArray } | undefined {
    const lines = podLogLines(snapshot, pod);
    for (let i = lines.length - 1; i >= 0; i--) {
        const match = pattern.exec(lines[i].line);
        if (match) {
            return { ...lines[i], match };
        }
    }
    return undefined;
}

const NO_VERSIONS = /No versions of servable (\S+) found under base path (\S+?)\.?(?:\s|$)/;
/** The file-system poller's error when the base path itself does not exist (the model is elsewhere in the image). */
const NO_BASE_PATH = /Could not find base path (\S+) for servable (\S+?)(?:\s|$)/;

export const modelNotFound: Rule = (snapshot, context) => snapshot.pods.flatMap((pod): Finding[] => {
    const noVersions = lastMatch(snapshot, pod, NO_VERSIONS);
    const noBasePath = noVersions ? undefined : lastMatch(snapshot, pod, NO_BASE_PATH);
    const hit = noVersions ?? noBasePath;
    if (!hit) {
        return [];
    }
    const [servable, basePath] = noVersions ? [hit.match[1], hit.match[2]] : [hit.match[2], hit.match[1]];
    const check = "Run `tfs preflight MODEL_DIR` on the folder the image is built from, check that "
        + `modelName ("${servable}") matches the folder in the image, then redeploy.`;
    return [podFinding(pod, {
        kind: "model-not-found",
        severity: "error",
        summary: noVersions
            ? `TF Serving found no version folder for model ${servable} under ${basePath} and waits forever`
            : `TF Serving found no folder ${basePath} for model ${servable}: the model is at another path in the image, and the server waits forever`,
        evidence: [quoteLog(podName(pod), hit.container, hit.line), readinessEvidence(pod, context)],
        fix: noVersions
            ? `TF Serving serves only numbered version folders (${basePath}/1/saved_model.pb); a model copied without its `
                + `version folder is never found. ${check}`
            : `The server reads the model from ${basePath} (MODEL_BASE_PATH/modelName); the image put it elsewhere. ${check}`,
    })];
});

/** TF Serving's ways of saying a version failed to load (retrier, loader, server start). */
const LOAD_FAILED = /Loading servable: \{name: (\S+) version: (\d+)\} failed|Could not find SavedModel|Failed to load model|Failed to start server|SavedModel load for tags .* Status: fail/;

export const modelLoadFailed: Rule = (snapshot, context) => snapshot.pods.flatMap((pod): Finding[] => {
    const hit = lastMatch(snapshot, pod, LOAD_FAILED);
    if (!hit || /permission denied/i.test(hit.line)) {
        return [];
    }
    const [, servable, version] = hit.match;
    const what = servable ? `model ${servable} version ${version}` : "the model";
    return [podFinding(pod, {
        kind: "model-load-failed",
        severity: "error",
        summary: `TF Serving failed to load ${what}`,
        evidence: [quoteLog(podName(pod), hit.container, hit.line), readinessEvidence(pod, context)],
        fix: loadFix(hit.line),
    })];
});

function loadFix(line: string): string {
    if (/Op type not registered|not registered/i.test(line)) {
        return "The model uses ops this TF Serving build lacks: pick a tensorflow/serving base at least as new as the "
            + "TensorFlow that exported the model (config baseImage).";
    }
    if (/Could not find SavedModel|NOT_FOUND|Not found/i.test(line)) {
        return "The version folder has no saved_model.pb (or .pbtxt): the image holds a wrong or partial copy. Run `tfs "
            + "preflight MODEL_DIR` on the folder the image is built from and check that modelName matches the folder in the image.";
    }
    return "Run `tfs preflight MODEL_DIR` on the model folder (it reads the SavedModel as TF Serving does); check that the "
        + "base image's TF Serving version can load a model exported by that TensorFlow.";
}

const READ_DENIED = /Permission denied|PERMISSION_DENIED/;

export const modelFilesDenied: Rule = (snapshot) => snapshot.pods.flatMap((pod): Finding[] => {
    const hit = lastMatch(snapshot, pod, READ_DENIED);
    if (!hit) {
        return [];
    }
    return [podFinding(pod, {
        kind: "permission-denied",
        severity: "error",
        summary: "TF Serving may not read the model files (Permission denied)",
        evidence: [quoteLog(podName(pod), hit.container, hit.line), runAsEvidence(pod, hit.container)],
        fix: "The model files in the image are not readable by the user the server runs as: build the image with `tfs "
            + "build-context` (it makes the model world-readable with COPY --chmod) and check runAsUser/fsGroup in the pod.",
    })];
});
