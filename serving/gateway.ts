/**
 * The L7 endpoint (`endpoint: gateway`): a Gateway API `Gateway` of the cluster's GatewayClass
 * with one listener per serving port, an `HTTPRoute` for REST and a `GRPCRoute` for gRPC, both to
 * the model's ClusterIP Service. Behind an L4 load balancer every HTTP/2 connection stays on one
 * pod, so one gRPC channel reaches one replica; a Gateway balances each request.
 *
 * The listeners keep the LoadBalancer's ports (REST 8501, gRPC 8500), so clients change only the
 * address (and the scheme with TLS). Separate listeners also keep the HTTPRoute and the GRPCRoute
 * off one hostname and port, which the Gateway API lets an implementation refuse.
 */
import { GRPC_PORT, REST_PORT } from "./images";
import { modelStatusPath } from "./probes";

export const GATEWAY_API_VERSION = "gateway.networking.k8s.io/v1";

/**
 * A Gateway's settings: those of every platform, and the Gateway controller's own, one shape per
 * `platform` (the compiler keeps each field to its platform). `generic` (the default): a listener per
 * serving port, an HTTPRoute and a GRPCRoute. `gke`: the shape the GKE Gateway controller serves
 * (renderGkeGatewayObjects). `eks`: the generic shape as the AWS Load Balancer Controller serves it
 * (renderEksGatewayObjects).
 */
export type GatewayInput = {
    /** The model's name: the Gateway's, the routes' and the backend Service's (all in the Service's namespace, which the caller sets). */
    name: string;
    labels: Record<string, string>;
    /** The cluster's GatewayClass (`gateway.className`). */
    className: string;
    /** A `kubernetes.io/tls` Secret in the namespace: the listeners terminate TLS with it. Without it, plaintext (h2c for gRPC). */
    tlsSecretName?: string;
    /**
     * The canary's Service (`canary` set): every rule then sends its requests to two backends, the
     * model's Service at weight 100 and this one at weight 0, and a canary release moves the weights.
     * Unset: one backend without a weight, as before canaries existed (no change to a live route).
     */
    canaryService?: string;
} & (
    | { platform?: "generic" }
    | {
        platform: "gke";
        /** A Certificate Manager certificate map (the `networking.gke.io/certmap` annotation) instead of a Secret. */
        certificateMap?: string;
    }
    | {
        platform: "eks";
        /** The ACM certificate both HTTPS listeners present. */
        certificateArn: string;
        /** The CIDRs the ALB's security group lets in; default any address. */
        sourceRanges?: string[];
        /** Seconds a target group keeps a removed pod draining (the pod's termination grace); default the ALB's 300. */
        drainSeconds?: number;
    }
);

/** The fields every platform's Gateway takes. */
type CommonKey = "name" | "labels" | "className" | "tlsSecretName" | "canaryService";

/** `GatewayInput` on `platform` only. */
type OnPlatform<P extends GatewayPlatform> = Extract<GatewayInput, { platform: P }>;

/** The platform's own part of a `GatewayInput`: `platform` and the fields of that platform. */
export type GatewayPlatformSettings = GatewayInput extends infer G ? G extends unknown ? Omit<G, CommonKey> : never : never;

export type GatewayPlatform = "generic" | "gke" | "eks";

/** Whether the Gateway's listeners terminate TLS: a Secret, GKE's certificate map or EKS's ACM certificate. */
export function gatewayHasTls(input: GatewayPlatformSettings & { tlsSecretName?: string }): boolean {
    return input.tlsSecretName !== undefined || (input.platform === "gke" && input.certificateMap !== undefined) || input.platform === "eks";
}

/** A Kubernetes object of the Gateway API, without its namespace. */
export interface GatewayApiObject {
    apiVersion: string;
    kind: "Gateway" | "HTTPRoute" | "GRPCRoute" | "HealthCheckPolicy" | "LoadBalancerConfiguration" | "TargetGroupConfiguration";
    metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
    spec: Record<string, unknown>;
}

/**
 * The Kubernetes provider waits on a Gateway until its controller has programmed it and published
 * an address: the provider's default await for a custom resource ends at creation, before the
 * controller writes any status, and the stack's outputs are read from that address.
 */
