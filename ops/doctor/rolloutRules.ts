/**
 * Deployment-level rules (pods that cannot be created, a rollout past its deadline) and the fallback
 * for a pod that is not Ready for no reason the other rules know.
 */
import { Finding, Rule, describeEvent, duration, podFinding, probeBudgetSeconds, readinessEvidence, secondsSince } from "./findings";
import { CANARY_ROLLED_BACK, INSTANCE_LABEL } from "../../contract/labels";
import { Deployment, eventTime, eventsFor, isPodReady, modelOf } from "./snapshot";

function deploymentObject(d: Deployment): string {
    return `deployment/${d.metadata?.name ?? "(unnamed)"}`;
}

function replicaCounts(d: Deployment): string {
    const s = d.status ?? {};
    return `deployment wants ${d.spec?.replicas ?? 1} replicas: ${s.updatedReplicas ?? 0} updated, ${s.readyReplicas ?? 0} ready, `
        + `${s.availableReplicas ?? 0} available`;
}

export const replicaFailure: Rule = (snapshot) => snapshot.deployments.flatMap((d): Finding[] => {
    const condition = d.status?.conditions?.find((c) => c.type === "ReplicaFailure" && c.status === "True");
    const ownedSets = snapshot.replicaSets.filter((rs) => rs.metadata?.ownerReferences?.some((o) =>
        o.kind === "Deployment" && (o.uid ? o.uid === d.metadata?.uid : o.name === d.metadata?.name)));
    const failedCreates = ownedSets.flatMap((rs) => eventsFor(snapshot.events, "ReplicaSet", rs.metadata))
        .filter((e) => e.reason === "FailedCreate");
    const hasPods = snapshot.pods.some((p) => modelOf(p) === modelOf(d));
    if (!condition && failedCreates.length === 0 && (hasPods || (d.spec?.replicas ?? 1) === 0)) {
        return [];
    }
    const text = [condition?.message ?? "", ...failedCreates.map((e) => e.message ?? "")].join("\n");
    return [{
        kind: "replica-failure",
        severity: "error",
        object: deploymentObject(d),
        model: modelOf(d),
        summary: "the Deployment cannot create its pods",
        evidence: [
            ...(condition ? [`condition ReplicaFailure True (${condition.reason ?? "?"}): ${condition.message ?? ""}`] : []),
            ...failedCreates.slice(0, 2).map(describeEvent),
            replicaCounts(d),
            ...(hasPods ? [] : [`no pod labelled ${INSTANCE_LABEL}=${modelOf(d) ?? "?"} exists`]),
        ],
        fix: /PodSecurity/.test(text)
            ? "The namespace's Pod Security level rejects the pod: the model server is built for `restricted`; a pod spec "
                + "changed by hand (or by a mutating webhook) must keep runAsNonRoot, no privilege escalation, dropped capabilities and a seccomp profile."
            : /quota/i.test(text)
                ? "A ResourceQuota in the namespace is exhausted: raise it or lower the pods' requests."
                : "Read the message above: the API server refused the pod (admission, quota, a missing ServiceAccount).",
    }];
});

export const rolloutStuck: Rule = (snapshot) => snapshot.deployments.flatMap((d): Finding[] => {
    const progressing = d.status?.conditions?.find((c) => c.type === "Progressing");
    if (progressing?.status !== "False") {
        return [];
    }
    return [{
        kind: "rollout-stuck",
        severity: "error",
        object: deploymentObject(d),
        model: modelOf(d),
        summary: "the rollout passed its progress deadline without the new pods becoming available",
        evidence: [`condition Progressing False (${progressing.reason ?? "?"}): ${progressing.message ?? ""}`, replicaCounts(d)],
        fix: "The new pods never became Ready: see the pod findings. `pulumi up` waits for the same rollout and times out with it.",
    }];
});

/**
 * The last canary release of a Deployment failed its gate and was rolled back: the serving version
 * still serves, and the new one never will until the next `pulumi up` passes. Stale once the
 * Deployment has rolled since (a ReplicaSet newer than the event: a later release passed).
 */
export const canaryRolledBack: Rule = (snapshot) => snapshot.deployments.flatMap((d): Finding[] => {
    const event = eventsFor(snapshot.events, "Deployment", d.metadata).find((e) => e.reason === CANARY_ROLLED_BACK);
    const at = event && eventTime(event);
    if (!event || at === undefined) {
        return [];
    }
    const rolledSince = snapshot.replicaSets.some((rs) => rs.metadata?.ownerReferences?.some((o) => o.kind === "Deployment" && o.name === d.metadata?.name)
        && (rs.metadata?.creationTimestamp ?? "") > at);
    if (rolledSince) {
        return [];
    }
    return [{
        kind: "canary-rolled-back",
        severity: "warning",
        object: deploymentObject(d),
        model: modelOf(d),
        summary: "the last canary of a new version failed its gate and was rolled back: the earlier version still serves",
        evidence: [describeEvent(event)],
        fix: "The new model answered worse than the gate allows (the event names the gate, the figure and the threshold). "
            + "Fix the model, or the gate in canary.gates if it is too strict; the next `pulumi up` runs the canary again.",
    }];
});

/** The fallback: a pod that is not Ready while no other rule says why. */
export const notReady: Rule = (snapshot, context) => snapshot.pods.flatMap((pod): Finding[] => {
    if (pod.status?.phase === "Succeeded" || isPodReady(pod)) {
        return [];
    }
    const evidence = [readinessEvidence(pod, context)];
    for (const cs of pod.status?.containerStatuses ?? []) {
        const waiting = cs.state?.waiting;
        if (waiting) {
            evidence.push(`container ${cs.name} state.waiting: ${waiting.reason ?? "?"}${waiting.message ? `: ${waiting.message}` : ""}`);
        }
    }
    evidence.push(...eventsFor(snapshot.events, "Pod", pod.metadata).filter((e) => e.type === "Warning").slice(0, 3).map(describeEvent));
    const age = secondsSince(pod.status?.startTime ?? pod.metadata?.creationTimestamp, context);
    const budget = Math.max(0, ...(pod.spec?.containers ?? []).map((c) => (c.startupProbe ? probeBudgetSeconds(c.startupProbe) : 0)));
    const loading = age !== undefined && age < budget;
    if (age !== undefined) {
        evidence.push(`pod started ${duration(age)} ago; startup budget ${budget}s`);
    }
    return [podFinding(pod, {
        kind: "not-ready",
        severity: loading ? "warning" : "error",
        summary: loading ? "the pod is not Ready yet: the model is probably still loading" : "the pod is not Ready",
        evidence,
        fix: loading
            ? `Wait for the startup budget (${budget}s), then run tfs doctor again; \`tfs smoke --timeout ${budget}\` waits for AVAILABLE.`
            : "No known failure matched: read `kubectl describe pod` and `kubectl logs` for this pod.",
    })];
});
