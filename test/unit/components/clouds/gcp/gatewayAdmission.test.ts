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
});