export const GATEWAY_WAIT_FOR = JSON.stringify(["condition=Programmed", "jsonpath={.status.addresses[0].value}"]);

export interface GatewayObjects {
    gateway: GatewayApiObject;
    httpRoute: GatewayApiObject;
    /** Absent on GKE, where the one HTTPRoute carries gRPC too. */
    grpcRoute?: GatewayApiObject;
    /** GKE's health check for the Service's backends. */
    healthCheckPolicy?: GatewayApiObject;
    /** EKS: the ALB's scheme, listener certificates and source ranges (the Gateway's `infrastructure.parametersRef`). */
    loadBalancerConfiguration?: GatewayApiObject;
    /** EKS: the Service's target groups (pod IPs, protocol version, health checks). */
    targetGroupConfiguration?: GatewayApiObject;
    /** With a canary Service: its own health check (GKE) or target groups (EKS), as the model Service has. */
    canaryBackendPolicy?: GatewayApiObject;
}

/** The routes' backends on `port`: the model's Service, and the canary's at weight 0 when there is one. */
function backends(input: GatewayInput, port: number): Record<string, unknown>[] {
    const ref = (name: string) => ({ group: "", kind: "Service", name, port });
    return input.canaryService === undefined ? [ref(input.name)]
        : [{ ...ref(input.name), weight: 100 }, { ...ref(input.canaryService), weight: 0 }];
}

/** `policy` (a HealthCheckPolicy or TargetGroupConfiguration of the model's Service) for the canary's Service. */
function forCanary(input: GatewayInput, policy: GatewayApiObject | undefined, target: (spec: Record<string, unknown>, service: string) => Record<string, unknown>): GatewayApiObject | undefined {
    if (policy === undefined || input.canaryService === undefined) {
        return undefined;
    }
    return { ...policy, metadata: { ...policy.metadata, name: input.canaryService }, spec: target(policy.spec, input.canaryService) };
}

/** TF Serving's gRPC services, the ones a Gateway routes (reflection, health and the rest are not). */
const GRPC_SERVICES = ["PredictionService", "ModelService"].map((service) => `tensorflow.serving.${service}`);

const REST_LISTENER = "rest";
const GRPC_LISTENER = "grpc";

/**
 * The routes' annotation that keeps them Pulumi's after a canary release. A release writes the
 * weights under its own field manager, and `spec.rules` is an atomic list (gateway-api
 * `apis/v1/httproute_types.go`, `grpcroute_types.go`: `+listType=atomic`), so that write owns every
 * rule; pulumi-kubernetes applies without force unless the object's inputs carry this annotation
 * (`provider/pkg/await/await.go`, `patchForce`), so without it the next change of the rules (the
 * canary off, a new match, a port) is refused as a field conflict, at preview too. The provider
 * reads it from the new inputs, so it also frees routes a release (passed, rolled back, or killed
 * midway) left owned. On every route, with or without a canary: turning the canary off is exactly
 * the update that needs it. Nothing else writes a route's spec (a controller writes its status).
 */
export const ROUTE_ANNOTATIONS: Readonly<Record<string, string>> = { "pulumi.com/patchForce": "true" };

/** The Gateway and its routes as Kubernetes objects (apiVersion, kind, metadata, spec). */
export function renderGatewayObjects(input: GatewayInput): GatewayObjects {
    const objects = input.platform === "gke" ? renderGkeGatewayObjects(input)
        : input.platform === "eks" ? renderEksGatewayObjects(input) : renderListenerGateway(input, input.tlsSecretName !== undefined);
    const owned = (route: GatewayApiObject): GatewayApiObject =>
        ({ ...route, metadata: { ...route.metadata, annotations: { ...route.metadata.annotations, ...ROUTE_ANNOTATIONS } } });
    objects.httpRoute = owned(objects.httpRoute);
    if (objects.grpcRoute) {
        objects.grpcRoute = owned(objects.grpcRoute);
    }
    return objects;
}

