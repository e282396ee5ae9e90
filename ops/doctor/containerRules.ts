/**
 * Rules that read container statuses: OOMKilled, CrashLoopBackOff, image pulls, containers that
 * cannot be created or started (permission denied on exec, a bad security context).
 */
import { humanBytes } from "../../contract/quantity";
import {
    Finding, Rule, containerSpec, describeEvent, describeMemory, describeTermination, modelMemory, podFinding, podName, quoteLog,
    runAsEvidence,
} from "./findings";
import { MEMORY_PEAK_ANNOTATION, MODEL_BYTES_ANNOTATION } from "../../contract/labels";
import { artifactTrouble } from "./imageVolumeRules";
import { PULL_REASONS, pullCause, pullFix } from "./pullCause";
import { ClusterSnapshot, ContainerStatus, Pod, eventsFor, logKey } from "./snapshot";

/** Log lines of a crashed container shown beside its termination. */
const CRASH_LOG_LINES = 5;
/** TF Serving's error lines: log levels E and F, its start failure, a flag it could not read or does not know. */
const SERVER_ERROR_LINE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.\d]*: [EF] |^Failed to start server|Couldn't interpret value|^unknown argument: /;

function statuses(pod: Pod): ContainerStatus[] {
    return pod.status?.containerStatuses ?? [];
}

/** "restarted 4 times; now waiting: CrashLoopBackOff (back-off 2m40s ...)" */
function describeNow(cs: ContainerStatus): string {
    const restarts = `restarted ${cs.restartCount ?? 0} time${cs.restartCount === 1 ? "" : "s"}`;
    const { waiting, running } = cs.state ?? {};
    if (waiting) {
        return `container ${cs.name} ${restarts}; now waiting: ${waiting.reason ?? "?"}${waiting.message ? ` (${waiting.message})` : ""}`;
    }
    if (running) {
        return `container ${cs.name} ${restarts}; now running since ${running.startedAt ?? "?"}, ready: ${cs.ready === true}`;
    }
    return `container ${cs.name} ${restarts}`;
}

export const oomKilled: Rule = (snapshot) => snapshot.pods.flatMap((pod) => statuses(pod).flatMap((cs): Finding[] => {
    const which = cs.state?.terminated?.reason === "OOMKilled" ? "state"
        : cs.lastState?.terminated?.reason === "OOMKilled" ? "lastState" : undefined;
    if (which === undefined) {
        return [];
    }
    const evidence = [describeTermination(cs.name, which, cs[which]!.terminated!), describeNow(cs)];
    const limit = containerSpec(pod, cs.name)?.resources?.limits?.memory;
    const limitMemory = limit === undefined ? undefined : describeMemory(limit);
    evidence.push(limitMemory ? `memory limit ${limitMemory.text}` : "no memory limit: the node itself ran out of memory");
    evidence.push(...modelMemoryEvidence(pod, snapshot, limitMemory?.bytes));
    return [podFinding(pod, {
        kind: "oom-killed",
        severity: cs.ready ? "warning" : "error",
        summary: `container ${cs.name} was killed for using more memory than its limit (OOMKilled)`,
        evidence,
        fix: "Raise memoryLimit (and memoryRequest) in the stack config above the reload peak: TF Serving loads a new "
            + "version beside the old one before unloading it (about twice the model), on top of its runtime; growth under "
            + "load (request buffers, batching queues) needs headroom too. `tfs plan` shows the sizing derived from the model; "
            + "serving fewer versions at once lowers the peak.",
    })];
}));

function modelMemoryEvidence(pod: Pod, snapshot: ClusterSnapshot, limitBytes: number | undefined): string[] {
    const { modelBytes, peakBytes } = modelMemory(pod, snapshot);
    const lines: string[] = [];
    if (modelBytes !== undefined) {
        lines.push(`model size ${humanBytes(modelBytes)} on disk (annotation ${MODEL_BYTES_ANNOTATION})`);
    }
    if (peakBytes !== undefined) {
        const verdict = limitBytes === undefined ? ""
            : limitBytes < peakBytes ? `: the limit is ${humanBytes(peakBytes - limitBytes)} below it`
                : ": the limit is above it, so memory grew past the estimate (load, batching, or a bigger model than recorded)";
        lines.push(`reload peak ${humanBytes(peakBytes)} (annotation ${MEMORY_PEAK_ANNOTATION})${verdict}`);
    }
    if (modelBytes === undefined && peakBytes === undefined) {
        lines.push(`model size not recorded on the pod or its Deployment (no ${MODEL_BYTES_ANNOTATION} annotation): `
            + "compare the limit with the size `tfs preflight MODEL_DIR` reports");
    }
    return lines;
}

export const crashLoop: Rule = (snapshot) => snapshot.pods.flatMap((pod) => statuses(pod).flatMap((cs): Finding[] => {
    if (cs.state?.waiting?.reason !== "CrashLoopBackOff") {
        return [];
    }
    const last = cs.lastState?.terminated;
    const evidence = [describeNow(cs)];
    if (last) {
        evidence.push(describeTermination(cs.name, "lastState", last));
    }
    const name = podName(pod);
    const log = snapshot.previousLogs[logKey(name, cs.name)] ?? snapshot.logs[logKey(name, cs.name)] ?? "";
    const lines = log.split("\n").filter((l) => l.trim() !== "");
    // The server's error lines say why it exited; the usage text it prints after a bad flag does not.
    const errors = lines.filter((l) => SERVER_ERROR_LINE.test(l)).slice(-CRASH_LOG_LINES);
    const quoted = errors.length > 0 ? errors : lines.slice(-CRASH_LOG_LINES);
    evidence.push(...(quoted.length ? quoted.map((l) => quoteLog(name, cs.name, l)) : [`no log lines from ${name}/${cs.name}`]));
    return [podFinding(pod, {
        kind: "crash-loop",
        severity: "error",
        summary: `container ${cs.name} keeps exiting and Kubernetes backs off restarting it (CrashLoopBackOff)`,
        evidence,
        fix: crashFix(last?.exitCode),
    })];
}));

