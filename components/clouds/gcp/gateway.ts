/**
 * The GKE Gateway controller's Gateway (`platform: "gke"`): the objects it reads, pure (no SDK), so
 * `ModelGateway` renders them on any stack and the tests read them directly.
 */
import { ArgsIssue, ArgsRefusal } from "../../argsIssues";
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
    /**
     * The Cloud Armor security policy (its name in the project) on the backend service of the model's
     * Service and of the canary's: what enforces `sourceRanges` on GKE (gcp/cloudArmor.ts has its rules;
     * the gcp stack creates it). Required with `sourceRanges`; unset: no policy.
     */
    securityPolicy?: string;
    /** Identity-Aware Proxy in front of the same backend services: every caller sends a Google-signed ID token. Unset: none. */
    iap?: GkeIapSettings;
}

/**
 * IAP through the `GCPBackendPolicy` (GoogleCloudPlatform/gke-gateway-api, apis/networking/v1/
 * gcpbackendpolicy_types.go, `IdentityAwareProxyConfig`): a custom OAuth client, which programmatic
 * callers need (cloud.google.com/iap/docs/custom-oauth-configuration: the Google-managed client serves
 * the browser flow only).
 */
export interface GkeIapSettings {
    /** The OAuth 2.0 client's ID, `NUMBER-ID.apps.googleusercontent.com`: the audience of the ID tokens callers send. */
    clientID: string;
    /**
     * A Secret in the model's namespace holding the client's secret under the key `key`
     * (`kubectl create secret generic NAME --from-file=key=FILE`): never the secret itself.
     */
    oauth2ClientSecretName: string;
}

/** What `renderGkeGatewayObjects` returns: the generic objects and, by name, the controller's own. */
export type GkeGatewayObjects = GatewayObjects & {
    /** The health check of the Service's backends. */
    healthCheckPolicy: GatewayApiObject;
    /** With a canary Service: its own health check, as the model Service has. */
    canaryBackendPolicy?: GatewayApiObject;
    /** With `securityPolicy` or `iap`: the Service's backend service's Cloud Armor policy and IAP. */
    gcpBackendPolicy?: GatewayApiObject;
    /** The same for the canary's Service, so that the canary's share of the requests meets the same checks. */
    canaryGcpBackendPolicy?: GatewayApiObject;
};

/** The GKE Gateway's one port: Google's external Application Load Balancer serves HTTPS on 443. */
export const GKE_HTTPS_PORT = 443;

/**
 * A Google OAuth 2.0 client ID as the Credentials page shows it. The shape only: whether the client
 * exists, the GKE controller finds out.
 */
const OAUTH_CLIENT_ID = /^[0-9]+-[0-9a-z]+\.apps\.googleusercontent\.com$/;
/** A Kubernetes object name (DNS subdomain), as a Secret's is. */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `id` is not an OAuth 2.0 client ID, or undefined. */
export function oauthClientIdProblem(id: string): string | undefined {
    return OAUTH_CLIENT_ID.test(id) ? undefined
        : "must be the OAuth 2.0 client's ID, `NUMBER-ID.apps.googleusercontent.com` (Google Cloud console, APIs & Services, Credentials)";
}

/**
 * Why `name` cannot name the Secret holding the OAuth client's secret, or undefined. Its value is never
 * repeated: what is not a Secret's name is most likely the secret itself.
 */
export function oauthSecretNameProblem(name: string): string | undefined {
    return SECRET_NAME.test(name) && name.length <= 253 ? undefined
        : "must name a Secret in the namespace that holds the OAuth client's secret under the key `key`, not the secret itself " +
        "(`kubectl create secret generic iap-oauth --from-file=key=FILE`, then `oauth2ClientSecret: {name: iap-oauth}`)";
}

/** Whether the listener terminates TLS: a Secret or a certificate map. */
function gkeHasTls(input: GkeGatewaySettings & { tlsSecretName?: string }): boolean {
    return input.tlsSecretName !== undefined || input.certificateMap !== undefined;
}

