/**
 * The `gateway` keys on the cluster `stacks/aws.ts` creates (`GatewaySection`, config/gateway.ts):
 * the stack installs the AWS Load Balancer Controller and, under `gateway.className`, a GatewayClass
 * of its ALBs. TLS is required (an ALB speaks gRPC only on HTTPS listeners), from an ACM certificate
 * (the controller reads no Secret); the controller's LoadBalancerConfiguration takes
 * `loadBalancerSourceRanges`.
 */
import type { GatewaySection } from "../../../config/gateway";
import { PRESTOP_SLEEP_SECONDS, SHUTDOWN_SECONDS } from "../../../serving/rollout";

/** The GatewayClass of the AWS Load Balancer Controller's ALBs the EKS stack creates, unless `gateway.className` names another. */
export const EKS_DEFAULT_GATEWAY_CLASS = "tf-serving-alb";

/** `arn:PARTITION:acm:REGION:ACCOUNT:certificate/UUID`. */
export const ACM_CERTIFICATE_ARN = /^arn:(aws(?:-cn|-us-gov|-iso(?:-[a-z])?)?):acm:([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-[0-9]+):([0-9]{12}):certificate\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const EKS_GATEWAY_SECTION: GatewaySection = {
    required: "required with `endpoint: gateway` on aws: the listeners' certificate, `{certificateArn: ARN}` (an ACM certificate in eks.region, `aws acm list-certificates`)",
    ownKeys: ["certificateArn"],
    defaultClass: EKS_DEFAULT_GATEWAY_CLASS,
    classExample: EKS_DEFAULT_GATEWAY_CLASS,
    // The stack creates the one class, named `className`: only another cloud's class is wrong.
    classProblem: (className) => (className.startsWith("gke-")
        ? `is a class of GKE's Gateway controller, which does not run on EKS: the stack creates a GatewayClass of the AWS Load Balancer Controller under this key's name; remove the key for "${EKS_DEFAULT_GATEWAY_CLASS}", or name it something else`
        : undefined),
    secretRefused: "the AWS Load Balancer Controller takes no certificate from a Secret (a listener's certificateRefs): import it into ACM (`aws acm import-certificate`) and name it in gateway.certificateArn",
    readSettings(g, _tlsSecretName, service) {
        const certificateArn = g.string("certificateArn");
        if (certificateArn === undefined) {
            g.fail("certificateArn", "required on aws: an ALB serves gRPC only on HTTPS listeners; name an ACM certificate for your hostname in eks.region " +
                "(`aws acm request-certificate` or `import-certificate`), e.g. arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", undefined);
        } else if (!ACM_CERTIFICATE_ARN.test(certificateArn)) {
            g.fail("certificateArn", "must be an ACM certificate ARN, arn:aws:acm:REGION:ACCOUNT:certificate/ID (e.g. arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b; `aws acm list-certificates`)");
        }
        // Without a certificate ARN an issue is recorded above, and the configuration never returned.
        return {
            platform: "eks", certificateArn: certificateArn ?? "",
            // The ALB's security group takes the endpoint's source ranges; a target group drains a removed pod for as long as the pod ends.
            sourceRanges: service.sourceRanges, drainSeconds: PRESTOP_SLEEP_SECONDS + SHUTDOWN_SECONDS,
        };
    },
    createsClass: true,
    openMessage: "with `endpoint: gateway` on aws and no loadBalancerSourceRanges the ALB is open to every address: set publicEndpoint true to say so on purpose, or list the CIDRs allowed in loadBalancerSourceRanges",
    authTypes: [],
};
