/**
 * The `gateway` keys on the cluster `stacks/aws.ts` creates (`GatewaySection`, config/gateway.ts):
 * the stack installs the AWS Load Balancer Controller and, under `gateway.className`, a GatewayClass
 * of its ALBs. TLS is required (an ALB speaks gRPC only on HTTPS listeners), from an ACM certificate
 * (the controller reads no Secret); the controller's LoadBalancerConfiguration takes
 * `loadBalancerSourceRanges` (as many as the security group's rule quota holds,
 * `gateway.securityGroupRuleQuota`), and `gateway.auth` (`type: jwt`) is the ALB's JWT validation.
 * The checks are the component's (`eksGatewayIssues`), recorded here under the keys.
 */
import { readGatewayAuth } from "../../../config/gateway";
import type { GatewaySection } from "../../../config/gateway";
import type { ConfigReader } from "../../../config/configReader";
import { PRESTOP_SLEEP_SECONDS, SHUTDOWN_SECONDS } from "../../../serving/rollout";
import type { GatewayBase } from "../../../serving/gateway";
import type { EksGatewaySettings } from "./gateway";
import { EksJwtValidation, JWT_CLAIM_FORMATS, JwtClaim, SECURITY_GROUP_RULE_QUOTA, eksGatewayIssues } from "./gatewayChecks";

/** The GatewayClass of the AWS Load Balancer Controller's ALBs the EKS stack creates, unless `gateway.className` names another. */
export const EKS_DEFAULT_GATEWAY_CLASS = "tf-serving-alb";

/** `gateway.auth` with `type: jwt`: the issuer, its key set and the claims, as written (the checks are `eksGatewayIssues`'). */
function readJwtValidation(auth: ConfigReader): EksJwtValidation {
    auth.rejectUnknown(["type", "issuer", "jwksEndpoint", "claims"]);
    const issuer = auth.required("issuer", "the issuer your tokens carry in iss, an https URL (e.g. https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE; " +
        "the issuer's /.well-known/openid-configuration names it as issuer)");
    const jwksEndpoint = auth.required("jwksEndpoint", "the https URL of the issuer's JSON Web Key Set, where the ALB reads the keys that sign the tokens " +
        "(its /.well-known/openid-configuration names it as jwks_uri, e.g. https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE/.well-known/jwks.json)");
    const claims = auth.nestedList("claims")?.map((c): JwtClaim => {
        c.rejectUnknown(["name", "format", "values"]);
        const name = c.required("name", "the claim's name, e.g. aud, client_id or scope");
        const format = c.has("format") ? c.oneOf("format", JWT_CLAIM_FORMATS, "single-string") : undefined;
        if (format === undefined) {
            c.fail("format", `required: how the token carries the claim, one of ${JWT_CLAIM_FORMATS.map((f) => `"${f}"`).join(", ")} (scope is space-separated-values)`, undefined);
        }
        const values = c.stringList("values");
        if (values === undefined && !c.has("values")) {
            c.fail("values", "required: the values the ALB compares the claim with, a list of 1 to 10 strings", undefined);
        }
        return { name, format: format ?? "single-string", values: values ?? [] };
    });
    return { type: "jwt", issuer, jwksEndpoint, ...(claims === undefined ? {} : { claims }) };
}

/**
 * The config key of a field `eksGatewayIssues` names. `sourceRanges` holds the ranges config kept, so
 * `sourceRanges[i]` is the i-th entry of `loadBalancerSourceRanges` not refused already (`refused`).
 */
function configKey(field: string, refused: ReadonlySet<string>): string {
    const entry = /^sourceRanges\[(\d+)\]$/.exec(field);
    if (entry === null) {
        return field === "sourceRanges" ? "loadBalancerSourceRanges" : `gateway.${field}`;
    }
    let kept = -1;
    let written = -1;
    while (kept < Number(entry[1])) {
        written++;
        if (!refused.has(`loadBalancerSourceRanges[${written}]`)) {
            kept++;
        }
    }
    return `loadBalancerSourceRanges[${written}]`;
}

export const EKS_GATEWAY_SECTION: GatewaySection = {
    required: "required with `endpoint: gateway` on aws: the listeners' certificate, `{certificateArn: ARN}` (an ACM certificate in eks.region, `aws acm list-certificates`)",
    ownKeys: ["certificateArn", "securityGroupRuleQuota", "auth"],
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
        }
        const securityGroupRuleQuota = g.int("securityGroupRuleQuota", undefined, { min: 1, max: SECURITY_GROUP_RULE_QUOTA.max });
        const auth = readGatewayAuth(g, EKS_GATEWAY_SECTION);
        // Without a certificate ARN an issue is recorded above, and the configuration never returned.
        const settings: EksGatewaySettings & Pick<GatewayBase, "sourceRanges"> = {
            platform: "eks", certificateArn: certificateArn ?? "",
            // The ALB's security group takes the endpoint's source ranges; a target group drains a removed pod for as long as the pod ends.
            sourceRanges: service.sourceRanges, drainSeconds: PRESTOP_SLEEP_SECONDS + SHUTDOWN_SECONDS,
            ...(securityGroupRuleQuota === undefined ? {} : { securityGroupRuleQuota }),
            ...(auth === undefined ? {} : { auth: readJwtValidation(auth.auth) }),
        };
        // A key already refused (a missing issuer) is not refused twice.
        const refused = new Set(g.issues.map((i) => i.key));
        for (const issue of eksGatewayIssues(settings, (field) => configKey(field, refused))) {
            const key = configKey(issue.field, refused);
            if (!refused.has(key)) {
                g.issues.push({ key, value: issue.value, expected: issue.message });
            }
        }
        return settings;
    },
    createsClass: true,
    openMessage: "with `endpoint: gateway` on aws and no loadBalancerSourceRanges the ALB is open to every address: set publicEndpoint true to say so on purpose, or list the CIDRs allowed in loadBalancerSourceRanges",
    authTypes: ["jwt"],
};
