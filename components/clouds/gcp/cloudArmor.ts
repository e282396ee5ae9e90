/**
 * `loadBalancerSourceRanges` on the GKE Gateway: a Cloud Armor backend security policy that allows
 * the ranges and refuses every other address with 403 (which a gRPC client reads as
 * `PERMISSION_DENIED`). `GCPBackendPolicy` attaches it to the model's backend service and the canary's
 * (gcp/gateway.ts); `stacks/gcp.ts` creates it. Pure: the rules and the limits, tested directly.
 */
import * as crypto from "crypto";

/**
 * The most ranges one basic rule matches: the Compute API's `SecurityPolicyRuleMatcherConfig.srcIpRanges`
 * ("Maximum number of src_ip_ranges allowed is 10") and the limits of cloud.google.com/armor/quotas
 * ("IP addresses or IP address ranges per rule: 10").
 */
export const RANGES_PER_RULE = 10;

/**
 * A project's default quota of Cloud Armor rules, across all its security policies (quota
 * `SECURITY_POLICY_RULES`, cloud.google.com/armor/quotas: 200 by default; the default rule counts).
 */
export const DEFAULT_RULES_QUOTA = 200;

/** The most ranges one policy holds within the default quota: every rule but the default one allows ten. */
export const MAX_SOURCE_RANGES = (DEFAULT_RULES_QUOTA - 1) * RANGES_PER_RULE;

/**
 * The default rule's priority, the lowest there is: Cloud Armor evaluates rules from priority 0 and
 * acts on the first that matches (cloud.google.com/armor/docs/create-security-policy-rules; a rule
 * takes 0 to 2147483646, the default rule 2147483647 and matches `*`).
 */
export const DEFAULT_RULE_PRIORITY = 2147483647;

/** The allow rules' first priority: room below it for rules someone adds by hand in front of them. */
const FIRST_ALLOW_PRIORITY = 1000;

/** One rule of a Cloud Armor policy, as `gcp.compute.SecurityPolicy`'s `rules` take it (basic match on source ranges). */
export interface SourceRangeRule {
    action: "allow" | "deny(403)";
    priority: number;
    match: { versionedExpr: "SRC_IPS_V1"; config: { srcIpRanges: string[] } };
    /** At most 64 characters (cloud.google.com/armor/docs/best-practices: "limited to 64 characters"). */
    description: string;
}

/**
 * The rules for `ranges`: one allow rule per ten ranges (duplicates once), in the order written,
 * then the default rule, deny(403) for every other address.
 */
export function sourceRangeRules(ranges: readonly string[]): SourceRangeRule[] {
    const unique = [...new Set(ranges)];
    const rules: SourceRangeRule[] = [];
    for (let i = 0; i < unique.length; i += RANGES_PER_RULE) {
        rules.push({
            action: "allow",
            priority: FIRST_ALLOW_PRIORITY + rules.length,
            match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: unique.slice(i, i + RANGES_PER_RULE) } },
            description: `loadBalancerSourceRanges ${i + 1} to ${Math.min(i + RANGES_PER_RULE, unique.length)}`,
        });
    }
    rules.push({
        action: "deny(403)",
        priority: DEFAULT_RULE_PRIORITY,
        match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } },
        description: "every other address",
    });
    return rules;
}

/** Why one policy cannot hold `ranges`, or undefined. */
export function sourceRangesProblem(ranges: readonly string[]): string | undefined {
    const count = new Set(ranges).size;
    if (count <= MAX_SOURCE_RANGES) {
        return undefined;
    }
    return `lists ${count} ranges; on gcp with \`endpoint: gateway\` they become one Cloud Armor policy, ${RANGES_PER_RULE} ranges a rule, ` +
        `and a project's default quota is ${DEFAULT_RULES_QUOTA} rules across all its policies (cloud.google.com/armor/quotas), one of them the default deny: ` +
        `list at most ${MAX_SOURCE_RANGES}, merged into wider CIDRs (docs/guides/endpoint-security.md#gke)`;
}

/**
 * The policy's name in the project, the same on every run of the stack: `tfs-` and the namespace,
 * then a hash of the Pulumi project, stack and namespace (policy names are unique per project, which
 * several stacks may share). RFC 1035, at most 63 characters, as Compute Engine names are.
 */
export function securityPolicyName(pulumiProject: string, stack: string, namespace: string): string {
    const hash = crypto.createHash("sha256").update(`${pulumiProject}/${stack}/${namespace}`).digest("hex").slice(0, 8);
    const slug = namespace.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 63 - "tfs-".length - 1 - hash.length).replace(/-+$/, "");
    return slug === "" ? `tfs-${hash}` : `tfs-${slug}-${hash}`;
}
