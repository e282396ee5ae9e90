/**
 * The AWS Load Balancer Controller's Gateway (`platform: "eks"`): the objects it reads, pure (no SDK),
 * so `ModelGateway` renders them on any stack and the tests read them directly.
 */
import { ArgsRefusal } from "../../argsIssues";
import { GRPC_PORT, REST_PORT } from "../../../serving/images";
import { modelStatusPath } from "../../../serving/probes";
import { GatewayApiObject, GatewayBase, GatewayObjects, GatewayRenderer, forCanary, renderListenerGateway } from "../../../serving/gateway";
import { EKS_LISTENER_PORTS, EksJwtValidation, eksGatewayIssues } from "./gatewayChecks";

/** The AWS Load Balancer Controller's own Gateway fields. */
export interface EksGatewaySettings {
    platform: "eks";
    /** The ACM certificate both HTTPS listeners present. */
    certificateArn: string;
    /** Seconds a target group keeps a removed pod draining (the pod's termination grace), 0 to 3600; default the ALB's 300. */
    drainSeconds?: number;
    /**
     * The account's quota of inbound rules per security group (VPC quota "Inbound or outbound rules per
     * security group"); default 60. `sourceRanges` take one rule per range and listener port, so at most
     * half of it.
     */
    securityGroupRuleQuota?: number;
    /** Caller authentication: the ALB validates a JWT on every request of both routes (the canary's share too). Default none. */
    auth?: EksJwtValidation;
}

/** What `renderEksGatewayObjects` returns: the generic objects and, by name, the controller's own. */
export type EksGatewayObjects = GatewayObjects & {
    /** The ALB's scheme, listener certificates and source ranges (the Gateway's `infrastructure.parametersRef`). */
    loadBalancerConfiguration: GatewayApiObject;
    /** The Service's target groups (pod IPs, protocol version, health checks). */
    targetGroupConfiguration: GatewayApiObject;
    /** With a canary Service: its own target groups, as the model Service has. */
    canaryBackendPolicy?: GatewayApiObject;
    /** With `auth`: the `jwt-validation` action every rule of both routes references (an `ExtensionRef` filter). */
    listenerRuleConfiguration?: GatewayApiObject;
};

/** The API version of the AWS Load Balancer Controller's gateway CRDs (v1, their storage version since the controller's v3.5.0). */
export const AWS_GATEWAY_CONFIG_VERSION = "gateway.k8s.aws/v1";

/** The gRPC health check method an ALB calls by default; TF Serving, like any gRPC server, answers UNIMPLEMENTED (12). */
const ALB_GRPC_HEALTH_CHECK = { path: "/AWS.ALB/healthcheck", grpcCode: "12" };

/** Probe a target every 10 s; 2 answers in a row bring it in or take it out (the ALB's defaults, 30 s and 5, keep a new pod out for 2.5 min). */
const ALB_HEALTH_CHECK_TIMING = { healthCheckInterval: 10, healthCheckTimeout: 5, healthyThresholdCount: 2, unhealthyThresholdCount: 2 };

/** The provider waits on a ListenerRuleConfiguration until the controller has accepted its latest generation (`status.accepted`). */
export const LISTENER_RULE_ACCEPTED = "jsonpath={.status.accepted}=true";

/** The `jwt-validation` action of `auth`, in the ListenerRuleConfiguration the routes' rules reference. */
function jwtValidation(input: GatewayBase, auth: EksJwtValidation): GatewayApiObject {
    const claims = auth.claims ?? [];
    return {
        apiVersion: AWS_GATEWAY_CONFIG_VERSION,
        kind: "ListenerRuleConfiguration",
        // The routes wait until the controller accepts it: a rule referencing one not yet accepted answers 503.
        metadata: { name: input.name, labels: input.labels, annotations: { "pulumi.com/waitFor": LISTENER_RULE_ACCEPTED } },
        spec: {
            actions: [{
                type: "jwt-validation",
                jwtValidationConfig: {
                    issuer: auth.issuer,
                    jwksEndpoint: auth.jwksEndpoint,
                    ...(claims.length > 0 ? { additionalClaims: claims.map(({ name, format, values }) => ({ name, format, values })) } : {}),
                },
            }],
        },
    };
}

