/**
 * What the ALB or the AWS Load Balancer Controller would refuse, or silently drop, in an EKS
 * Gateway's certificate, drain time, source ranges and caller authentication, pure: `ModelGateway` throws what they find
 * before it registers anything, and the `gateway` config section records it under its keys
 * (`components/argsIssues.ts`). The rules and their sources are stated in
 * test/unit/components/clouds/aws/gatewayChecks.test.ts.
 */
import type { ArgsIssue } from "../../argsIssues";
import { GRPC_PORT, REST_PORT } from "../../../serving/images";

/** The ALB's listener ports (REST, gRPC): the controller writes each source range's inbound rule once per listener port. */
export const EKS_LISTENER_PORTS: readonly number[] = [REST_PORT, GRPC_PORT];

/**
 * The VPC's default quota of inbound rules per security group, counted for IPv4 and IPv6 apart
 * (Service Quotas L-0EA8095F, adjustable); at most 1,000, since it times the security groups per
 * network interface (at least 1) cannot exceed 1,000.
 */
export const SECURITY_GROUP_RULE_QUOTA = { default: 60, max: 1000 } as const;

/** How a token carries an additional claim, as the ALB's `jwt-validation` action names the formats. */
export const JWT_CLAIM_FORMATS = ["single-string", "string-array", "space-separated-values"] as const;
export type JwtClaimFormat = typeof JWT_CLAIM_FORMATS[number];

/** The claims the ALB checks on every token by itself, which an additional claim may not name. */
export const ALB_VALIDATED_CLAIMS: readonly string[] = ["exp", "iss", "nbf", "iat"];

/** The ALB's limits on a `jwt-validation` action (ELB API `JwtValidationActionConfig`, `JwtValidationActionAdditionalClaim`). */
export const ALB_JWT_LIMITS = { urlLength: 256, claims: 10, values: 10, valueLength: 256 } as const;

/** A claim the ALB compares beside the ones it always checks. */
export interface JwtClaim {
    /** The claim's name, e.g. `aud`, `client_id` or `scope`; not exp, iss, nbf or iat, which the ALB always checks. */
    name: string;
    /** How the token carries it: one string, an array of strings, or space-separated values (OAuth's `scope`). */
    format: JwtClaimFormat;
    /** The values the ALB compares the claim with: 1 to 10, each up to 256 characters, without spaces for `space-separated-values`. */
    values: string[];
}

/**
 * Caller authentication on the ALB: every request must carry a JSON Web Token (RS256) signed by a key of
 * `jwksEndpoint`, issued by `issuer` and unexpired, with `claims`; the ALB refuses any other with 401.
 */
export interface EksJwtValidation {
    type: "jwt";
    /** The issuer the tokens carry in `iss`, exactly: an https URL without query or fragment, up to 256 characters. */
    issuer: string;
    /** The https URL (with its path) of the issuer's JSON Web Key Set, up to 256 characters: the ALB reads the signing keys there. */
    jwksEndpoint: string;
    /** Additional claims the ALB compares, up to 10. Default none. */
    claims?: JwtClaim[];
}

/** `arn:PARTITION:acm:REGION:ACCOUNT:certificate/UUID`. */
export const ACM_CERTIFICATE_ARN = /^arn:(aws(?:-cn|-us-gov|-iso(?:-[a-z])?)?):acm:([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-[0-9]+):([0-9]{12}):certificate\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The seconds a target group's deregistration delay (`deregistration_delay.timeout_seconds`) may take. */
export const ALB_DRAIN_SECONDS = { min: 0, max: 3600 } as const;

/** The fields the checks read. */
export interface EksGatewayChecked {
    /** The listeners' ACM certificate (required by `renderEksGatewayObjects`). */
    certificateArn?: string;
    drainSeconds?: number;
    sourceRanges?: string[];
    /** The account's quota of inbound rules per security group; default `SECURITY_GROUP_RULE_QUOTA.default`. */
    securityGroupRuleQuota?: number;
    auth?: EksJwtValidation;
}

/** Why `text` is not an https URL with a host (and a path, with `needsPath`; no query or fragment, with `bare`), or undefined. */
function httpsUrlProblem(text: string, options: { needsPath: boolean; bare: boolean }, example: string): string | undefined {
    let url: URL;
    try {
        url = new URL(text);
    } catch {
        return `must be an https URL such as ${example}`;
    }
    if (url.protocol !== "https:") {
        return `must be an https URL (not ${url.protocol.replace(/:$/, "")}), such as ${example}`;
    }
    if (url.username !== "" || url.password !== "") {
        return `must not carry credentials in the URL, such as ${example}`;
    }
    if (options.needsPath && url.pathname === "/") {
        return `must name the path too (the ALB takes a full URL: the HTTPS protocol, the domain and the path), such as ${example}`;
    }
    if (options.bare && (url.search !== "" || url.hash !== "")) {
        return `must have no query or fragment (an OpenID Connect issuer has neither), such as ${example}`;
    }
    if (text.length > ALB_JWT_LIMITS.urlLength) {
        return `is ${text.length} characters, over the ALB's ${ALB_JWT_LIMITS.urlLength}`;
    }
    return undefined;
}

function claimIssues(claims: JwtClaim[], at: string): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    if (claims.length > ALB_JWT_LIMITS.claims) {
        issues.push({ field: at, value: claims.map((c) => c.name), message: `lists ${claims.length} claims, over the ALB's ${ALB_JWT_LIMITS.claims} additional claims per validation` });
    }
    claims.forEach((claim, i) => {
        const field = `${at}[${i}]`;
        if (claim.name.trim() === "") {
            issues.push({ field: `${field}.name`, value: claim.name, message: "is empty: name the claim, e.g. aud, client_id or scope" });
        } else if (ALB_VALIDATED_CLAIMS.includes(claim.name)) {
            issues.push({ field: `${field}.name`, value: claim.name, message: `is a claim the ALB checks on every token by itself (${ALB_VALIDATED_CLAIMS.join(", ")}): remove it` });
        } else if (claims.findIndex((c) => c.name === claim.name) < i) {
            issues.push({ field: `${field}.name`, value: claim.name, message: `names the claim ${at}[${claims.findIndex((c) => c.name === claim.name)}] names: list each claim once, with all its values` });
        }
        if (!(JWT_CLAIM_FORMATS as readonly string[]).includes(claim.format)) {
            issues.push({ field: `${field}.format`, value: claim.format, message: `must be one of ${JWT_CLAIM_FORMATS.map((f) => `"${f}"`).join(", ")}` });
        }
        if (claim.values.length === 0 || claim.values.length > ALB_JWT_LIMITS.values) {
            issues.push({ field: `${field}.values`, value: claim.values, message: `must list 1 to ${ALB_JWT_LIMITS.values} values (it lists ${claim.values.length})` });
        }
        claim.values.forEach((value, j) => {
            if (value.length === 0 || value.length > ALB_JWT_LIMITS.valueLength) {
                issues.push({ field: `${field}.values[${j}]`, value, message: `must be 1 to ${ALB_JWT_LIMITS.valueLength} characters` });
            } else if (claim.format === "space-separated-values" && /\s/.test(value)) {
                issues.push({ field: `${field}.values[${j}]`, value, message: "holds a space, which space-separated-values cannot compare: list each value on its own" });
            }
        });
    });
    return issues;
}

