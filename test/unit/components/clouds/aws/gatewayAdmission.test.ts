import * as assert from "assert";
import { ALB_GATEWAY_CONTROLLER, albGatewayClass } from "../../../../../components/clouds/aws/loadBalancerController";
import { EksGatewayObjects, LISTENER_RULE_ACCEPTED, renderEksGatewayObjects } from "../../../../../components/clouds/aws/gateway";
import { GatewayApiObject } from "../../../../../serving/gateway";
import { renderGatewayObjects } from "../../../../../components/clouds/gateways";

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

const JWT = {
    type: "jwt" as const,
    issuer: "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE",
    jwksEndpoint: "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE/.well-known/jwks.json",
    claims: [{ name: "client_id", format: "single-string" as const, values: ["tf-serving-client"] }, { name: "scope", format: "space-separated-values" as const, values: ["tf-serving/predict"] }],
};

const PRE_ROUTING = ["authenticate-oidc", "authenticate-cognito", "jwt-validation"];
const ROUTING = ["forward", "fixed-response", "redirect"];
const CONFIG_OF: Record<string, string> = {
    "forward": "forwardConfig", "redirect": "redirectConfig", "fixed-response": "fixedResponseConfig", "authenticate-cognito": "authenticateCognitoConfig",
    "authenticate-oidc": "authenticateOIDCConfig", "jwt-validation": "jwtValidationConfig",
};

/**
 * The ListenerRuleConfiguration's schema at v3.5.0 (config/crd/gateway/gateway.k8s.aws_listenerruleconfigurations.yaml,
 * from apis/gateway/v1/listenerruleconfig_types.go): actions 1 to 2, each type one of six, its config present exactly
 * when its type is (the x-kubernetes-validations on Action), at most one pre-routing action (authenticate-oidc,
 * authenticate-cognito, jwt-validation) and one routing action; jwtValidationConfig's issuer and jwksEndpoint
 * required strings of at most 256 characters; each additional claim's format an enum of three, name at least one
 * character, values 1 to 10 strings of at most 256.
 */
function listenerRuleConfigurationProblems(lrc: GatewayApiObject): string[] {
    const problems: string[] = [];
    const actions = (lrc.spec as any).actions ?? [];
    if (actions.length < 1 || actions.length > 2) {
        problems.push(`spec.actions: ${actions.length} actions (1 to 2)`);
    }
    if (actions.filter((a: any) => PRE_ROUTING.includes(a.type)).length > 1 || actions.filter((a: any) => ROUTING.includes(a.type)).length > 1) {
        problems.push("spec.actions: at most one pre-routing and one routing action");
    }
    actions.forEach((a: any, i: number) => {
        if (!(a.type in CONFIG_OF)) {
            problems.push(`spec.actions[${i}].type: "${a.type}"`);
        }
        for (const [type, field] of Object.entries(CONFIG_OF)) {
            if ((a.type === type) !== (a[field] !== undefined)) {
                problems.push(`spec.actions[${i}]: ${field} must be specified only when type is '${type}'`);
            }
        }
        const jwt = a.jwtValidationConfig;
        if (jwt !== undefined) {
            for (const field of ["issuer", "jwksEndpoint"]) {
                if (typeof jwt[field] !== "string" || jwt[field].length > 256) {
                    problems.push(`spec.actions[${i}].jwtValidationConfig.${field}: a string of at most 256 characters, required`);
                }
            }
            (jwt.additionalClaims ?? []).forEach((c: any, j: number) => {
                const at = `spec.actions[${i}].jwtValidationConfig.additionalClaims[${j}]`;
                if (!["single-string", "string-array", "space-separated-values"].includes(c.format)) {
                    problems.push(`${at}.format: "${c.format}"`);
                }
                if (typeof c.name !== "string" || c.name.length < 1) {
                    problems.push(`${at}.name: required, at least one character`);
                }
                if (!Array.isArray(c.values) || c.values.length < 1 || c.values.length > 10 || c.values.some((v: unknown) => typeof v !== "string" || v.length > 256)) {
                    problems.push(`${at}.values: 1 to 10 strings of at most 256 characters`);
                }
            });
        }
    });
    return problems;
}