/** `route` with every rule referencing `config` (the controller reads one ListenerRuleConfiguration per rule). */
function withRuleConfiguration(route: GatewayApiObject, config: GatewayApiObject): GatewayApiObject {
    const ref = { type: "ExtensionRef", extensionRef: { group: "gateway.k8s.aws", kind: config.kind, name: config.metadata.name } };
    const rules = (route.spec.rules as Record<string, unknown>[]).map((rule) => ({ ...rule, filters: [...((rule.filters as unknown[] | undefined) ?? []), ref] }));
    return { ...route, spec: { ...route.spec, rules } };
}

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
 *
 * The source ranges become the security group the controller manages for the ALB; with `auth`, a
 * `ListenerRuleConfiguration` with the ALB's `jwt-validation` action, referenced by every rule of
 * the HTTPRoute and the GRPCRoute: the action runs before the rule forwards, so it covers each of
 * the rule's backends, the canary's Service with them.
 */
export function renderEksGatewayObjects(input: GatewayBase & EksGatewaySettings): EksGatewayObjects {
    const issues = [
        ...(input.certificateArn === undefined ? [{ field: "certificateArn", value: undefined, message: "is required: the ALB serves gRPC only on HTTPS listeners, which present this ACM certificate" }] : []),
        ...eksGatewayIssues(input),
    ];
    if (issues.length > 0) {
        throw new ArgsRefusal("ModelGateway", input.name, issues);
    }
    const rendered = renderListenerGateway(input, true);
    const listenerRuleConfiguration = input.auth === undefined ? undefined : jwtValidation(input, input.auth);
    const objects = listenerRuleConfiguration === undefined ? rendered : {
        ...rendered,
        httpRoute: withRuleConfiguration(rendered.httpRoute, listenerRuleConfiguration),
        ...(rendered.grpcRoute ? { grpcRoute: withRuleConfiguration(rendered.grpcRoute, listenerRuleConfiguration) } : {}),
    };
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
    const loadBalancerConfiguration: GatewayApiObject = {
        apiVersion: AWS_GATEWAY_CONFIG_VERSION,
        kind: "LoadBalancerConfiguration",
        metadata,
        spec: {
            scheme: "internet-facing",
            listenerConfigurations: EKS_LISTENER_PORTS.map(listener),
            ...(input.sourceRanges?.length ? { sourceRanges: input.sourceRanges } : {}),
        },
    };
    const targetGroupConfiguration: GatewayApiObject = {
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
    const canaryBackendPolicy = forCanary(input, targetGroupConfiguration, (spec, name) => ({ ...spec, targetReference: { name } }));
    return {
        ...objects,
        loadBalancerConfiguration, targetGroupConfiguration, canaryBackendPolicy, listenerRuleConfiguration,
        // The controller builds the load balancer from these when it first sees the Gateway and its routes:
        // an ALB's scheme and a target group's protocol version cannot change afterwards, so they come first.
        policies: [
            { suffix: "lb-config", object: loadBalancerConfiguration, before: "gateway" },
            { suffix: "target-groups", object: targetGroupConfiguration, before: "routes" },
            ...(canaryBackendPolicy ? [{ suffix: "canary-target-groups", object: canaryBackendPolicy, before: "routes" as const, canary: true }] : []),
            // A rule whose configuration is missing or not yet accepted forwards nowhere (503), never unauthenticated.
            ...(listenerRuleConfiguration ? [{ suffix: "jwt-validation", object: listenerRuleConfiguration, before: "routes" as const }] : []),
        ],
    };
}

/** The AWS Load Balancer Controller, as `ModelGateway` renders for it: HTTPS on both listeners, always. */
export const EKS_GATEWAY: GatewayRenderer<EksGatewaySettings> = {
    render: renderEksGatewayObjects,
    hasTls: () => true,
};

