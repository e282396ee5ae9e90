import * as assert from "assert";
import { ALB_GATEWAY_CONTROLLER, albGatewayClass } from "../../../../../components/clouds/aws/loadBalancerController";
import { EksGatewayObjects, renderEksGatewayObjects } from "../../../../../components/clouds/aws/gateway";
import { GatewayApiObject } from "../../../../../serving/gateway";

/* What the cloud controllers we cannot run here admit, stated from their sources, over the objects we
 * render (the loopback environment's stand-in CRDs carry no CEL rules and no controller reads them). */

/* eslint-disable @typescript-eslint/no-explicit-any */
const NAME = "half-plus-two";
const EKS = {
    name: NAME, labels: { app: "m" }, className: "tf-serving-alb", platform: "eks" as const, drainSeconds: 30,
    certificateArn: "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
};

const PROTOCOL_PORT = /^(HTTP|HTTPS|TLS|TCP|UDP|TCP_UDP)?:(6553[0-5]|655[0-2]\d|65[0-4]\d{2}|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3})?$/;

/**
 * The AWS Load Balancer Controller v3.5.0 (kubernetes-sigs/aws-load-balancer-controller at the tag; it
 * has no webhook for its gateway CRDs, so the API server checks their schemas and the controller the
 * rest):
 * - config/crd/gateway/gateway.k8s.aws_loadbalancerconfigurations.yaml: scheme internal or
 *   internet-facing; each listenerConfiguration's protocolPort required and of pattern PROTOCOL:PORT;
 * - the Gateway's infrastructure.parametersRef is resolved in the Gateway's namespace by kind
 *   "LoadBalancerConfiguration" and name (pkg/gateway/gatewayutils/gateway_utils.go,
 *   GetNamespacedParamRefForGateway and GetImpactedGatewaysFromLbConfig);
 * - a listenerConfiguration applies to the Gateway listener whose lowercased "protocol:port" it spells
 *   (pkg/gateway/model/model_build_listener.go, mapLoadBalancerListenerConfigsByPort), and an HTTPS
 *   listener without one's certificate falls back to discovery by hostname, which the rendered
 *   listeners have none of: "No hostnames found for TLS cert discovery" (buildCertificates); two
 *   listeners on one port with different protocols are refused (mapGatewayListenerConfigsByPort).
 */
function loadBalancerConfigurationProblems(objects: EksGatewayObjects): string[] {
    const problems: string[] = [];
    const lbc = objects.loadBalancerConfiguration;
    const ref = (objects.gateway.spec as any).infrastructure?.parametersRef;
    if (lbc === undefined || ref === undefined) {
        return ["a LoadBalancerConfiguration referenced by the Gateway's infrastructure.parametersRef"];
    }
    if (ref.group !== "gateway.k8s.aws" || ref.kind !== "LoadBalancerConfiguration" || ref.name !== lbc.metadata.name) {
        problems.push(`spec.infrastructure.parametersRef: ${JSON.stringify(ref)} does not name the LoadBalancerConfiguration ${lbc.metadata.name}`);
    }
    const spec = lbc.spec as any;
    if (spec.scheme !== undefined && !["internal", "internet-facing"].includes(spec.scheme)) {
        problems.push(`LoadBalancerConfiguration spec.scheme: "${spec.scheme}"`);
    }
    const configured = new Map<string, any>();
    (spec.listenerConfigurations ?? []).forEach((c: any, i: number) => {
        if (typeof c.protocolPort !== "string" || !PROTOCOL_PORT.test(c.protocolPort)) {
            problems.push(`LoadBalancerConfiguration spec.listenerConfigurations[${i}].protocolPort: "${c.protocolPort}" is not PROTOCOL:PORT`);
        } else {
            configured.set(c.protocolPort.toLowerCase(), c);
        }
    });
    const protocolsByPort = new Map<number, string>();
    for (const l of (objects.gateway.spec as any).listeners) {
        if (protocolsByPort.has(l.port) && protocolsByPort.get(l.port) !== l.protocol) {
            problems.push(`Gateway listener ${l.name}: listeners with same ports cannot have different protocols`);
        }
        protocolsByPort.set(l.port, l.protocol);
        const config = configured.get(`${l.protocol}:${l.port}`.toLowerCase());
        if (l.protocol === "HTTPS" && config?.defaultCertificate === undefined && l.hostname === undefined) {
            problems.push(`Gateway listener ${l.name} (${l.protocol}:${l.port}): no certificate from a listenerConfiguration and no hostname to discover one`);
        }
    }
    return problems;
}

/**
 * config/crd/gateway/gateway.k8s.aws_targetgroupconfigurations.yaml (v3.5.0): targetReference.name
 * required, targetType ip or instance, protocolVersion HTTP1, HTTP2 or GRPC, healthCheckProtocol HTTP,
 * HTTPS or TCP, healthCheckPort a string, each routeConfiguration with routeIdentifier and
 * targetGroupProps, each attribute with key and value. pkg/gateway/model/model_build_target_group.go,
 * buildTargetGroupHealthCheckMatcher: a GRPC target group's health check reads the matcher's grpcCode
 * only (default 12), any other reads httpCode only (default 200-399), so the other one is ignored.
 */
