/**
 * `tfs doctor`: read the model server's state from the cluster and name what is wrong with it.
 * The rules (`diagnose`) are pure; `collectSnapshot` is the only part that talks to the cluster.
 */
import { CollectOptions, ClusterTarget, collectSnapshot } from "./collector";
import { diagnose, servedModels } from "./diagnose";
import { EndpointCheck, probeEndpoints } from "./endpointProbe";
import { DoctorResult } from "./report";

export { ClusterUnreachableError, TargetError } from "./collector";
export type { ClusterTarget } from "./collector";
export { DEFAULT_LB_GRACE_SECONDS, diagnose } from "./diagnose";
export type { Diagnosis } from "./diagnose";
export type { EndpointCheck, ModelEndpoints } from "./endpointProbe";
export type { Finding, FindingKind, Severity } from "./findings";
export { doctorJson, formatReport } from "./report";
export type { DoctorResult } from "./report";

/** 0 nothing wrong; 1 problems found; 2 bad usage (flags, kubeconfig, namespace); 3 the cluster could not be reached. */
export const DOCTOR_EXIT_CODES = { healthy: 0, problems: 1, usage: 2, unreachable: 3 } as const;

export interface DoctorOptions extends CollectOptions {
    /** Only this model (its `app.kubernetes.io/instance` label); default every model server in the namespace. */
    model?: string;
    /** Seconds a LoadBalancer may go without an address before it is an error; default 300. */
    loadBalancerGraceSeconds?: number;
    /**
     * Where the models are served from outside the cluster: each model found (or `model`) gets one
     * model status call per endpoint, so a refusal (401/403) is named. Default: no call.
     */
    endpoints?: EndpointCheck;
}

export async function runDoctor(target: ClusterTarget, options: DoctorOptions = {}): Promise<DoctorResult> {
    const { snapshot, cluster, unreadLogs } = await collectSnapshot(target, options);
    if (options.endpoints !== undefined) {
        snapshot.endpoints = await probeEndpoints(servedModels(snapshot, options.model), options.endpoints);
    }
    const diagnosis = diagnose(snapshot, {
        model: options.model,
        now: Date.now(),
        loadBalancerGraceSeconds: options.loadBalancerGraceSeconds,
    });
    return { diagnosis, cluster, unreadLogs };
}
