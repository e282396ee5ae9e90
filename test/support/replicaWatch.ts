/**
 * An HPA at work, seen from outside: its desired count and its Deployment's ready pods over time,
 * for the autoscaling scenario (test/e2e/autoscaling.test.ts) and its bench (bench/e2e.ts).
 */
import { MODEL, kubectlAsync } from "./e2eProject";

/** Seconds since the watch's start, the HPA's desired replicas, the Deployment's ready ones. */
export interface ReplicaSample { s: number; desired: number; ready: number }

/**
 * Samples `MODEL`'s HPA and Deployment in `namespace` every 5 s into `samples` (a new row only when a
 * count changed) until `until` holds, and returns that sample; rejects once `limitSeconds` pass.
 */
export async function watchReplicas(namespace: string, t0: number, samples: ReplicaSample[], limitSeconds: number,
    until: (s: ReplicaSample) => boolean): Promise<ReplicaSample> {
    const end = Date.now() + limitSeconds * 1000;
    for (;;) {
        // Asynchronous: the traffic runs on this event loop meanwhile.
        const [hpa, d] = await Promise.all([kubectlAsync("get", "hpa", MODEL, "-n", namespace), kubectlAsync("get", "deployment", MODEL, "-n", namespace)]);
        const s = { s: Math.round((Date.now() - t0) / 1000), desired: hpa.status?.desiredReplicas ?? 0, ready: d.status?.readyReplicas ?? 0 };
        const last = samples[samples.length - 1];
        if (!last || last.desired !== s.desired || last.ready !== s.ready) {
            samples.push(s);
        }
        if (until(s)) {
            return s;
        }
        if (Date.now() >= end) {
            throw new Error(`no such replica count within ${limitSeconds} s: ${JSON.stringify(samples)}; HPA conditions ${JSON.stringify(hpa.status?.conditions)}`);
        }
        await new Promise((r) => setTimeout(r, 5000));
    }
}

/** Settles when `p` does, never rejects: the traffic stops either way, the caller awaits `p` itself. */
export const settledOf = (p: Promise<unknown>): Promise<void> => p.then(() => undefined, () => undefined);

/** `0s:1/1 22:3/1 ...`: each sample as seconds, desired / ready. */
export const showReplicas = (samples: ReplicaSample[]): string => samples.map((x) => `${x.s}s:${x.desired}/${x.ready}`).join(" ");