function targetGroupConfigurationProblems(tgc: GatewayApiObject | undefined, serviceName: string): string[] {
    if (tgc === undefined) {
        return ["a TargetGroupConfiguration"];
    }
    const spec = tgc.spec as any;
    const problems: string[] = spec.targetReference?.name === serviceName ? [] : [`spec.targetReference.name: not the Service ${serviceName}`];
    const props = (at: string, p: any) => {
        const enums: [string, unknown, string[]][] = [
            ["targetType", p.targetType, ["instance", "ip"]],
            ["protocolVersion", p.protocolVersion, ["HTTP1", "HTTP2", "GRPC"]],
            ["healthCheckConfig.healthCheckProtocol", p.healthCheckConfig?.healthCheckProtocol, ["HTTP", "HTTPS", "TCP"]],
        ];
        for (const [field, value, allowed] of enums) {
            if (value !== undefined && !allowed.includes(value as string)) {
                problems.push(`${at}.${field}: "${String(value)}" is not one of ${allowed.join(", ")}`);
            }
        }
        const hc = p.healthCheckConfig ?? {};
        if (hc.healthCheckPort !== undefined && typeof hc.healthCheckPort !== "string") {
            problems.push(`${at}.healthCheckConfig.healthCheckPort: must be a string`);
        }
        const read = p.protocolVersion === "GRPC" ? "grpcCode" : "httpCode";
        for (const key of Object.keys(hc.matcher ?? {}).filter((k) => k !== read)) {
            problems.push(`${at}.healthCheckConfig.matcher.${key}: ignored for protocolVersion ${p.protocolVersion ?? "HTTP1"} (the controller reads ${read})`);
        }
        (p.targetGroupAttributes ?? []).forEach((a: any, i: number) => {
            if (typeof a.key !== "string" || typeof a.value !== "string") {
                problems.push(`${at}.targetGroupAttributes[${i}]: key and value (strings) required`);
            }
        });
    };
    props("spec.defaultConfiguration", spec.defaultConfiguration ?? {});
    (spec.routeConfigurations ?? []).forEach((r: any, i: number) => {
        if (r.routeIdentifier === undefined || r.targetGroupProps === undefined) {
            problems.push(`spec.routeConfigurations[${i}]: routeIdentifier and targetGroupProps required`);
        }
        props(`spec.routeConfigurations[${i}].targetGroupProps`, r.targetGroupProps ?? {});
    });
    return problems;
}

describe("EKS Gateway objects, as the AWS Load Balancer Controller v3.5.0 admits and reads them", () => {
    it("the Gateway's parametersRef names its LoadBalancerConfiguration, whose listener configurations give every HTTPS listener its certificate", () => {
        assert.deepStrictEqual(loadBalancerConfigurationProblems(renderEksGatewayObjects(EKS)), []);
        assert.deepStrictEqual(loadBalancerConfigurationProblems(renderEksGatewayObjects({ ...EKS, sourceRanges: ["203.0.113.0/24"] })), []);
    });

    it("the TargetGroupConfiguration fits its CRD, and each health check matcher is the one its protocol version reads", () => {
        assert.deepStrictEqual(targetGroupConfigurationProblems(renderEksGatewayObjects(EKS).targetGroupConfiguration, NAME), []);
        assert.deepStrictEqual(targetGroupConfigurationProblems(renderEksGatewayObjects({ ...EKS, drainSeconds: undefined }).targetGroupConfiguration, NAME), []);
        // The controller takes one TargetGroupConfiguration per Service: the canary's Service has its own.
        const canary = renderEksGatewayObjects({ ...EKS, canaryService: `${NAME}-canary` }).canaryBackendPolicy;
        assert.deepStrictEqual(targetGroupConfigurationProblems(canary, `${NAME}-canary`), []);
    });

    it("the GatewayClass names the ALB controller and no parametersRef without a namespace (gateway_class_controller.go refuses one)", () => {
        const gc = albGatewayClass("tf-serving-alb") as any;
        assert.strictEqual(gc.spec.controllerName, ALB_GATEWAY_CONTROLLER);
        assert.strictEqual(ALB_GATEWAY_CONTROLLER, "gateway.k8s.aws/alb"); // pkg/gateway/constants/controller_constants.go, ALBGatewayController
        assert.ok(gc.spec.parametersRef === undefined || gc.spec.parametersRef.namespace !== undefined);
    });

    it("the checks refuse what the controller refuses: a listener configuration for another port, a matcher the protocol version ignores", () => {
        const objects = renderEksGatewayObjects(EKS);
        const lbc = objects.loadBalancerConfiguration!;
        const moved = { ...objects, loadBalancerConfiguration: { ...lbc, spec: { ...lbc.spec, listenerConfigurations: [{ protocolPort: "HTTPS:443", defaultCertificate: EKS.certificateArn }, { protocolPort: "HTTPS:8500", defaultCertificate: EKS.certificateArn }] } } };
        assert.deepStrictEqual(loadBalancerConfigurationProblems(moved), ["Gateway listener rest (HTTPS:8501): no certificate from a listenerConfiguration and no hostname to discover one"]);
        const tgc = objects.targetGroupConfiguration!;
        const spec = tgc.spec as any;
        const httpMatcher = { ...tgc, spec: { ...spec, routeConfigurations: [{ ...spec.routeConfigurations[0], targetGroupProps: { ...spec.routeConfigurations[0].targetGroupProps, healthCheckConfig: { ...spec.routeConfigurations[0].targetGroupProps.healthCheckConfig, matcher: { httpCode: "200" } } } }] } };
        assert.deepStrictEqual(targetGroupConfigurationProblems(httpMatcher, NAME),
            ["spec.routeConfigurations[0].targetGroupProps.healthCheckConfig.matcher.httpCode: ignored for protocolVersion GRPC (the controller reads grpcCode)"]);
    });
});
