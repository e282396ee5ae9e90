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

export const GATEWAY_API_VERSION = "gateway.networking.k8s.io/v1";

/**
 * The Gateway's settings every controller takes. A controller's own fields (a certificate map, an
 * ACM certificate) come with its `platform`, in the folder of the cloud that runs it
 * (`components/clouds/gateways.ts` assembles the union the compiler checks).
 */
export interface GatewayBase {
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
    /**
     * The CIDRs allowed to call the model; empty or unset: any address. Each controller enforces them its
     * own way (Traefik's `ipAllowList` Middleware, a Cloud Armor policy on GKE, the ALB's security group
     * on EKS), on the canary's Service too.
     */
    sourceRanges?: string[];
}

/** The Gateway controllers whose own objects enforce source ranges and caller authentication here. */
export const GATEWAY_CONTROLLERS = ["traefik"] as const;
export type GatewayController = typeof GATEWAY_CONTROLLERS[number];

/**
 * The Gateway controller that any conformant implementation is (Traefik, Envoy Gateway, ...). Source
 * ranges and caller authentication are not in the Gateway API: they need the controller named.
 */
export interface GenericGatewaySettings {
    platform?: "generic";
    /**
     * The controller that serves `className`, when its own objects are to enforce `sourceRanges` (and
     * caller authentication): `traefik` (Traefik v3 with its Kubernetes CRD provider, which serves the
     * `traefik.io` Middlewares the routes reference). Unset: any controller, and neither is possible.
     */
    controller?: GatewayController;
    /**
     * The host gRPC clients name (their `:authority`) for this model. A gRPC request carries the model's
     * name inside its body, so where several models' Gateways share one address (Traefik serves every
     * Gateway of its class on the same entry points) only the host tells their GRPCRoutes apart.
     * Unset: the GRPCRoute matches any host.
     */
    grpcHostname?: string;
    /**
     * A Secret in the namespace whose one key holds the callers' htpasswd lines (`user:HASH`, bcrypt,
     * SHA1 or MD5): every rule then requires `authorization: Basic ...` (`controller: traefik`).
     */
    basicAuthSecret?: string;
}

/**
 * A Gateway controller's shape of the objects (`generic` here; a cloud's controller in its folder):
 * pure, so `ModelGateway` registers what it returns and tests read it directly.
 */
export interface GatewayRenderer<S extends { platform?: string }> {
    /** The Gateway, its routes and the controller's own objects, before `ROUTE_ANNOTATIONS`. */
    render(input: GatewayBase & S): GatewayObjects;
    /** Whether the listeners terminate TLS (a Secret, or the controller's own certificate). */
    hasTls(input: S & { tlsSecretName?: string }): boolean;
    /** The one port REST and gRPC share on its load balancer; undefined: REST and gRPC keep their own ports. */
    readonly port?: number;
}

/** A Kubernetes object of the Gateway API, without its namespace. */
export interface GatewayApiObject {
    apiVersion: string;
    /** `Gateway`, `HTTPRoute`, `GRPCRoute`, or a controller's own kind. */
    kind: string;
    metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
    spec: Record<string, unknown>;
}

/**
 * The Kubernetes provider waits on a Gateway until its controller has programmed it and published
 * an address: the provider's default await for a custom resource ends at creation, before the
 * controller writes any status, and the stack's outputs are read from that address.
 */
export const GATEWAY_WAIT_FOR = JSON.stringify(["condition=Programmed", "jsonpath={.status.addresses[0].value}"]);

/**
 * An object a Gateway controller reads beside the Gateway and its routes (a load balancer's health
 * check, its listeners' certificates, its target groups), registered by `ModelGateway` as
 * `<name>-<suffix>`.
 */
export interface GatewayPolicy {
    /** The child resource's name after the component's: `<name>-<suffix>`. */
    suffix: string;
    object: GatewayApiObject;
    /**
     * What waits for it: the Gateway (the controller builds the load balancer when it first sees the
     * Gateway, and some of its settings cannot change afterwards), the routes, or nothing.
     */
    before?: "gateway" | "routes";
    /** The canary Service's own policy: made with the canary, never a child of `ModelServer` (no alias to that former parent). */
    canary?: boolean;
}

