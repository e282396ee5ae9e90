/**
 * The GKE Gateway controller's Gateway (`platform: "gke"`): the objects it reads, pure (no SDK), so
 * `ModelGateway` renders them on any stack and the tests read them directly.
 */
import { GRPC_PORT, REST_PORT } from "../../../serving/images";
import { modelStatusPath } from "../../../serving/probes";
import {
    GATEWAY_API_VERSION, GATEWAY_WAIT_FOR, GRPC_SERVICES, GatewayApiObject, GatewayBase, GatewayObjects, GatewayRenderer, backends, forCanary, restMatches,
} from "../../../serving/gateway";

/** The GKE Gateway controller's own Gateway fields. */
export interface GkeGatewaySettings {
    platform: "gke";
    /** A Certificate Manager certificate map (the `networking.gke.io/certmap` annotation) instead of a Secret. */
    certificateMap?: string;
}

/** What `renderGkeGatewayObjects` returns: the generic objects and, by name, the controller's own. */
export type GkeGatewayObjects = GatewayObjects & {
    /** The health check of the Service's backends. */
    healthCheckPolicy: GatewayApiObject;
    /** With a canary Service: its own health check, as the model Service has. */
    canaryBackendPolicy?: GatewayApiObject;
};

/** The GKE Gateway's one port: Google's external Application Load Balancer serves HTTPS on 443. */
export const GKE_HTTPS_PORT = 443;

/**
 * The GKE Gateway controller's shape. One HTTPS listener on 443 (the port Google's HTTPS load
 * balancer certainly serves), TLS from a Certificate Manager map (annotation) or a Secret. One
 * HTTPRoute: REST's `/v1/` to the REST port and gRPC's `/tensorflow.serving.*` paths (gRPC is
 * HTTP/2 POST to /SERVICE/METHOD) to the gRPC port, which the Service marks `kubernetes.io/h2c` so
 * the load balancer speaks HTTP/2 to it; an HTTPRoute is what every GKE GatewayClass serves,
 * GRPCRoute is not in GKE's documented route kinds. A HealthCheckPolicy probes TF Serving's model
 * status on the REST port for every backend of the Service: the load balancer's default check
 * (HTTP GET / on the serving port) gets 404 from REST and no HTTP/1 answer from the gRPC port, so
 * both backends would be marked down.
 */
export function renderGkeGatewayObjects(input: GatewayBase & GkeGatewaySettings): GkeGatewayObjects {
    // The outputs need the address GKE writes once the load balancer is programmed, as on a local cluster.
    const annotations = {
        "pulumi.com/waitFor": GATEWAY_WAIT_FOR,
        ...(input.certificateMap === undefined ? {} : { "networking.gke.io/certmap": input.certificateMap }),
    };
    const tls = input.tlsSecretName === undefined ? {} : {
        tls: { mode: "Terminate", certificateRefs: [{ group: "", kind: "Secret", name: input.tlsSecretName }] },
    };
    const backend = (port: number) => backends(input, port);
    const service = { group: "", kind: "Service", name: input.name };
    const objects: Omit<GkeGatewayObjects, "policies" | "canaryBackendPolicy"> = {
        gateway: {
            apiVersion: GATEWAY_API_VERSION,
            kind: "Gateway",
            metadata: { name: input.name, labels: input.labels, annotations },
            spec: {
                gatewayClassName: input.className,
                listeners: [{
                    name: "https",
                    port: GKE_HTTPS_PORT,
                    protocol: "HTTPS",
                    ...tls,
                    allowedRoutes: { namespaces: { from: "Same" }, kinds: [{ group: "gateway.networking.k8s.io", kind: "HTTPRoute" }] },
                }],
            },
        },
        httpRoute: {
            apiVersion: GATEWAY_API_VERSION,
            kind: "HTTPRoute",
            metadata: { name: input.name, labels: input.labels },
            spec: {
                parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: input.name, sectionName: "https" }],
                rules: [
                    { matches: restMatches(input.name), backendRefs: backend(REST_PORT) },
                    { matches: GRPC_SERVICES.map((s) => ({ path: { type: "PathPrefix", value: `/${s}/` } })), backendRefs: backend(GRPC_PORT) },
                ],
            },
        },
        healthCheckPolicy: {
            apiVersion: "networking.gke.io/v1",
            kind: "HealthCheckPolicy",
            metadata: { name: input.name, labels: input.labels },
            spec: {
                // A fixed port must say so: the CRD refuses a `port` without `portSpecification: USE_FIXED_PORT`
                // (GoogleCloudPlatform/gke-gateway-api, apis/networking/v1/healthcheck_types.go, CommonHealthCheck's
                // XValidation "port and portName must be unset for portSpecification being USE_SERVING_PORT (which is the default)").
                default: { config: { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: REST_PORT, requestPath: modelStatusPath(input.name) } } },
                targetRef: service,
            },
        },
    };
    const canaryBackendPolicy = forCanary(input, objects.healthCheckPolicy, (spec, name) => ({ ...spec, targetRef: { ...service, name } }));
    return {
        ...objects, canaryBackendPolicy,
        policies: [
            ...(canaryBackendPolicy ? [{ suffix: "canary-health-check", object: canaryBackendPolicy, before: "routes" as const, canary: true }] : []),
            { suffix: "health-check", object: objects.healthCheckPolicy },
        ],
    };
}

/** The GKE Gateway controller, as `ModelGateway` renders for it: one HTTPS port, TLS from a Secret or a certificate map. */
export const GKE_GATEWAY: GatewayRenderer<GkeGatewaySettings> = {
    render: renderGkeGatewayObjects,
    hasTls: (input) => input.tlsSecretName !== undefined || input.certificateMap !== undefined,
    port: GKE_HTTPS_PORT,
};