/** A listener per serving port, HTTPS when `https` (with the Secret's certificate when one is named), an HTTPRoute and a GRPCRoute. */
function renderListenerGateway(input: GatewayInput, https: boolean): GatewayObjects {
    const metadata = { name: input.name, labels: input.labels };
    const listener = (name: string, port: number, kind: "HTTPRoute" | "GRPCRoute") => ({
        name,
        port,
        protocol: https ? "HTTPS" : "HTTP",
        ...(input.tlsSecretName === undefined ? {} : {
            tls: { mode: "Terminate", certificateRefs: [{ group: "", kind: "Secret", name: input.tlsSecretName }] },
        }),
        allowedRoutes: { namespaces: { from: "Same" }, kinds: [{ group: "gateway.networking.k8s.io", kind }] },
    });
    const parent = (sectionName: string) => [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: input.name, sectionName }];
    const backend = (port: number) => backends(input, port);
    return {
        gateway: {
            apiVersion: GATEWAY_API_VERSION,
            kind: "Gateway",
            metadata: { ...metadata, annotations: { "pulumi.com/waitFor": GATEWAY_WAIT_FOR } },
            spec: {
                gatewayClassName: input.className,
                listeners: [listener(REST_LISTENER, REST_PORT, "HTTPRoute"), listener(GRPC_LISTENER, GRPC_PORT, "GRPCRoute")],
            },
        },
        httpRoute: {
            apiVersion: GATEWAY_API_VERSION,
            kind: "HTTPRoute",
            metadata,
            spec: {
                parentRefs: parent(REST_LISTENER),
                rules: [{ matches: [{ path: { type: "PathPrefix", value: "/v1/" } }], backendRefs: backend(REST_PORT) }],
            },
        },
        grpcRoute: {
            apiVersion: GATEWAY_API_VERSION,
            kind: "GRPCRoute",
            metadata,
            spec: {
                parentRefs: parent(GRPC_LISTENER),
                // TF Serving's two services; anything else (reflection, health) is not routed.
                rules: [{
                    matches: GRPC_SERVICES.map((service) => ({ method: { type: "Exact", service } })),
                    backendRefs: backend(GRPC_PORT),
                }],
            },
        },
    };
}

/** The API version of the AWS Load Balancer Controller's gateway CRDs (v1, their storage version since the controller's v3.5.0). */
export const AWS_GATEWAY_CONFIG_VERSION = "gateway.k8s.aws/v1";

/** The gRPC health check method an ALB calls by default; TF Serving, like any gRPC server, answers UNIMPLEMENTED (12). */
const ALB_GRPC_HEALTH_CHECK = { path: "/AWS.ALB/healthcheck", grpcCode: "12" };

/** Probe a target every 10 s; 2 answers in a row bring it in or take it out (the ALB's defaults, 30 s and 5, keep a new pod out for 2.5 min). */
const ALB_HEALTH_CHECK_TIMING = { healthCheckInterval: 10, healthCheckTimeout: 5, healthyThresholdCount: 2, unhealthyThresholdCount: 2 };

/**
 * The AWS Load Balancer Controller's shape: the generic Gateway (REST 8501 and gRPC 8500, both
 * HTTPS, an HTTPRoute and a GRPCRoute), whose listeners take their certificate from a
 * `LoadBalancerConfiguration` (the controller reads no `certificateRefs`), referenced from the
 * Gateway's `infrastructure.parametersRef`: internet-facing (the controller's default is internal),
 * the ACM certificate on both listeners, TLS 1.2 and 1.3 only, the source ranges. One
 * `TargetGroupConfiguration` for the Service (the controller takes one per Service): pod IPs as
 * targets; REST's target group HTTP/1.1 (TF Serving's REST server speaks nothing else) with the health
 * check on the model status on the REST port; gRPC's (the GRPCRoute's) protocol version GRPC, whose
 * health check can only be a gRPC call (an ALB sends a gRPC target group's checks as gRPC requests,
 * matched on gRPC codes): the ALB's default method on the gRPC port, which TF Serving answers
 * UNIMPLEMENTED, so a target counts healthy while its gRPC server answers. Pods are registered only
 * once Ready, and Ready is the model status (the readiness probe), so both target groups hold only
 * pods whose model is loaded.
 */