export interface GatewayObjects {
    gateway: GatewayApiObject;
    httpRoute: GatewayApiObject;
    /** Absent where the one HTTPRoute carries gRPC too. */
    grpcRoute?: GatewayApiObject;
    /** The controller's own objects, in the order they are registered. */
    policies: GatewayPolicy[];
}

/** The routes' backends on `port`: the model's Service, and the canary's at weight 0 when there is one. */
export function backends(input: GatewayBase, port: number): Record<string, unknown>[] {
    const ref = (name: string) => ({ group: "", kind: "Service", name, port });
    return input.canaryService === undefined ? [ref(input.name)]
        : [{ ...ref(input.name), weight: 100 }, { ...ref(input.canaryService), weight: 0 }];
}

/** `policy` (a HealthCheckPolicy or TargetGroupConfiguration of the model's Service) for the canary's Service. */
export function forCanary(input: GatewayBase, policy: GatewayApiObject | undefined, target: (spec: Record<string, unknown>, service: string) => Record<string, unknown>): GatewayApiObject | undefined {
    if (policy === undefined || input.canaryService === undefined) {
        return undefined;
    }
    return { ...policy, metadata: { ...policy.metadata, name: input.canaryService }, spec: target(policy.spec, input.canaryService) };
}

/** TF Serving's REST methods that follow the model's (or its version's) path after a colon. */
const REST_METHODS = ["predict", "classify", "regress"];

/**
 * The paths of `model`'s REST API, and no other model's: its status and metadata (`/v1/models/NAME`
 * and below it, the `/versions/N` and `/labels/L` forms included, whose methods follow their last
 * element) and its methods (`/v1/models/NAME:predict`). A PathPrefix matches whole path elements
 * (gateway-api `apis/v1/httproute_types.go`, `PathMatchPathPrefix`), and `NAME:predict` is one
 * element, so the methods of the model's own path are Exact matches. Several models' routes on one
 * address then never take each other's requests.
 */
export function restMatches(model: string): Record<string, unknown>[] {
    const base = `/v1/models/${model}`;
    return [
        { path: { type: "PathPrefix", value: base } },
        ...REST_METHODS.map((method) => ({ path: { type: "Exact", value: `${base}:${method}` } })),
    ];
}

/** TF Serving's gRPC services, the ones a Gateway routes (reflection, health and the rest are not). */
export const GRPC_SERVICES = ["PredictionService", "ModelService"].map((service) => `tensorflow.serving.${service}`);

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

/** `objects` (a renderer's) with the routes carrying `ROUTE_ANNOTATIONS`. */
export function withRouteAnnotations(objects: GatewayObjects): GatewayObjects {
    const owned = (route: GatewayApiObject): GatewayApiObject =>
        ({ ...route, metadata: { ...route.metadata, annotations: { ...route.metadata.annotations, ...ROUTE_ANNOTATIONS } } });
    return { ...objects, httpRoute: owned(objects.httpRoute), ...(objects.grpcRoute ? { grpcRoute: owned(objects.grpcRoute) } : {}) };
}

/** Any conformant controller: a listener per serving port, HTTPS with the Secret's certificate when one is named. */
export const GENERIC_GATEWAY: GatewayRenderer<GenericGatewaySettings> = {
    render: renderGenericGateway,
    hasTls: (input) => input.tlsSecretName !== undefined,
};

/** The API version of Traefik's Middleware (its Kubernetes CRD provider; traefik `pkg/provider/kubernetes/crd/traefikio/v1alpha1`). */
export const TRAEFIK_MIDDLEWARE_VERSION = "traefik.io/v1alpha1";

