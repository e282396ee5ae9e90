import * as assert from "assert";
import { renderGkeGatewayObjects } from "../../../../../components/clouds/gcp/gateway";
import { GatewayApiObject } from "../../../../../serving/gateway";

/* What the cloud controllers we cannot run here admit, stated from their sources, over the objects we
 * render (the loopback environment's stand-in CRDs carry no CEL rules and no controller reads them). */

/* eslint-disable @typescript-eslint/no-explicit-any */
const NAME = "half-plus-two";
const GKE = { name: NAME, labels: { app: "m" }, className: "gke-l7-global-external-managed", platform: "gke" as const, certificateMap: "tfs-map" };
/**
 * GKE's HealthCheckPolicy (networking.gke.io/v1) as its CRD admits it: GoogleCloudPlatform/gke-gateway-api,
 * apis/networking/v1/healthcheck_types.go (config/crd/networking.gke.io_healthcheckpolicies.yaml):
 * HealthCheck's XValidations (exactly `type` and its own check, MinProperties=MaxProperties=2, type one
 * of TCP, HTTP, HTTPS, HTTP2, GRPC), CommonHealthCheck's (a `port` only with portSpecification
 * USE_FIXED_PORT, a `portName` only with USE_NAMED_PORT, neither with USE_SERVING_PORT or none, the
 * default), port 1 to 65535, requestPath's pattern; HealthCheckPolicyConfig's interval and timeout rules;
 * targetRef's required group, kind and name. And Google's documented restrictions
 * (cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources, "Restrictions and
 * limitations"): with a single-cluster Gateway the policy references a Service, in its own namespace.
 */