function renderEksGatewayObjects(input: OnPlatform<"eks">): GatewayObjects {
    if (input.certificateArn === undefined) {
        throw new Error(`model "${input.name}": an EKS Gateway needs an ACM certificate ARN (gateway.certificateArn)`);
    }
    const objects = renderListenerGateway(input, true);
    const metadata = { name: input.name, labels: input.labels };
    const listener = (port: number) => ({
        protocolPort: `HTTPS:${port}`,
        defaultCertificate: input.certificateArn,
        sslPolicy: "ELBSecurityPolicy-TLS13-1-2-2021-06",
    });
    const healthCheck = (port: number, path: string, matcher: Record<string, string>) => ({
        healthCheckPath: path, healthCheckPort: String(port), healthCheckProtocol: "HTTP", matcher, ...ALB_HEALTH_CHECK_TIMING,
    });
    const drain = input.drainSeconds === undefined ? {} : {
        targetGroupAttributes: [{ key: "deregistration_delay.timeout_seconds", value: String(input.drainSeconds) }],
    };
    objects.gateway.spec.infrastructure = {
        parametersRef: { group: "gateway.k8s.aws", kind: "LoadBalancerConfiguration", name: input.name },
    };
    objects.loadBalancerConfiguration = {
        apiVersion: AWS_GATEWAY_CONFIG_VERSION,
        kind: "LoadBalancerConfiguration",
        metadata,
        spec: {
            scheme: "internet-facing",
            listenerConfigurations: [listener(REST_PORT), listener(GRPC_PORT)],
            ...(input.sourceRanges?.length ? { sourceRanges: input.sourceRanges } : {}),
        },
    };
    objects.targetGroupConfiguration = {
        apiVersion: AWS_GATEWAY_CONFIG_VERSION,
        kind: "TargetGroupConfiguration",
        metadata,
        spec: {
            targetReference: { name: input.name },
            defaultConfiguration: {
                targetType: "ip",
                protocolVersion: "HTTP1",
                healthCheckConfig: healthCheck(REST_PORT, modelStatusPath(input.name), { httpCode: "200" }),
                ...drain,
            },
            // Matched by kind: the only GRPCRoute to this Service is the model's own.
            routeConfigurations: [{
                routeIdentifier: { kind: "GRPCRoute" },
                targetGroupProps: {
                    targetType: "ip",
                    protocolVersion: "GRPC",
                    healthCheckConfig: healthCheck(GRPC_PORT, ALB_GRPC_HEALTH_CHECK.path, { grpcCode: ALB_GRPC_HEALTH_CHECK.grpcCode }),
                    ...drain,
                },
            }],
        },
    };
    objects.canaryBackendPolicy = forCanary(input, objects.targetGroupConfiguration, (spec, name) => ({ ...spec, targetReference: { name } }));
    return objects;
}

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
function renderGkeGatewayObjects(input: OnPlatform<"gke">): GatewayObjects {
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
    const objects: GatewayObjects = {
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
                    { matches: [{ path: { type: "PathPrefix", value: "/v1/" } }], backendRefs: backend(REST_PORT) },
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
    objects.canaryBackendPolicy = forCanary(input, objects.healthCheckPolicy, (spec, name) => ({ ...spec, targetRef: { ...service, name } }));
    return objects;
}

/** The endpoint the Gateway serves at `address`: https and TLS when a Secret is named; `port` when all share one (GKE). */
export function gatewayEndpoints(address: string, tls: boolean, port?: number): { restUrl: string; grpcEndpoint: string } {
    const host = address.includes(":") ? `[${address}]` : address;
    return { restUrl: `${tls ? "https" : "http"}://${host}:${port ?? REST_PORT}`, grpcEndpoint: `${host}:${port ?? GRPC_PORT}` };
}

/** What a preview says when the Gateway has no TLS Secret: every request crosses the network in the clear. */
export function plaintextGatewayWarning(name: string, className: string): string {
    return `model "${name}": the Gateway (class ${className}) has no TLS Secret (gateway.tlsSecretName), so REST and gRPC ` +
        "are PLAINTEXT (HTTP and h2c) to anyone who can reach it; name a kubernetes.io/tls Secret in the namespace to terminate TLS";
}