/**
 * The generic Gateway, and with `controller: traefik` the Middlewares that enforce the source ranges
 * (`ipAllowList`: 403 to any other address, which a gRPC client reads as PERMISSION_DENIED) and the
 * callers' credentials (`basicAuth`: 401, UNAUTHENTICATED), each referenced by an `ExtensionRef` filter
 * from every rule of both routes. Traefik's Gateway provider resolves a filter of group `traefik.io`,
 * kind `Middleware` through its CRD provider (traefik `pkg/provider/kubernetes/gateway/httproute.go`
 * and `grpcroute.go`, `loadHTTPRouteFilterExtensionRef`; `pkg/provider/kubernetes/crd/kubernetes.go`
 * registers it). The canary's Service is a backend of the same rules, so its share passes the same
 * filters. The ranges come first: an address outside them learns nothing about the credentials.
 */
export function renderGenericGateway(input: GatewayBase & GenericGatewaySettings): GatewayObjects {
    const objects = renderListenerGateway(input, input.tlsSecretName !== undefined);
    if (input.grpcHostname !== undefined && objects.grpcRoute !== undefined) {
        objects.grpcRoute.spec.hostnames = [input.grpcHostname];
    }
    if (input.controller !== "traefik") {
        return objects;
    }
    const middleware = (suffix: string, spec: Record<string, unknown>): GatewayPolicy => ({
        suffix,
        object: { apiVersion: TRAEFIK_MIDDLEWARE_VERSION, kind: "Middleware", metadata: { name: `${input.name}-${suffix}`, labels: input.labels }, spec },
        before: "routes",
    });
    const policies: GatewayPolicy[] = [];
    if (input.sourceRanges !== undefined && input.sourceRanges.length > 0) {
        policies.push(middleware("source-ranges", { ipAllowList: { sourceRange: input.sourceRanges } }));
    }
    if (input.basicAuthSecret !== undefined) {
        // removeHeader: the model server never sees a caller's password.
        policies.push(middleware("basic-auth", { basicAuth: { secret: input.basicAuthSecret, realm: "tf-serving", removeHeader: true } }));
    }
    if (policies.length === 0) {
        return objects;
    }
    const filters = policies.map((p) => ({ type: "ExtensionRef", extensionRef: { group: "traefik.io", kind: "Middleware", name: p.object.metadata.name } }));
    const filtered = (route: GatewayApiObject): GatewayApiObject => ({
        ...route,
        spec: { ...route.spec, rules: (route.spec.rules as Record<string, unknown>[]).map((rule) => ({ ...rule, filters })) },
    });
    return {
        ...objects,
        httpRoute: filtered(objects.httpRoute),
        ...(objects.grpcRoute ? { grpcRoute: filtered(objects.grpcRoute) } : {}),
        policies: [...objects.policies, ...policies],
    };
}

/** A listener per serving port, HTTPS when `https` (with the Secret's certificate when one is named), an HTTPRoute and a GRPCRoute. */
export function renderListenerGateway(input: GatewayBase, https: boolean): GatewayObjects {
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
                rules: [{ matches: restMatches(input.name), backendRefs: backend(REST_PORT) }],
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
        policies: [],
    };
}

/** The endpoint the Gateway serves at `address`: https with TLS; `port` when REST and gRPC share one (`GatewayRenderer.port`). */
export function gatewayEndpoints(address: string, tls: boolean, port?: number): { restUrl: string; grpcEndpoint: string } {
    const host = address.includes(":") ? `[${address}]` : address;
    return { restUrl: `${tls ? "https" : "http"}://${host}:${port ?? REST_PORT}`, grpcEndpoint: `${host}:${port ?? GRPC_PORT}` };
}

/** What a preview says when the Gateway has no TLS Secret: every request crosses the network in the clear. */
export function plaintextGatewayWarning(name: string, className: string): string {
    return `model "${name}": the Gateway (class ${className}) has no TLS Secret (gateway.tlsSecretName), so REST and gRPC ` +
        "are PLAINTEXT (HTTP and h2c) to anyone who can reach it; name a kubernetes.io/tls Secret in the namespace to terminate TLS";
}