/**
 * How the controller reads a route's rules at v3.5.0:
 * - pkg/gateway/routeutils/backend.go, getListenerRuleConfigForRuleGeneric: a rule's ListenerRuleConfiguration is
 *   an ExtensionRef filter of group "gateway.k8s.aws" and kind "ListenerRuleConfiguration", in the route's
 *   namespace (a LocalObjectReference); listenerRuleConfigLoader: "Only one listener rule config can be referenced
 *   per route rule";
 * - pkg/gateway/routeutils/route_rule_action.go: an HTTPRoute rule's filters may be RequestRedirect, ExtensionRef or
 *   URLRewrite ("Unsupported filter type" otherwise, buildHttpRuleRedirectActionsBasedOnFilter); a GRPCRoute rule's
 *   ExtensionRef only (buildRedirectRoutingAction);
 * - pkg/gateway/model/model_build_listener.go: a rule's pre-routing action (jwt-validation) is built only on an
 *   HTTPS listener ("JWT validation is only supported for HTTPS listeners", also in the controller's guide, gateway/listenerruleconfig.md),
 *   before the forward to every backend of the rule: a rule's backends (the canary's Service among them) all pass it.
 */
function ruleProblems(objects: EksGatewayObjects): string[] {
    const problems: string[] = [];
    const lrc = objects.listenerRuleConfiguration;
    const listeners = new Map(((objects.gateway.spec as any).listeners as any[]).map((l) => [l.name, l]));
    for (const route of [objects.httpRoute, objects.grpcRoute].filter((r): r is GatewayApiObject => r !== undefined)) {
        const allowed = route.kind === "HTTPRoute" ? ["RequestRedirect", "ExtensionRef", "URLRewrite"] : ["ExtensionRef"];
        ((route.spec as any).rules as any[]).forEach((rule, i) => {
            const at = `${route.kind} rules[${i}]`;
            const filters: any[] = rule.filters ?? [];
            for (const f of filters.filter((x) => !allowed.includes(x.type))) {
                problems.push(`${at}: Unsupported filter type: ${f.type}`);
            }
            const configs = filters.filter((f) => f.type === "ExtensionRef" && f.extensionRef?.group === "gateway.k8s.aws" && f.extensionRef?.kind === "ListenerRuleConfiguration");
            if (configs.length > 1) {
                problems.push(`${at}: Only one listener rule config can be referenced per route rule, found multiple`);
            }
            if (lrc !== undefined && configs[0]?.extensionRef.name !== lrc.metadata.name) {
                problems.push(`${at}: does not reference the ListenerRuleConfiguration ${lrc.metadata.name}`);
            }
            for (const parent of (route.spec as any).parentRefs) {
                if (lrc !== undefined && listeners.get(parent.sectionName)?.protocol !== "HTTPS") {
                    problems.push(`${at}: its listener ${parent.sectionName} is not HTTPS, where no pre-routing action runs`);
                }
            }
        });
    }
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

    it("with auth: a ListenerRuleConfiguration of one jwt-validation action, with the issuer, the key set and the claims", () => {
        const objects = renderEksGatewayObjects({ ...EKS, auth: JWT });
        const lrc = objects.listenerRuleConfiguration!;
        assert.deepStrictEqual(listenerRuleConfigurationProblems(lrc), []);
        assert.deepStrictEqual([lrc.apiVersion, lrc.kind, lrc.metadata.name], ["gateway.k8s.aws/v1", "ListenerRuleConfiguration", NAME]);
        assert.deepStrictEqual(lrc.spec, {
            actions: [{
                type: "jwt-validation",
                jwtValidationConfig: { issuer: JWT.issuer, jwksEndpoint: JWT.jwksEndpoint, additionalClaims: JWT.claims },
            }],
        });
        // No claims: no additionalClaims at all.
        assert.deepStrictEqual(renderEksGatewayObjects({ ...EKS, auth: { ...JWT, claims: undefined } }).listenerRuleConfiguration!.spec,
            { actions: [{ type: "jwt-validation", jwtValidationConfig: { issuer: JWT.issuer, jwksEndpoint: JWT.jwksEndpoint } }] });
    });

    it("with auth: every rule of the HTTPRoute and of the GRPCRoute references it, on HTTPS listeners, the canary's backend in the same rules", () => {
        for (const canaryService of [undefined, `${NAME}-canary`]) {
            const objects = renderGatewayObjects({ ...EKS, auth: JWT, canaryService }) as EksGatewayObjects;
            assert.deepStrictEqual(ruleProblems(objects), []);
            const rules = [objects.httpRoute, objects.grpcRoute!].flatMap((r) => (r.spec as any).rules);
            assert.ok(rules.length >= 2 && rules.every((r) => r.filters.length === 1));
            const backends = rules.map((r) => r.backendRefs.map((b: any) => b.name));
            assert.deepStrictEqual(backends, canaryService ? [[NAME, canaryService], [NAME, canaryService]] : [[NAME], [NAME]]);
        }
    });

    it("with auth: the routes wait until the controller has accepted the configuration; until then no rule forwards unauthenticated", () => {
        // backend.go, accumulateRules: a rule whose ListenerRuleConfiguration is missing or not accepted (status.accepted) loads no
        // backend ("fixed 503"). controllers/gateway/listenerrule_configuration_controller.go, updateStatus: the controller writes
        // status.accepted with status.observedGeneration. pulumi/pulumi-kubernetes provider/pkg/await/condition/jsonpath.go waits
        // for status.observedGeneration to reach metadata.generation, and provider/pkg/jsonpath/jsonpath.go (Matches) compares the
        // value printed (fmt.Sprint: a boolean prints "true"), so the routes change after the controller has read this generation.
        const objects = renderEksGatewayObjects({ ...EKS, auth: JWT });
        const policy = objects.policies.find((p) => p.object.kind === "ListenerRuleConfiguration");
        assert.deepStrictEqual(policy && { suffix: policy.suffix, before: policy.before, canary: policy.canary }, { suffix: "jwt-validation", before: "routes", canary: undefined });
        assert.strictEqual(LISTENER_RULE_ACCEPTED, "jsonpath={.status.accepted}=true");
        assert.deepStrictEqual(objects.listenerRuleConfiguration!.metadata.annotations, { "pulumi.com/waitFor": LISTENER_RULE_ACCEPTED });
    });

    it("with auth: the target groups' health checks are those without it (the ALB sends them to the targets, through no listener rule)", () => {
        const without = renderEksGatewayObjects({ ...EKS, canaryService: `${NAME}-canary` });
        const withAuth = renderEksGatewayObjects({ ...EKS, canaryService: `${NAME}-canary`, auth: JWT });
        assert.deepStrictEqual([withAuth.targetGroupConfiguration, withAuth.canaryBackendPolicy], [without.targetGroupConfiguration, without.canaryBackendPolicy]);
        assert.deepStrictEqual(withAuth.loadBalancerConfiguration, without.loadBalancerConfiguration);
    });

    it("without auth: the routes, policies and configuration a stack had before (no filter, no ListenerRuleConfiguration)", () => {
        const objects = renderEksGatewayObjects({ ...EKS, canaryService: `${NAME}-canary` });
        assert.strictEqual(objects.listenerRuleConfiguration, undefined);
        assert.deepStrictEqual([objects.httpRoute, objects.grpcRoute!].flatMap((r) => (r.spec as any).rules).map((r: any) => r.filters), [undefined, undefined]);
        assert.deepStrictEqual(objects.policies.map((p) => p.suffix), ["lb-config", "target-groups", "canary-target-groups"]);
        assert.deepStrictEqual(ruleProblems(objects), []);
    });

    it("the rule checks refuse what the controller refuses: two configurations in a rule, a header filter on a GRPCRoute, an HTTP listener", () => {
        const objects = renderEksGatewayObjects({ ...EKS, auth: JWT });
        const grpc = objects.grpcRoute!;
        const rule = (grpc.spec as any).rules[0];
        const twice = { ...objects, grpcRoute: { ...grpc, spec: { ...grpc.spec, rules: [{ ...rule, filters: [...rule.filters, ...rule.filters, { type: "RequestHeaderModifier" }] }] } } };
        assert.deepStrictEqual(ruleProblems(twice), [
            "GRPCRoute rules[0]: Unsupported filter type: RequestHeaderModifier",
            "GRPCRoute rules[0]: Only one listener rule config can be referenced per route rule, found multiple",
        ]);
        const gw = objects.gateway.spec as any;
        const plain = { ...objects, gateway: { ...objects.gateway, spec: { ...gw, listeners: gw.listeners.map((l: any) => ({ ...l, protocol: "HTTP" })) } } };
        assert.deepStrictEqual(ruleProblems(plain).length, 2);
        const lrc = objects.listenerRuleConfiguration!;
        const both = { ...lrc, spec: { actions: [...(lrc.spec as any).actions, { type: "authenticate-cognito", authenticateCognitoConfig: {} }] } };
        assert.deepStrictEqual(listenerRuleConfigurationProblems(both), ["spec.actions: at most one pre-routing and one routing action"]);
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
