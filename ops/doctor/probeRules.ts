/**
 * Rules that read probe events. TF Serving opens its ports only after the model is loaded, so a few
 * failed startup probes while it loads are normal; a pod killed by its startup probe, or one that
 * stays unready, is not.
 */
import { humanBytes } from "../../contract/quantity";
import { Finding, Rule, describeEvent, describeProbe, describeTermination, modelMemory, podFinding, probeBudgetSeconds } from "./findings";
import { MODEL_BYTES_ANNOTATION } from "../../contract/labels";
import { Event, Pod, eventsFor, isPodReady } from "./snapshot";

const STARTUP_KILL = /failed startup probe/;
const LIVENESS_KILL = /failed liveness probe/;

function probeEvents(events: Event[], pod: Pod): { kills: Event[]; unhealthy: Event[] } {
    const own = eventsFor(events, "Pod", pod.metadata);
    return {
        kills: own.filter((e) => e.reason === "Killing" && /probe/.test(e.message ?? "")),
        unhealthy: own.filter((e) => e.reason === "Unhealthy" && /probe failed/i.test(e.message ?? "")),
    };
}

export const startupProbeKilled: Rule = (snapshot) => snapshot.pods.flatMap((pod): Finding[] => {
    const { kills, unhealthy } = probeEvents(snapshot.events, pod);
    const kill = kills.find((e) => STARTUP_KILL.test(e.message ?? ""));
    if (!kill) {
        return [];
    }
    const containerName = /Container (\S+) failed/.exec(kill.message ?? "")?.[1];
    const container = pod.spec?.containers?.find((c) => c.name === containerName) ?? pod.spec?.containers?.[0];
    const status = pod.status?.containerStatuses?.find((s) => s.name === container?.name);
    const evidence = [describeEvent(kill)];
    const lastStartupFailure = unhealthy.find((e) => /^Startup probe failed/.test(e.message ?? ""));
    if (lastStartupFailure) {
        evidence.push(describeEvent(lastStartupFailure));
    }
    if (status?.lastState?.terminated) {
        evidence.push(describeTermination(status.name, "lastState", status.lastState.terminated));
    }
    const probe = container?.startupProbe;
    if (probe) {
        evidence.push(describeProbe("startup", probe), `startup budget ${probeBudgetSeconds(probe)}s to load the model`);
    }
    const { modelBytes } = modelMemory(pod, snapshot);
    evidence.push(modelBytes !== undefined
        ? `model size ${humanBytes(modelBytes)} on disk (annotation ${MODEL_BYTES_ANNOTATION})`
        : `model size not recorded (no ${MODEL_BYTES_ANNOTATION} annotation)`);
    return [podFinding(pod, {
        kind: "startup-probe-killed",
        severity: isPodReady(pod) ? "warning" : "error",
        summary: `the kubelet killed container ${container?.name ?? "?"} because its startup probe failed before the model loaded`,
        evidence,
        fix: "TF Serving answers only once the model is loaded, so the startup budget (period x failureThreshold) must cover "
            + "the load time, which grows with the model's size; raise it (or the CPU, which loads faster). Check that the "
            + "image's base matches the nodes (a -gpu base for GPU nodes, amd64): a mismatched base loads slowly or never. "
            + "If the logs say no version was found, the model path is the problem, not the budget.",
    })];
});

export const probeFailed: Rule = (snapshot) => snapshot.pods.flatMap((pod): Finding[] => {
    const { kills, unhealthy } = probeEvents(snapshot.events, pod);
    const livenessKills = kills.filter((e) => LIVENESS_KILL.test(e.message ?? ""));
    const ready = isPodReady(pod);
    // While a ready pod's past startup and readiness failures are the model loading; only restarts matter then.
    if (ready ? livenessKills.length === 0 : unhealthy.length === 0) {
        return [];
    }
    const latestPerProbe = ["Startup", "Readiness", "Liveness"]
        .map((probe) => unhealthy.find((e) => (e.message ?? "").startsWith(`${probe} probe failed`)))
        .filter((e): e is Event => e !== undefined);
    const text = latestPerProbe.map((e) => e.message ?? "").join("\n");
    const failing = new Set(latestPerProbe.map((e) => (e.message ?? "").split(" ")[0].toLowerCase()));
    const probes = (pod.spec?.containers ?? []).flatMap((c) => [
        failing.has("startup") && c.startupProbe ? describeProbe("startup", c.startupProbe) : undefined,
        failing.has("readiness") && c.readinessProbe ? describeProbe("readiness", c.readinessProbe) : undefined,
        failing.has("liveness") || livenessKills.length ? c.livenessProbe && describeProbe("liveness", c.livenessProbe) : undefined,
    ]).filter((p): p is string => p !== undefined);
    return [podFinding(pod, {
        kind: "probe-failed",
        severity: ready ? "warning" : "error",
        summary: ready
            ? "the liveness probe failed and restarted the server"
            : `the pod is not Ready: its ${[...failing].join(" and ")} probe fails`,
        evidence: [...latestPerProbe.map(describeEvent), ...livenessKills.slice(0, 1).map(describeEvent), ...probes],
        fix: probeFix(text),
    })];
});

function probeFix(text: string): string {
    if (/statuscode: 404/.test(text)) {
        return "The server answers 404 for the probed model: the probe's GET /v1/models/NAME names a model the server does "
            + "not serve. Check that modelName matches the name TF Serving serves (--model_name or the model config).";
    }
    if (/connection refused/.test(text)) {
        return "Nothing listens on the port yet: TF Serving opens its ports only after the model is loaded. The model is still "
            + "loading or failed to load: read the pod's log (`kubectl logs`), and `tfs preflight` the model.";
    }
    if (/timeout|deadline exceeded|Client\.Timeout/i.test(text)) {
        return "The server answers too slowly: it is CPU-throttled or overloaded. Raise cpu (threads follow it), or the probe's timeoutSeconds.";
    }
    return "Read the probe messages above and the pod's log; `tfs smoke` shows what the model status endpoint answers.";
}
