import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { readConfig } from "../../../config/config";
import { ConfigError } from "../../../config/configReader";

/* `endpoint: gateway` on aws: the source ranges the ALB's security group holds, and `gateway.auth`
 * (the ALB's JWT validation), as config reads them. The rules themselves, with their sources, are in
 * test/unit/components/clouds/aws/gatewayChecks.test.ts. */

const PROJECT = "tf-serving";
const EKS = { region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"] };
const CERT = "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
const ISSUER = "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE";
const JWKS = `${ISSUER}/.well-known/jwks.json`;
const RANGE = ["203.0.113.0/24"];

function all(gateway: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, string> {
    const values = { modelPath: "models/half_plus_two", cloud: "aws", eks: EKS, endpoint: "gateway", loadBalancerSourceRanges: RANGE, gateway: { certificateArn: CERT, ...gateway }, ...extra };
    return Object.fromEntries(Object.entries(values).map(([k, v]) => [`${PROJECT}:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
}

function settingsOf(gateway: Record<string, unknown>, extra?: Record<string, unknown>): Record<string, unknown> {
    return readConfig(all(gateway, extra), PROJECT, "/project").service.gateway as unknown as Record<string, unknown>;
}

/** Each issue as `key: expected`. */
function problems(gateway: Record<string, unknown>, extra?: Record<string, unknown>): string[] {
    try {
        readConfig(all(gateway, extra), PROJECT, "/project");
    } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.issues.map((i) => `${i.key}: ${i.expected}`);
    }
    return [];
}

describe("config: the EKS Gateway's source ranges and caller authentication", () => {
    it("without the new keys, the settings a stack had before: no auth, no quota", () => {
        const settings = settingsOf({});
        assert.deepStrictEqual(Object.keys(settings).sort(), ["certificateArn", "className", "createClass", "drainSeconds", "platform", "sourceRanges", "tlsSecretName"]);
    });

    it("gateway.auth type jwt: the issuer, the JWKS endpoint and the claims, as written (type defaults to jwt)", () => {
        const claims = [{ name: "scope", format: "space-separated-values", values: ["tf-serving/predict"] }];
        const settings = settingsOf({ auth: { type: "jwt", issuer: ISSUER, jwksEndpoint: JWKS, claims } });
        assert.deepStrictEqual(settings.auth, { type: "jwt", issuer: ISSUER, jwksEndpoint: JWKS, claims });
        assert.deepStrictEqual(settingsOf({ auth: { issuer: ISSUER, jwksEndpoint: JWKS } }).auth, { type: "jwt", issuer: ISSUER, jwksEndpoint: JWKS });
    });

    it("bad input, one clear line each: an issuer not https, a missing JWKS endpoint, malformed claims, another type", () => {
        assert.deepStrictEqual(problems({ auth: { issuer: "http://idp.example.com", jwksEndpoint: JWKS } }),
            ["gateway.auth.issuer: must be an https URL (not http), such as https://cognito-idp.us-west-2.amazonaws.com/us-west-2_EXAMPLE: the ALB compares it with each token's iss"]);
        const missing = problems({ auth: { issuer: ISSUER } });
        assert.strictEqual(missing.length, 1);
        assert.match(missing[0], /^gateway\.auth\.jwksEndpoint: required: the https URL of the issuer's JSON Web Key Set, where the ALB reads the keys that sign the tokens/);
        assert.deepStrictEqual(problems({ auth: { jwksEndpoint: JWKS } }).map((p) => p.split(":")[0]), ["gateway.auth.issuer"]);
        assert.deepStrictEqual(problems({ auth: { issuer: ISSUER, jwksEndpoint: JWKS, claims: { aud: "x" } } }),
            ["gateway.auth.claims: must be a list (in the stack file, a YAML list; on the command line, `pulumi config set --path 'KEY[0]' VALUE`)"]);
        assert.deepStrictEqual(problems({ auth: { issuer: ISSUER, jwksEndpoint: JWKS, claims: ["aud"] } }), ["gateway.auth.claims[0]: must be an object (a YAML mapping)"]);
        const noFormat = problems({ auth: { issuer: ISSUER, jwksEndpoint: JWKS, claims: [{ name: "aud", values: ["x"] }] } });
        assert.deepStrictEqual(noFormat, ['gateway.auth.claims[0].format: required: how the token carries the claim, one of "single-string", "string-array", "space-separated-values" (scope is space-separated-values)']);
        assert.match(problems({ auth: { issuer: ISSUER, jwksEndpoint: JWKS, claims: [{ name: "iss", format: "single-string", values: ["x"] }] } })[0],
            /^gateway\.auth\.claims\[0\]\.name: is a claim the ALB checks on every token by itself/);
        assert.match(problems({ auth: { issuer: ISSUER, jwksEndpoint: JWKS, claims: [{ name: "aud", format: "single-string" }] } })[0], /^gateway\.auth\.claims\[0\]\.values: required/);
        assert.match(problems({ auth: { issuer: ISSUER, jwksEndpoint: JWKS, claim: [] } })[0], /^gateway\.auth\.claim: unknown key\. did you mean 'gateway\.auth\.claims'\?/);
        assert.match(problems({ auth: { type: "basic", issuer: ISSUER, jwksEndpoint: JWKS } })[0], /^gateway\.auth\.type: must be one of "jwt"/);
        assert.match(problems({ auth: "jwt" })[0], /^gateway\.auth: must be an object/);
    });

    it("source ranges: more than the security group's quota holds, or an IPv6 range, refused under loadBalancerSourceRanges; a raised quota under its key", () => {
        const ranges = (n: number) => Array.from({ length: n }, (_, i) => `198.51.${i}.0/24`);
        assert.deepStrictEqual(problems({}, { loadBalancerSourceRanges: ranges(30) }), []);
        const [over] = problems({}, { loadBalancerSourceRanges: ranges(31) });
        assert.match(over, /^loadBalancerSourceRanges: lists 31 IPv4 ranges: .* 62 rules, over the security group's quota of 60; list at most 30 .* set gateway\.securityGroupRuleQuota to it/);
        assert.deepStrictEqual(problems({ securityGroupRuleQuota: 62 }, { loadBalancerSourceRanges: ranges(31) }), []);
        assert.strictEqual(settingsOf({ securityGroupRuleQuota: "62" }).securityGroupRuleQuota, 62);
        assert.match(problems({ securityGroupRuleQuota: 2000 })[0], /^gateway\.securityGroupRuleQuota: must be a whole number from 1 to 1000/);
        assert.match(problems({}, { loadBalancerSourceRanges: ["203.0.113.0/24", "2001:db8::/32"] })[0], /^loadBalancerSourceRanges\[1\]: is an IPv6 range, but the ALB is IPv4/);
        // Named by its place as written, past an entry refused for its own reason.
        assert.deepStrictEqual(problems({}, { loadBalancerSourceRanges: ["10.0.0.1/8", "203.0.113.0/24", "2001:db8::/32"] }).map((p) => p.split(":")[0]),
            ["loadBalancerSourceRanges[0]", "loadBalancerSourceRanges[2]"]);
    });

    it("the guide's EKS examples are read as it says: its ranges, and its JWT validation with two claims", () => {
        const page = fs.readFileSync(path.resolve(__dirname, "../../../docs/guides/endpoint-security.md"), "utf8");
        const from = page.indexOf("\n## EKS\n");
        const next = page.indexOf("\n## ", from + 1);
        const eks = page.slice(from, next < 0 ? undefined : next);
        const blocks = [...eks.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => (parse(m[1]) as { config: Record<string, unknown> }).config);
        assert.strictEqual(blocks.length, 2);
        const written = Object.assign({}, ...blocks) as Record<string, unknown>;
        const config = Object.fromEntries(Object.entries({ "tf-serving:modelPath": "models/half_plus_two", "tf-serving:cloud": "aws", "tf-serving:eks": EKS, ...written })
            .map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
        const service = readConfig(config, PROJECT, "/project").service;
        assert.deepStrictEqual(service.sourceRanges, ["203.0.113.0/24", "198.51.100.7/32"]);
        const auth = (service.gateway as unknown as Record<string, { claims: { name: string }[] }>).auth;
        assert.deepStrictEqual(auth.claims.map((c) => c.name), ["scope", "client_id"]);
    });
});
