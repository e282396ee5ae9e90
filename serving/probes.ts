/**
 * Probes that fit how TF Serving behaves.
 *
 * The server opens its ports only after the initial model versions are AVAILABLE, and
 * `GET /v1/models/NAME` answers 200 in any state (404 for an unknown model). So an HTTP GET on
 * the model's status URL proves the server is up with this model loaded: the startup probe waits
 * for it within a budget that grows with the model, then readiness and liveness keep checking it.
 * (No exec probes: the image has no curl.)
 */
import { ProbeTiming, Sizing } from "./sizing";

export interface HttpProbe {
    httpGet: { path: string; port: string };
    periodSeconds: number;
    timeoutSeconds: number;
    failureThreshold: number;
    successThreshold?: number;
}

export function modelStatusPath(modelName: string): string {
    return `/v1/models/${modelName}`;
}

function probe(modelName: string, timing: ProbeTiming): HttpProbe {
    return { httpGet: { path: modelStatusPath(modelName), port: "http" }, ...timing };
}

export function serverProbes(modelName: string, sizing: Sizing): { startupProbe: HttpProbe; readinessProbe: HttpProbe; livenessProbe: HttpProbe } {
    return {
        startupProbe: probe(modelName, sizing.probes.startup),
        readinessProbe: { ...probe(modelName, sizing.probes.readiness), successThreshold: 1 },
        livenessProbe: probe(modelName, sizing.probes.liveness),
    };
}
