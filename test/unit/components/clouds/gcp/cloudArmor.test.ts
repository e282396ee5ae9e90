import * as assert from "assert";
import { GCP_RULES } from "../../../../../components/clouds/gcp/providerRules";
import {
    DEFAULT_RULE_PRIORITY, MAX_SOURCE_RANGES, RANGES_PER_RULE, securityPolicyName, sourceRangeRules, sourceRangesProblem,
} from "../../../../../components/clouds/gcp/cloudArmor";

/** `count` distinct /32 ranges in 198.18.0.0/15 (benchmarking space, RFC 2544). */
const ranges = (count: number) => Array.from({ length: count }, (_, i) => `198.${18 + Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}/32`);

describe("Cloud Armor source-range policy (the GKE Gateway's loadBalancerSourceRanges)", () => {
    it("a basic rule matches at most 10 ranges: 1, 10, 11 and 25 ranges take 1, 1, 2 and 3 allow rules, each of 10 but the last", () => {
        // Compute API SecurityPolicyRuleMatcherConfig.srcIpRanges: "Maximum number of src_ip_ranges allowed is 10";
        // cloud.google.com/armor/quotas, limits: "IP addresses or IP address ranges per rule: 10"; hashicorp/terraform-provider-google
        // google/services/compute/resource_compute_security_policy.go, rule.match.config.src_ip_ranges: MinItems 1, MaxItems 10.
        assert.strictEqual(RANGES_PER_RULE, 10);
        const allows = (n: number) => sourceRangeRules(ranges(n)).filter((r) => r.action === "allow").map((r) => r.match.config.srcIpRanges.length);
        assert.deepStrictEqual(allows(1), [1]);
        assert.deepStrictEqual(allows(10), [10]);
        assert.deepStrictEqual(allows(11), [10, 1]);
        assert.deepStrictEqual(allows(25), [10, 10, 5]);
    });

    it("every range allowed once, in the order written; the last rule is the default: deny(403) for every address, at the lowest priority", () => {
        const written = ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7/32", "203.0.113.0/24"];
        const rules = sourceRangeRules(written);
        assert.deepStrictEqual(rules.flatMap((r) => (r.action === "allow" ? r.match.config.srcIpRanges : [])), ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7/32"]);
        // cloud.google.com/armor/docs/create-security-policy-rules: rules are evaluated from priority 0, the first match acts;
        // a rule's priority is 0 to 2147483646, the default rule's 2147483647 with the match "*".
        const last = rules[rules.length - 1];
        assert.deepStrictEqual(last, { action: "deny(403)", priority: DEFAULT_RULE_PRIORITY, match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } }, description: "every other address" });
        assert.strictEqual(DEFAULT_RULE_PRIORITY, 2147483647);
    });

    it("priorities are distinct, below the default rule's, and each description fits Cloud Armor's 64 characters", () => {
        const rules = sourceRangeRules(ranges(MAX_SOURCE_RANGES));
        const priorities = rules.map((r) => r.priority);
        assert.strictEqual(new Set(priorities).size, rules.length);
        assert.ok(rules.slice(0, -1).every((r) => r.priority >= 0 && r.priority <= 2147483646 && r.action === "allow"));
        // cloud.google.com/armor/docs/best-practices: the description field "is limited to 64 characters";
        // resource_compute_security_policy.go rule.description: "Max size is 64".
        assert.ok(rules.every((r) => r.match.config.srcIpRanges.length >= 1 && r.match.config.srcIpRanges.length <= 10));
        assert.deepStrictEqual(rules.filter((r) => r.description.length > 64), []);
    });

    it("one policy takes what the project's default quota holds: 199 allow rules of 10 beside the default rule; more is refused with the fix", () => {
        // cloud.google.com/armor/quotas: SECURITY_POLICY_RULES, 200 rules per project by default across all its policies.
        assert.strictEqual(MAX_SOURCE_RANGES, 1990);
        assert.strictEqual(sourceRangeRules(ranges(MAX_SOURCE_RANGES)).length, 200);
        assert.strictEqual(sourceRangesProblem(ranges(MAX_SOURCE_RANGES)), undefined);
        assert.strictEqual(sourceRangesProblem([...ranges(MAX_SOURCE_RANGES), "203.0.113.0/24"].concat("203.0.113.0/24")), sourceRangesProblem(ranges(MAX_SOURCE_RANGES + 1)),
            "duplicates count once");
        assert.match(sourceRangesProblem(ranges(MAX_SOURCE_RANGES + 1)) ?? "", /^lists 1991 ranges; .*10 ranges a rule.*200 rules.*list at most 1990, merged into wider CIDRs/);
    });

    it("the policy's name: the same on every run, one per stack and namespace, a valid Compute Engine name (RFC 1035, at most 63)", () => {
        const name = securityPolicyName("tf-serving", "gcp-example", "tf-serving");
        assert.strictEqual(name, securityPolicyName("tf-serving", "gcp-example", "tf-serving"));
        assert.match(name, /^tfs-tf-serving-[0-9a-f]{8}$/);
        assert.notStrictEqual(name, securityPolicyName("tf-serving", "gcp-prod", "tf-serving"));
        assert.notStrictEqual(name, securityPolicyName("tf-serving", "gcp-example", "models"));
        // resource_compute_security_policy.go name: verify.ValidateGCEName (the provider's rule, components/clouds/gcp/providerRules.ts).
        for (const namespace of ["tf-serving", "a".repeat(63), "x-", "0models", "-"]) {
            const n = securityPolicyName("p", "s", namespace);
            assert.strictEqual(GCP_RULES.gceName.check(n), undefined, n);
        }
    });
});
