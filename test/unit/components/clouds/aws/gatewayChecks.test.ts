import * as assert from "assert";
import {
    ALB_JWT_LIMITS, ALB_VALIDATED_CLAIMS, EKS_LISTENER_PORTS, EksJwtValidation, JWT_CLAIM_FORMATS, SECURITY_GROUP_RULE_QUOTA, eksGatewayIssues,
} from "../../../../../components/clouds/aws/gatewayChecks";
import { renderEksGatewayObjects } from "../../../../../components/clouds/aws/gateway";

/* The limits of the ALB, its security group and the AWS Load Balancer Controller v3.5.0 (the pinned
 * release) on an EKS Gateway's source ranges and JWT validation, each with its source. */

/* eslint-disable @typescript-eslint/no-explicit-any */
const fields = (args: Parameters<typeof eksGatewayIssues>[0]) => eksGatewayIssues(args).map((i) => `${i.field}: ${i.message}`);
const ranges = (n: number) => Array.from({ length: n }, (_, i) => `198.51.${i}.0/24`);
const AUTH: EksJwtValidation = {
    type: "jwt", issuer: "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE",
    jwksEndpoint: "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE/.well-known/jwks.json",
};
const EKS = {
    name: "half-plus-two", labels: { app: "m" }, className: "tf-serving-alb", platform: "eks" as const,
    certificateArn: "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
};

