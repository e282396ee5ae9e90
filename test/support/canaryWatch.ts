/**
 * What a canary release did, seen from outside while it runs: once a second, the canary's weight on
 * the HTTPRoute, and each pod's count of successful inference calls read from the pod's own
 * metrics page (REST `predict` and gRPC `Predict`), the serving pods and the canary's apart. The
 * share each step really gave the canary is then what its pods answered, not what the route said.
 */
import { METRICS_PATH } from "../../serving/flags";
import { canaryName } from "../../contract/labels";
import { canaryShare, inferenceCounters } from "../../serving/canary";
import { CliResult } from "./cli";
import { kubectlAsync } from "./e2eProject";
import { GrpcTrafficReport } from "./grpcTraffic";
import { TrafficReport } from "./traffic";

export interface CanarySample {
    at: number;
    /** The canary's percent on the HTTPRoute. */
    weight: number;
    /** Successful inference calls answered since the watch began, by the serving pods and by the canary's. */
    serving: number;
    canary: number;
    /** Names of the Ready pods of each. */
    servingPods: string[];
    canaryPods: string[];
}

interface PodRow { metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string }; status: { podIP?: string; conditions?: { type: string; status: string }[] } }

async function podCalls(ip: string, model: string): Promise<number | undefined> {
    try {
        const page = await (await fetch(`http://${ip}:8501${METRICS_PATH}`, { signal: AbortSignal.timeout(2000) })).text();
        return inferenceCounters(page, model).succeeded;
    } catch {
        return undefined;
    }
}

/** Samples every second until `during` settles (at most `maxSeconds`). */
export async function watchCanary(namespace: string, model: string, during: Promise<unknown>, maxSeconds = 900): Promise<CanarySample[]> {
    let done = false;
    during.then(() => { done = true; }, () => { done = true; });
    const samples: CanarySample[] = [];
    const last = new Map<string, number>();
    const totals = { serving: 0, canary: 0 };
    const until = Date.now() + maxSeconds * 1000;
    while (!done && Date.now() < until) {
        const started = Date.now();
        const [route, pods] = await Promise.all([
            kubectlAsync("get", "httproute", model, "-n", namespace).catch(() => undefined),
            kubectlAsync("get", "pods", "-n", namespace, "-l", "app.kubernetes.io/component=model-server").catch(() => ({ items: [] })),
        ]);
        const ready = (pods.items as PodRow[]).filter((p) => p.status.podIP && !p.metadata.deletionTimestamp
            && p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
        const track = (p: PodRow) => (p.metadata.labels["app.kubernetes.io/instance"] === canaryName(model) ? "canary" : "serving");
        await Promise.all((pods.items as PodRow[]).filter((p) => p.status.podIP).map(async (p) => {
            const calls = await podCalls(p.status.podIP as string, model);
            if (calls === undefined) {
                return;
            }
            const before = last.get(p.metadata.name);
            // A pod's first reading is its baseline; what it answered before that is not counted.
            totals[track(p)] += before === undefined ? 0 : Math.max(0, calls - before);
            last.set(p.metadata.name, calls);
        }));
        samples.push({
            at: Date.now(),
            weight: route ? canaryShare(route.spec.rules ?? [], canaryName(model)) : 0,
            ...totals,
            servingPods: ready.filter((p) => track(p) === "serving").map((p) => p.metadata.name),
            canaryPods: ready.filter((p) => track(p) === "canary").map((p) => p.metadata.name),
        });
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
    }
    return samples;
}

export interface ObservedStep {
    weight: number;
    seconds: number;
    /**
     * The calls the pods answered while the route held `weight`: from `settleSeconds` after the route
     * took it, or, when later, from the canary's first call (a step from 0: the Gateway applies a
     * route seconds after it changes, and the release's hold starts at that call too).
     */
    calls: number;
    /** Seconds from the route taking the weight to the first sample with a call the canary answered; undefined without one. */
    routedAfter?: number;
    /** The canary pods' share of them, in percent. */
    canaryPercent: number;
    /** When the route took and left the weight. */
    from: number;
    to: number;
}

/** Each run of one canary weight above 0, with the share the canary's pods really answered. */
/** One `pulumi` command run under traffic while the canary's share was sampled: what the e2e files assert on. */
export interface CanaryRun {
    result: CliResult;
    rest: TrafficReport;
    grpc: GrpcTrafficReport;
    samples: CanarySample[];
    steps: ObservedStep[];
}

export function observedSteps(samples: CanarySample[], settleSeconds = 2): ObservedStep[] {
    const steps: ObservedStep[] = [];
    let start = 0;
    for (let i = 1; i <= samples.length; i++) {
        if (i < samples.length && samples[i].weight === samples[start].weight) {
            continue;
        }
        const run = samples.slice(start, i);
        const weight = run[0].weight;
        const settled = run.find((s) => s.at >= run[0].at + settleSeconds * 1000) ?? run[0];
        const routed = run.find((s) => s.canary > run[0].canary);
        const first = routed !== undefined && routed.at > settled.at ? routed : settled;
        const end = run[run.length - 1];
        if (weight > 0 && run.length > 1) {
            const canary = end.canary - first.canary;
            const calls = canary + end.serving - first.serving;
            steps.push({
                weight, seconds: (end.at - run[0].at) / 1000, calls, canaryPercent: calls === 0 ? 0 : (100 * canary) / calls,
                routedAfter: routed === undefined ? undefined : (routed.at - run[0].at) / 1000, from: run[0].at, to: samples[i]?.at ?? end.at,
            });
        }
        start = i;
    }
    return steps;
}