/**
 * The `GCPBackendPolicy`'s `spec.default` for `input`, or undefined without a security policy or IAP.
 * Ranges without the policy that enforces them are refused: on GKE nothing else would.
 */
function backendPolicyDefault(input: GatewayBase & GkeGatewaySettings): Record<string, unknown> | undefined {
    const found: { field: string; value: unknown; message: string | undefined }[] = [
        ...((input.sourceRanges?.length ?? 0) > 0 && input.securityPolicy === undefined
            ? [{ field: "securityPolicy", value: undefined, message: "is required with sourceRanges on GKE: the name of the Cloud Armor policy that enforces them (docs/guides/endpoint-security.md#gke)" }] : []),
        ...(input.iap === undefined ? [] : [
            { field: "iap.clientID", value: input.iap.clientID, message: oauthClientIdProblem(input.iap.clientID) },
            { field: "iap.oauth2ClientSecretName", value: "(not shown)", message: oauthSecretNameProblem(input.iap.oauth2ClientSecretName) },
            // cloud.google.com/iap/docs/enabling-gke-howto: IAP protects apps served by an HTTPS load balancer.
            { field: "iap", value: "set", message: gkeHasTls(input) ? undefined : "needs HTTPS: IAP protects only an HTTPS load balancer; set tlsSecretName or certificateMap" },
        ]),
    ];
    const issues = found.filter((i): i is ArgsIssue => i.message !== undefined);
    if (issues.length > 0) {
        throw new ArgsRefusal("GKE Gateway", input.name, issues);
    }
    if (input.securityPolicy === undefined && input.iap === undefined) {
        return undefined;
    }
    return {
        ...(input.securityPolicy === undefined ? {} : { securityPolicy: input.securityPolicy }),
        ...(input.iap === undefined ? {} : {
            iap: { enabled: true, clientID: input.iap.clientID, oauth2ClientSecret: { name: input.iap.oauth2ClientSecretName } },
        }),
    };
}

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
    const toCanary = (spec: Record<string, unknown>, name: string) => ({ ...spec, targetRef: { ...service, name } });
    const canaryBackendPolicy = forCanary(input, objects.healthCheckPolicy, toCanary);
    const backendDefault = backendPolicyDefault(input);
    // One GCPBackendPolicy per Service carries both the Cloud Armor policy and IAP.
    const gcpBackendPolicy: GatewayApiObject | undefined = backendDefault && {
        apiVersion: "networking.gke.io/v1",
        kind: "GCPBackendPolicy",
        metadata: { name: input.name, labels: input.labels },
        spec: { default: backendDefault, targetRef: service },
    };
    const canaryGcpBackendPolicy = forCanary(input, gcpBackendPolicy, toCanary);
    return {
        ...objects, canaryBackendPolicy,
        ...(gcpBackendPolicy ? { gcpBackendPolicy } : {}),
        ...(canaryGcpBackendPolicy ? { canaryGcpBackendPolicy } : {}),
        policies: [
            ...(canaryBackendPolicy ? [{ suffix: "canary-health-check", object: canaryBackendPolicy, before: "routes" as const, canary: true }] : []),
            // Before the routes: a route must not send requests to a Service its checks do not cover yet.
            ...(canaryGcpBackendPolicy ? [{ suffix: "canary-backend-policy", object: canaryGcpBackendPolicy, before: "routes" as const, canary: true }] : []),
            ...(gcpBackendPolicy ? [{ suffix: "backend-policy", object: gcpBackendPolicy, before: "routes" as const }] : []),
            { suffix: "health-check", object: objects.healthCheckPolicy },
        ],
    };
}

/** The GKE Gateway controller, as `ModelGateway` renders for it: one HTTPS port, TLS from a Secret or a certificate map. */
export const GKE_GATEWAY: GatewayRenderer<GkeGatewaySettings> = {
    render: renderGkeGatewayObjects,
    hasTls: gkeHasTls,
    port: GKE_HTTPS_PORT,
};