describe("EKS Gateway source ranges: the ALB's security group and its rule quota", () => {
    /*
     * kubernetes-sigs/aws-load-balancer-controller v3.5.0, pkg/gateway/model/model_build_security_group.go,
     * buildManagedSecurityGroupIngressPermissions: without securityGroups in the LoadBalancerConfiguration the
     * controller manages the ALB's security group, and writes one inbound permission per listener (its port)
     * per sourceRanges CIDR (then one per securityGroupPrefixes prefix list, per listener too); without
     * sourceRanges, 0.0.0.0/0 and ::/0.
     */
    it("counts one inbound rule per range and listener port: the Gateway's two listeners, on the ports the checks count", () => {
        const gateway = renderEksGatewayObjects(EKS).gateway.spec as any;
        assert.deepStrictEqual([...new Set(gateway.listeners.map((l: any) => l.port))], [...EKS_LISTENER_PORTS]);
        assert.deepStrictEqual(EKS_LISTENER_PORTS, [8501, 8500]);
    });

    /*
     * awsdocs/amazon-vpc-user-guide doc_source/amazon-vpc-limits.md, "Security groups": inbound or outbound
     * rules per security group, default 60, adjustable, enforced for IPv4 and IPv6 rules apart; the quota
     * times the security groups per network interface cannot exceed 1,000.
     */
    it("refuses more IPv4 ranges than fit the default quota of 60 rules (30 ranges on two ports), naming the quota key", () => {
        assert.deepStrictEqual(SECURITY_GROUP_RULE_QUOTA, { default: 60, max: 1000 });
        assert.deepStrictEqual(fields({ sourceRanges: ranges(30) }), []);
        const [issue] = fields({ sourceRanges: ranges(31) });
        assert.match(issue, /^sourceRanges: lists 31 IPv4 ranges: the controller writes one inbound rule per range and listener port \(8501, 8500\), 62 rules, over the security group's quota of 60; list at most 30/);
        assert.match(issue, /set securityGroupRuleQuota to it/);
        // The same range twice is one rule.
        assert.deepStrictEqual(fields({ sourceRanges: [...ranges(30), "198.51.0.0/24"] }), []);
    });

    it("takes a raised quota: 100 rules hold 50 ranges; the quota itself from 1 to 1,000", () => {
        assert.deepStrictEqual(fields({ sourceRanges: ranges(50), securityGroupRuleQuota: 100 }), []);
        assert.match(fields({ sourceRanges: ranges(51), securityGroupRuleQuota: 100 })[0], /102 rules, over the security group's quota of 100; list at most 50/);
        assert.match(fields({ securityGroupRuleQuota: 1001 })[0], /^securityGroupRuleQuota: must be a whole number from 1 to 1000/);
        assert.match(fields({ securityGroupRuleQuota: 0.5 })[0], /^securityGroupRuleQuota: must be a whole number/);
    });

    /*
     * awsdocs/amazon-vpc-user-guide doc_source/amazon-vpc-limits.md, "Customer-managed prefix lists": a
     * referenced prefix list counts its maximum entries against the resource's quota ("a prefix list with 20
     * maximum entries ... referenced in a security group rule ... counts as 20 security group rules"). The
     * controller references each securityGroupPrefixes list once per listener port (model_build_security_group.go,
     * the PL loop), so a list of N entries costs 2N rules, as N ranges do: a managed prefix list holds no more.
     */
    it("says why a managed prefix list is no way past the quota: a referenced list counts as its maximum entries", () => {
        const [issue] = fields({ sourceRanges: ranges(31) });
        assert.match(issue, /A managed prefix list does not lift it: a referenced list counts as its maximum entries in rules/);
        assert.strictEqual((renderEksGatewayObjects({ ...EKS, sourceRanges: ranges(30) }).loadBalancerConfiguration.spec as any).securityGroupPrefixes, undefined);
    });

    /*
     * model_build_security_group.go: an IPv6 CIDR gets a permission only when the address type is dualstack
     * (isIPv6Supported, pkg/gateway/model/utilities.go); pkg/gateway/model/base_model_builder.go,
     * buildLoadBalancerIPAddressType: without ipAddressType in the LoadBalancerConfiguration the type is the
     * builder's default, ipv4 (defaultIPType). The rendered configuration sets none.
     */
    it("refuses an IPv6 range: the ALB is IPv4, and the controller writes no rule for it (it would let nobody in)", () => {
        assert.strictEqual((renderEksGatewayObjects({ ...EKS, sourceRanges: ["203.0.113.0/24"] }).loadBalancerConfiguration.spec as any).ipAddressType, undefined);
        assert.deepStrictEqual(fields({ sourceRanges: ["203.0.113.0/24", "2001:db8::/32"] }).map((m) => m.split(":")[0]), ["sourceRanges[1]"]);
        assert.match(fields({ sourceRanges: ["2001:db8::/32"] })[0], /is an IPv6 range, but the ALB is IPv4 .* writes no security-group rule for an IPv6 range, so it would let nobody in/);
        // IPv6 ranges take no IPv4 rule: 30 IPv4 and any IPv6 still fit (the IPv6 ones are refused on their own).
        assert.strictEqual(fields({ sourceRanges: [...ranges(30), "2001:db8::/32"] }).length, 1);
    });

    it("the component refuses the same before registering anything, naming every field", () => {
        assert.throws(() => renderEksGatewayObjects({ ...EKS, sourceRanges: [...ranges(31), "2001:db8::/32"] }),
            /^Error: ModelGateway half-plus-two: sourceRanges\[31\] is an IPv6 range.*; sourceRanges lists 31 IPv4 ranges/);
        assert.throws(() => renderEksGatewayObjects({ ...EKS, certificateArn: undefined as unknown as string }), /^Error: ModelGateway half-plus-two: certificateArn is required/);
    });
});

describe("EKS Gateway caller authentication: the ALB's jwt-validation action and its limits", () => {
    /*
     * ELB API reference, JwtValidationActionConfig (docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/
     * API_JwtValidationActionConfig.html): Issuer and JwksEndpoint required, each at most 256 characters, the
     * JWKS endpoint "a full URL, including the HTTPS protocol, the domain, and the path"; AdditionalClaims at most
     * 10. The controller's CRD says the same of issuer and jwksEndpoint (apis/gateway/v1/listenerruleconfig_types.go,
     * JwtValidationActionConfig: Required, MaxLength=256).
     */
    it("takes an https issuer and an https JWKS URL with its path, each up to 256 characters", () => {
        assert.deepStrictEqual(fields({ auth: AUTH }), []);
        assert.strictEqual(ALB_JWT_LIMITS.urlLength, 256);
        assert.match(fields({ auth: { ...AUTH, jwksEndpoint: "http://idp.example.com/jwks.json" } })[0], /^auth\.jwksEndpoint: must be an https URL \(not http\)/);
        assert.match(fields({ auth: { ...AUTH, jwksEndpoint: "https://idp.example.com" } })[0], /^auth\.jwksEndpoint: must name the path too \(the ALB takes a full URL: the HTTPS protocol, the domain and the path\)/);
        assert.match(fields({ auth: { ...AUTH, jwksEndpoint: "jwks.json" } })[0], /^auth\.jwksEndpoint: must be an https URL such as/);
        const long = `https://idp.example.com/${"k".repeat(240)}`;
        assert.match(fields({ auth: { ...AUTH, jwksEndpoint: long } })[0], /is 264 characters, over the ALB's 256/);
        assert.match(fields({ auth: { ...AUTH, jwksEndpoint: "https://user:pw@idp.example.com/jwks.json" } })[0], /must not carry credentials in the URL/);
    });

    /*
     * OpenID Connect Discovery 1.0, section 3 (openid.net/specs/openid-connect-discovery-1_0.html): issuer is
     * "URL using the https scheme with no query or fragment components"; RFC 8414 section 2 says the same of an
     * OAuth authorization server's issuer. The ALB compares the token's iss with it (its "Verify JWTs" page:
     * iss and exp always validated).
     */
    it("refuses an issuer that is not https, or has a query or fragment: one line each", () => {
        assert.deepStrictEqual(fields({ auth: { ...AUTH, issuer: "http://idp.example.com" } }),
            ["auth.issuer: must be an https URL (not http), such as https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE: the ALB compares it with each token's iss"]);
        assert.match(fields({ auth: { ...AUTH, issuer: "idp.example.com" } })[0], /^auth\.issuer: must be an https URL such as/);
        assert.match(fields({ auth: { ...AUTH, issuer: "https://idp.example.com/?tenant=a" } })[0], /^auth\.issuer: must have no query or fragment/);
        // A path is fine (Cognito's issuer ends in the user pool); a bare host is too.
        assert.deepStrictEqual(fields({ auth: { ...AUTH, issuer: "https://idp.example.com" } }), []);
    });

    /*
     * ELB API reference, JwtValidationActionAdditionalClaim: Format one of single-string, string-array,
     * space-separated-values; Name required, not exp, iss, nbf or iat ("we validate them by default"); Values
     * required, at most 10, each up to 256 characters, without spaces for space-separated-values. The
     * controller's CRD: format enum, name minLength 1, values minItems 1 maxItems 10 items maxLength 256
     * (config/crd/gateway/gateway.k8s.aws_listenerruleconfigurations.yaml at v3.5.0).
     */
    it("claims: at most 10, a name not checked by default, a format of three, 1 to 10 values of up to 256 characters", () => {
        assert.deepStrictEqual([...JWT_CLAIM_FORMATS], ["single-string", "string-array", "space-separated-values"]);
        assert.deepStrictEqual(ALB_VALIDATED_CLAIMS, ["exp", "iss", "nbf", "iat"]);
        assert.deepStrictEqual([ALB_JWT_LIMITS.claims, ALB_JWT_LIMITS.values, ALB_JWT_LIMITS.valueLength], [10, 10, 256]);
        const claim = (name: string, values: string[] = ["tf-serving"], format: any = "single-string") => ({ name, format, values });
        const withClaims = (claims: ReturnType<typeof claim>[]) => fields({ auth: { ...AUTH, claims } });
        assert.deepStrictEqual(withClaims([claim("aud"), claim("scope", ["predict", "metadata"], "space-separated-values")]), []);
        assert.match(withClaims(Array.from({ length: 11 }, (_, i) => claim(`c${i}`)))[0], /^auth\.claims: lists 11 claims, over the ALB's 10/);
        assert.match(withClaims([claim("exp")])[0], /^auth\.claims\[0\]\.name: is a claim the ALB checks on every token by itself \(exp, iss, nbf, iat\): remove it/);
        assert.match(withClaims([claim("aud"), claim("aud")])[0], /^auth\.claims\[1\]\.name: names the claim auth\.claims\[0\] names/);
        assert.match(withClaims([claim("aud", ["a"], "json")])[0], /^auth\.claims\[0\]\.format: must be one of "single-string", "string-array", "space-separated-values"/);
        assert.match(withClaims([claim("aud", [])])[0], /^auth\.claims\[0\]\.values: must list 1 to 10 values \(it lists 0\)/);
        assert.match(withClaims([claim("aud", Array.from({ length: 11 }, (_, i) => `v${i}`))])[0], /must list 1 to 10 values \(it lists 11\)/);
        assert.match(withClaims([claim("aud", ["x".repeat(257)])])[0], /^auth\.claims\[0\]\.values\[0\]: must be 1 to 256 characters/);
        assert.match(withClaims([claim("scope", ["read write"], "space-separated-values")])[0], /^auth\.claims\[0\]\.values\[0\]: holds a space/);
        // A space in a single string is the claim's own value.
        assert.deepStrictEqual(withClaims([claim("name", ["Jane Doe"])]), []);
    });
});

describe("EKS Gateway certificate and drain time", () => {
    /*
     * The ACM certificate ARN form: arn:PARTITION:acm:REGION:ACCOUNT:certificate/ID (AWS's "Amazon Resource
     * Names" reference, ACM's resource types); a listener's certificate must be one.
     */
    it("refuses a certificate that is not an ACM certificate ARN, naming the field", () => {
        assert.deepStrictEqual(fields({ certificateArn: EKS.certificateArn }), []);
        for (const bad of ["arn", "arn:aws:acm:us-west-2:123456789012:certificate/x", "arn:aws:iam::123456789012:server-certificate/x"]) {
            assert.match(fields({ certificateArn: bad }).join("\n"), /^certificateArn: must be an ACM certificate ARN, arn:aws:acm:REGION:ACCOUNT:certificate\/ID/, bad);
        }
    });

    /*
     * pulumi/pulumi-aws, the lb.TargetGroup `deregistrationDelay` input (the target group attribute
     * `deregistration_delay.timeout_seconds` the controller's TargetGroupConfiguration sets): "The range is
     * 0-3600 seconds. The default value is 300 seconds."
     */
    it("drainSeconds: a whole number of seconds from 0 to 3600, the deregistration delay the ALB takes", () => {
        for (const fine of [0, 45, 3600]) {
            assert.deepStrictEqual(fields({ drainSeconds: fine }), [], String(fine));
        }
        for (const bad of [-1, 3601, 1.5]) {
            assert.match(fields({ drainSeconds: bad }).join("\n"), /^drainSeconds: must be a whole number of seconds from 0 to 3600/, String(bad));
        }
    });

    it("renderEksGatewayObjects throws both in one line before anything is rendered", () => {
        assert.throws(() => renderEksGatewayObjects({ ...EKS, certificateArn: "arn:aws:acm:us-west-2:1:certificate/x", drainSeconds: 7200 } as any), (e: Error) =>
            /^ModelGateway half-plus-two: certificateArn must be an ACM certificate ARN.*; drainSeconds must be a whole number of seconds from 0 to 3600[^\n]*$/.test(e.message));
    });
});
