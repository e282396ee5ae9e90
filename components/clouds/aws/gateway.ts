/**
 * The AWS Load Balancer Controller's Gateway (`platform: "eks"`): the objects it reads, pure (no SDK),
 * so `ModelGateway` renders them on any stack and the tests read them directly.
 */
import { GRPC_PORT, REST_PORT } from "../../../serving/images";
import { modelStatusPath } from "../../../serving/probes";
import { GatewayApiObject, GatewayBase, GatewayObjects, GatewayRenderer, forCanary, renderListenerGateway } from "../../../serving/gateway";

/** The AWS Load Balancer Controller's own Gateway fields. */
export interface EksGatewaySettings {
    platform: "eks";
    /** The ACM certificate both HTTPS listeners present. */
    certificateArn: string;
    /** Seconds a target group keeps a removed pod draining (the pod's termination grace); default the ALB's 300. */
    drainSeconds?: number;
}

/** What `renderEksGatewayObjects` returns: the generic objects and, by name, the controller's own. */
export type EksGatewayObjects = GatewayObjects & {
    /** The ALB's scheme, listener certificates and source ranges (the Gateway's `infrastructure.parametersRef`). */
    loadBalancerConfiguration: GatewayApiObject;
    /** The Service's target groups (pod IPs, protocol version, health checks). */
    targetGroupConfiguration: GatewayApiObject;
    /** With a canary Service: its own target groups, as the model Service has. */
    canaryBackendPolicy?: GatewayApiObject;
};

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
export function renderEksGatewayObjects(input: GatewayBase & EksGatewaySettings): EksGatewayObjects {
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
    const loadBalancerConfiguration: GatewayApiObject = {
        apiVersion: AWS_GATEWAY_CONFIG_VERSION,
        kind: "LoadBalancerConfiguration",
        metadata,
        spec: {
            scheme: "internet-facing",
            listenerConfigurations: [listener(REST_PORT), listener(GRPC_PORT)],
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
        loadBalancerConfiguration, targetGroupConfiguration, canaryBackendPolicy,
        // The controller builds the load balancer from these when it first sees the Gateway and its routes:
        // an ALB's scheme and a target group's protocol version cannot change afterwards, so they come first.
        policies: [
            { suffix: "lb-config", object: loadBalancerConfiguration, before: "gateway" },
            { suffix: "target-groups", object: targetGroupConfiguration, before: "routes" },
            ...(canaryBackendPolicy ? [{ suffix: "canary-target-groups", object: canaryBackendPolicy, before: "routes" as const, canary: true }] : []),
        ],
    };
}

/** The AWS Load Balancer Controller, as `ModelGateway` renders for it: HTTPS on both listeners, always. */
export const EKS_GATEWAY: GatewayRenderer<EksGatewaySettings> = {
    render: renderEksGatewayObjects,
    hasTls: () => true,
};

