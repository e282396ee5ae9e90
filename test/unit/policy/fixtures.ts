import { modelServerLabels } from "../../../contract/labels";
import { DeploymentProps, ServiceProps } from "../../../policy/checks";

/** Labels the ModelServer component puts on everything it creates. */
export const MODEL_SERVER_LABELS = modelServerLabels("half-plus-two");

export const DIGEST_IMAGE = `europe-docker.pkg.dev/p/models/half-plus-two@sha256:${"0123456789abcdef".repeat(4)}`;

/** A model-server Deployment that passes every policy (as ModelServer writes it, trimmed). */
export function goodDeployment(): DeploymentProps {
    return {
        metadata: { name: "half-plus-two", labels: { ...MODEL_SERVER_LABELS } },
        spec: {
            replicas: 2,
            strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
            template: {
                metadata: { labels: { ...MODEL_SERVER_LABELS } },
                spec: {
                    containers: [{
                        name: "tf-serving",
                        image: DIGEST_IMAGE,
                        resources: { requests: { cpu: "1", memory: "512Mi" }, limits: { cpu: "1", memory: "1Gi" } },
                        readinessProbe: { httpGet: { path: "/v1/models/half-plus-two", port: "http" } },
                        startupProbe: { httpGet: { path: "/v1/models/half-plus-two", port: "http" } },
                        livenessProbe: { tcpSocket: { port: "grpc" } },
                    }],
                },
            },
        },
    };
}

/** A model-server LoadBalancer Service that admits one client range. */
export function goodService(): ServiceProps {
    return {
        metadata: { name: "half-plus-two", labels: { ...MODEL_SERVER_LABELS }, annotations: {} },
        spec: { type: "LoadBalancer", selector: { ...MODEL_SERVER_LABELS }, loadBalancerSourceRanges: ["203.0.113.0/24"] },
    };
}

/** The first container of a Deployment made by `goodDeployment`. */
export function firstContainer(d: DeploymentProps) {
    const container = d.spec?.template?.spec?.containers?.[0];
    if (container === undefined) {
        throw new Error("fixture has no container");
    }
    return container;
}