function crashFix(exitCode: number | undefined): string {
    switch (exitCode) {
        case 126:
            return "Exit code 126: the entrypoint exists but cannot be executed (file mode or user); rebuild the image with `tfs build-context`.";
        case 127:
            return "Exit code 127: the entrypoint is not in the image; check the image's base (tensorflow/serving) and its command.";
        case 132:
            return "Exit code 132 (SIGILL): the TF Serving build uses CPU instructions (AVX) the node lacks, or runs under "
                + "emulation; TF Serving images are amd64 only: schedule on amd64 nodes with AVX.";
        case 137:
            return "Exit code 137 (SIGKILL) without OOMKilled: the kubelet killed it, usually a failed startup or liveness "
                + "probe (see the probe findings and events); raise the startup budget if the model loads slowly.";
        default:
            return "The server exited; its last log lines above say why (TF Serving exits when a model fails to load "
                + "after --max_num_load_retries). Run `tfs preflight` on the model and check the server flags.";
    }
}

export const imagePull: Rule = (snapshot) => snapshot.pods.flatMap((pod) => statuses(pod).flatMap((cs): Finding[] => {
    const waiting = cs.state?.waiting;
    // A model artifact the pod mounts (an image volume) that fails to pull is the image-volume rule's: not the server image.
    if (!waiting?.reason || !PULL_REASONS.has(waiting.reason) || artifactTrouble(pod, cs, snapshot) !== undefined) {
        return [];
    }
    const image = containerSpec(pod, cs.name)?.image ?? cs.image ?? "?";
    const pullEvents = eventsFor(snapshot.events, "Pod", pod.metadata)
        .filter((e) => e.reason === "Failed" && /pull/i.test(e.message ?? "") && !/^Error: /.test(e.message ?? ""));
    const evidence = [
        `container ${cs.name} image ${image}`,
        `container ${cs.name} state.waiting: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""}`,
        ...pullEvents.slice(0, 2).map(describeEvent),
    ];
    const text = [waiting.message ?? "", ...pullEvents.map((e) => e.message ?? "")].join("\n");
    return [podFinding(pod, {
        kind: "image-pull",
        severity: "error",
        summary: `the node cannot pull image ${image} (${waiting.reason}: ${pullCause(text, waiting.reason)})`,
        evidence,
        fix: pullFix(text, waiting.reason),
    })];
}));

/** Waiting or terminated reasons of a container that could not be created or started. */
const START_FAILURES = new Set(["CreateContainerError", "RunContainerError", "StartError", "ContainerCannotRun"]);

export const cannotStart: Rule = (snapshot) => snapshot.pods.flatMap((pod) => statuses(pod).flatMap((cs): Finding[] => {
    if (artifactTrouble(pod, cs, snapshot) !== undefined) {
        return [];
    }
    const waitingState = cs.state?.waiting;
    const failures = [
        { state: waitingState, text: () => `container ${cs.name} state.waiting: ${waitingState?.reason}: ${waitingState?.message}` },
        { state: cs.state?.terminated, text: () => describeTermination(cs.name, "state", cs.state!.terminated!) },
        { state: cs.lastState?.terminated, text: () => describeTermination(cs.name, "lastState", cs.lastState!.terminated!) },
    ].filter((f) => f.state?.reason !== undefined && START_FAILURES.has(f.state.reason));
    const denied = failures.filter((f) => /permission denied/i.test(f.state?.message ?? ""));
    const events = eventsFor(snapshot.events, "Pod", pod.metadata)
        .filter((e) => e.reason === "Failed" && /permission denied/i.test(e.message ?? ""));
    if (denied.length > 0 || events.length > 0) {
        return [podFinding(pod, {
            kind: "permission-denied",
            severity: "error",
            summary: `container ${cs.name} cannot start: permission denied executing its entrypoint`,
            evidence: [
                ...denied.map((f) => f.text()),
                ...events.slice(0, 2).map(describeEvent),
                runAsEvidence(pod, cs.name),
            ],
            fix: "The server binary (or a file on its path) is not executable by the user the pod runs as. Rebuild the "
                + "image with `tfs build-context` (it sets modes with COPY --chmod) on the tensorflow/serving base, keep "
                + "the entrypoint /usr/bin/tensorflow_model_server, and check that runAsUser matches the image.",
        })];
    }
    const waiting = cs.state?.waiting;
    if (waiting?.reason === "CreateContainerConfigError" || (waiting?.reason !== undefined && START_FAILURES.has(waiting.reason))) {
        return [podFinding(pod, {
            kind: "container-config-error",
            severity: "error",
            summary: `container ${cs.name} cannot be created (${waiting.reason})`,
            evidence: [`container ${cs.name} state.waiting: ${waiting.reason}: ${waiting.message ?? ""}`],
            fix: /runAsNonRoot/.test(waiting.message ?? "")
                ? "The pod requires a non-root user but the image runs as root: build the image with `tfs build-context` "
                    + "(it sets a numeric non-root USER) or set runAsUser."
                : "Fix what the message names (a missing ConfigMap or Secret, a bad security context) and redeploy.",
        })];
    }
    return [];
}));