function healthCheckPolicyProblems(policy: GatewayApiObject): string[] {
    const problems: string[] = [];
    const spec = policy.spec as any;
    const types: Record<string, string> = { TCP: "tcpHealthCheck", HTTP: "httpHealthCheck", HTTPS: "httpsHealthCheck", HTTP2: "http2HealthCheck", GRPC: "grpcHealthCheck" };
    const defaults = spec.default ?? {};
    const interval = defaults.checkIntervalSec;
    const timeout = defaults.timeoutSec;
    if ((interval ?? 5) < (timeout ?? 5)) {
        problems.push("spec.default: timeoutSec cannot exceed checkIntervalSec (each 5 by default)");
    }
    const config = defaults.config;
    if (config !== undefined) {
        if (!(config.type in types)) {
            problems.push(`spec.default.config.type: "${config.type}" is not one of ${Object.keys(types).join(", ")}`);
        } else if (Object.keys(config).length !== 2 || !(types[config.type] in config)) {
            problems.push(`spec.default.config: exactly type and ${types[config.type]}`);
        }
        const check = config[types[config.type]] ?? {};
        const portSpecification = check.portSpecification ?? "USE_SERVING_PORT";
        const fixed = portSpecification === "USE_FIXED_PORT";
        const named = portSpecification === "USE_NAMED_PORT";
        if (fixed !== ("port" in check) || named !== ("portName" in check) || (fixed && named)) {
            problems.push(`spec.default.config.${types[config.type]}: port needs portSpecification USE_FIXED_PORT, portName USE_NAMED_PORT; neither with ${portSpecification}`);
        }
        if ("port" in check && !(Number.isInteger(check.port) && check.port >= 1 && check.port <= 65535)) {
            problems.push(`spec.default.config.${types[config.type]}.port: 1 to 65535`);
        }
        if (check.requestPath !== undefined && !(/\/[A-Za-z0-9/\-._~%!?$&'()*+,;=:]*$/.test(check.requestPath) && check.requestPath.length <= 2048)) {
            problems.push(`spec.default.config.${types[config.type]}.requestPath: not a request path`);
        }
    }
    const ref = spec.targetRef ?? {};
    for (const field of ["group", "kind", "name"]) {
        if (typeof ref[field] !== "string") {
            problems.push(`spec.targetRef.${field}: required`);
        }
    }
    if (ref.group !== "" || ref.kind !== "Service" || ref.namespace !== undefined) {
        problems.push("spec.targetRef: a single-cluster Gateway's policy references a Service (group \"\") in the policy's own namespace");
    }
    return problems;
}

/**
 * GKE's GCPBackendPolicy (networking.gke.io/v1) as its CRD admits it: GoogleCloudPlatform/gke-gateway-api,
 * config/crd/networking.gke.io_gcpbackendpolicies.yaml (from apis/networking/v1/gcpbackendpolicy_types.go):
 * spec.targetRef required with group, kind and name (a NamespacedPolicyTargetReference: group `^$|DNS
 * subdomain`, at most 253; kind `^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`, 1 to 63; name 1 to 253; namespace
 * a DNS label); spec.default's properties (securityPolicy a string; iap `{enabled: boolean, clientID:
 * string, oauth2ClientSecret: {name: string}}`, which "If true, the ClientID and Oauth2ClientSecret fields
 * must be non-empty"), nothing else of ours. Which kinds a target may be, the CRD leaves to the
 * controller; Google's documentation (cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources,
 * "Limitations") says: with a single-cluster Gateway a GCPBackendPolicy refers to a v1 Service, in the
 * policy's own namespace.
 */
function gcpBackendPolicyProblems(policy: GatewayApiObject): string[] {
    const problems: string[] = [];
    const spec = policy.spec as any;
    const ref = spec.targetRef ?? {};
    for (const field of ["group", "kind", "name"]) {
        if (typeof ref[field] !== "string") {
            problems.push(`spec.targetRef.${field}: required`);
        }
    }
    if (typeof ref.group === "string" && !(ref.group.length <= 253 && /^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(ref.group))) {
        problems.push("spec.targetRef.group: empty or a DNS subdomain");
    }
    if (typeof ref.kind === "string" && !(ref.kind.length >= 1 && ref.kind.length <= 63 && /^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/.test(ref.kind))) {
        problems.push("spec.targetRef.kind: a kind's name, 1 to 63");
    }
    if (typeof ref.name === "string" && !(ref.name.length >= 1 && ref.name.length <= 253)) {
        problems.push("spec.targetRef.name: 1 to 253");
    }
    if (ref.group !== "" || ref.kind !== "Service" || ref.namespace !== undefined) {
        problems.push("spec.targetRef: a single-cluster Gateway's policy references a Service (group \"\") in the policy's own namespace");
    }
    const defaults = spec.default ?? {};
    const unknown = Object.keys(defaults).filter((k) => !["logging", "sessionAffinity", "connectionDraining", "timeoutSec", "securityPolicy", "iap", "maxRatePerEndpoint", "backendPreference"].includes(k));
    if (unknown.length > 0) {
        problems.push(`spec.default: no field ${unknown.join(", ")}`);
    }
    if ("securityPolicy" in defaults && typeof defaults.securityPolicy !== "string") {
        problems.push("spec.default.securityPolicy: a string");
    }
    const iap = defaults.iap;
    if (iap !== undefined) {
        const keys = Object.keys(iap).filter((k) => !["enabled", "clientID", "oauth2ClientSecret"].includes(k));
        if (keys.length > 0 || (iap.oauth2ClientSecret !== undefined && Object.keys(iap.oauth2ClientSecret).some((k) => k !== "name"))) {
            problems.push(`spec.default.iap: only enabled, clientID and oauth2ClientSecret.name${keys.length > 0 ? ` (not ${keys.join(", ")})` : ""}`);
        }
        if (iap.enabled !== undefined && typeof iap.enabled !== "boolean") {
            problems.push("spec.default.iap.enabled: a boolean");
        }
        if (iap.enabled === true && !(typeof iap.clientID === "string" && iap.clientID !== "" && typeof iap.oauth2ClientSecret?.name === "string" && iap.oauth2ClientSecret.name !== "")) {
            problems.push("spec.default.iap: enabled needs clientID and oauth2ClientSecret.name, both non-empty");
        }
    }
    return problems;
}

const IAP = { clientID: "123456789012-abc123def456.apps.googleusercontent.com", oauth2ClientSecretName: "iap-oauth" };

describe("GKE Gateway objects, as the GKE Gateway controller's CRDs and documentation admit them", () => {
    it("the HealthCheckPolicy: a fixed port said as such, a request path, a Service of its namespace", () => {
        const { healthCheckPolicy } = renderGkeGatewayObjects(GKE);
        assert.ok(healthCheckPolicy);
        assert.deepStrictEqual(healthCheckPolicyProblems(healthCheckPolicy), []);
    });

    it("with a canary, the canary's Service gets a HealthCheckPolicy of its own that the CRD admits", () => {
        const { canaryBackendPolicy } = renderGkeGatewayObjects({ ...GKE, canaryService: `${NAME}-canary` });
        assert.ok(canaryBackendPolicy);
        assert.strictEqual((canaryBackendPolicy.spec as any).targetRef.name, `${NAME}-canary`);
        assert.strictEqual(canaryBackendPolicy.metadata.name, `${NAME}-canary`);
        assert.deepStrictEqual(healthCheckPolicyProblems(canaryBackendPolicy), []);
    });

    it("the check refuses what the CRD refuses: a port without USE_FIXED_PORT, a second check, another namespace's Service", () => {
        const policy = (config: unknown, targetRef: unknown = { group: "", kind: "Service", name: NAME }): GatewayApiObject =>
            ({ apiVersion: "networking.gke.io/v1", kind: "HealthCheckPolicy", metadata: { name: NAME, labels: {} }, spec: { default: { config }, targetRef } });
        assert.deepStrictEqual(healthCheckPolicyProblems(policy({ type: "HTTP", httpHealthCheck: { port: 8501, requestPath: "/v1/models/m" } })),
            ["spec.default.config.httpHealthCheck: port needs portSpecification USE_FIXED_PORT, portName USE_NAMED_PORT; neither with USE_SERVING_PORT"]);
        assert.deepStrictEqual(healthCheckPolicyProblems(policy({ type: "HTTP", httpHealthCheck: {}, grpcHealthCheck: {} }, { group: "", kind: "Service", name: NAME, namespace: "other" })), [
            "spec.default.config: exactly type and httpHealthCheck",
            "spec.targetRef: a single-cluster Gateway's policy references a Service (group \"\") in the policy's own namespace",
        ]);
    });

    it("the GCPBackendPolicy with the Cloud Armor policy and IAP: one per Service, both in it, the model's Service and the canary's", () => {
        const objects = renderGkeGatewayObjects({ ...GKE, canaryService: `${NAME}-canary`, sourceRanges: ["203.0.113.0/24"], securityPolicy: "tfs-policy", iap: IAP });
        const policies = [objects.gcpBackendPolicy, objects.canaryGcpBackendPolicy];
        assert.ok(policies.every((p) => p !== undefined));
        for (const policy of policies as GatewayApiObject[]) {
            assert.deepStrictEqual(gcpBackendPolicyProblems(policy), [], policy.metadata.name);
            assert.deepStrictEqual((policy.spec as any).default, {
                securityPolicy: "tfs-policy",
                iap: { enabled: true, clientID: IAP.clientID, oauth2ClientSecret: { name: "iap-oauth" } },
            });
        }
        assert.deepStrictEqual(policies.map((p) => (p?.spec as any).targetRef), [
            { group: "", kind: "Service", name: NAME }, { group: "", kind: "Service", name: `${NAME}-canary` },
        ]);
        // gateway-api geps/gep-713 (Conflict Resolution): policies on one target merge, and where a field differs the
        // oldest wins; GKE documents no merge of GCPBackendPolicies, so each Service gets exactly one.
        const byTarget = objects.policies.filter((p) => p.object.kind === "GCPBackendPolicy").map((p) => (p.object.spec as any).targetRef.name);
        assert.deepStrictEqual(byTarget.sort(), [NAME, `${NAME}-canary`]);
    });

    it("the check refuses what the CRD and GKE refuse: a Gateway as target, an empty kind, IAP on without its client, a field the CRD lacks", () => {
        const policy = (spec: unknown): GatewayApiObject => ({ apiVersion: "networking.gke.io/v1", kind: "GCPBackendPolicy", metadata: { name: NAME, labels: {} }, spec: spec as Record<string, unknown> });
        assert.deepStrictEqual(gcpBackendPolicyProblems(policy({ targetRef: { group: "gateway.networking.k8s.io", kind: "Gateway", name: NAME }, default: { securityPolicy: "p" } })),
            ["spec.targetRef: a single-cluster Gateway's policy references a Service (group \"\") in the policy's own namespace"]);
        assert.deepStrictEqual(gcpBackendPolicyProblems(policy({ targetRef: { group: "", kind: "", name: NAME }, default: { iap: { enabled: true, clientID: "c" }, sourceRanges: ["x"] } })), [
            "spec.targetRef.kind: a kind's name, 1 to 63",
            "spec.targetRef: a single-cluster Gateway's policy references a Service (group \"\") in the policy's own namespace",
            "spec.default: no field sourceRanges",
            "spec.default.iap: enabled needs clientID and oauth2ClientSecret.name, both non-empty",
        ]);
    });
});