/**
 * What the controller or the ALB would refuse or drop in `args`. `key` names another field in a
 * message (the config layer's `gateway.securityGroupRuleQuota`; the field itself for a library user).
 */
export function eksGatewayIssues(args: EksGatewayChecked, key: (field: string) => string = (field) => field): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    if (args.certificateArn !== undefined && !ACM_CERTIFICATE_ARN.test(args.certificateArn)) {
        issues.push({
            field: "certificateArn", value: args.certificateArn,
            message: "must be an ACM certificate ARN, arn:aws:acm:REGION:ACCOUNT:certificate/ID (e.g. arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b; `aws acm list-certificates`)",
        });
    }
    const drain = args.drainSeconds;
    if (drain !== undefined && (!Number.isInteger(drain) || drain < ALB_DRAIN_SECONDS.min || drain > ALB_DRAIN_SECONDS.max)) {
        issues.push({
            field: "drainSeconds", value: drain,
            message: `must be a whole number of seconds from ${ALB_DRAIN_SECONDS.min} to ${ALB_DRAIN_SECONDS.max}, the target group's deregistration delay the ALB accepts; ` +
                "remove it for the ALB's 300",
        });
    }
    const quota = args.securityGroupRuleQuota ?? SECURITY_GROUP_RULE_QUOTA.default;
    if (!Number.isInteger(quota) || quota < 1 || quota > SECURITY_GROUP_RULE_QUOTA.max) {
        issues.push({ field: "securityGroupRuleQuota", value: quota, message: `must be a whole number from 1 to ${SECURITY_GROUP_RULE_QUOTA.max} (the account's "Inbound or outbound rules per security group")` });
    }
    const ranges = args.sourceRanges ?? [];
    ranges.forEach((range, i) => {
        if (range.includes(":")) {
            issues.push({
                field: `sourceRanges[${i}]`, value: range,
                message: "is an IPv6 range, but the ALB is IPv4 (the controller's default address type): the controller writes no security-group rule " +
                    "for an IPv6 range, so it would let nobody in; list the IPv4 ranges of those callers",
            });
        }
    });
    const ipv4 = new Set(ranges.filter((r) => !r.includes(":")));
    const rules = ipv4.size * EKS_LISTENER_PORTS.length;
    if (rules > quota) {
        issues.push({
            field: "sourceRanges", value: ranges,
            message: `lists ${ipv4.size} IPv4 ranges: the controller writes one inbound rule per range and listener port (${EKS_LISTENER_PORTS.join(", ")}), ` +
                `${rules} rules, over the security group's quota of ${quota}; list at most ${Math.floor(quota / EKS_LISTENER_PORTS.length)} ` +
                `(merge neighbouring ranges into a shorter prefix), or raise the VPC quota "Inbound or outbound rules per security group" and set ` +
                `${key("securityGroupRuleQuota")} to it. A managed prefix list does not lift it: a referenced list counts as its maximum entries in rules ` +
                "(docs/guides/endpoint-security.md#eks)",
        });
    }
    if (args.auth !== undefined) {
        const { issuer, jwksEndpoint, claims } = args.auth;
        const issuerProblem = httpsUrlProblem(issuer, { needsPath: false, bare: true }, "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE");
        if (issuerProblem !== undefined) {
            issues.push({ field: "auth.issuer", value: issuer, message: `${issuerProblem}: the ALB compares it with each token's iss` });
        }
        const jwksProblem = httpsUrlProblem(jwksEndpoint, { needsPath: true, bare: false }, "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE/.well-known/jwks.json");
        if (jwksProblem !== undefined) {
            issues.push({ field: "auth.jwksEndpoint", value: jwksEndpoint, message: `${jwksProblem} (the issuer's /.well-known/openid-configuration names it as jwks_uri)` });
        }
        issues.push(...claimIssues(claims ?? [], "auth.claims"));
    }
    return issues;
}
