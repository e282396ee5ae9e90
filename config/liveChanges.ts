/**
 * Changing a running stack: the settings a cloud stack records when it is deployed (its
 * `deployedSettings` output) and the transitions from them that are refused at preview, because the
 * cloud or the provider would fail halfway, delete the cluster first, or silently keep the old value.
 * Pure: the stack reads the record back (`stacks/stateRecords.ts`) and hands it here;
 * docs/concepts/changing-a-stack.md has the table of every key. Each cloud's record and rules are in
 * its folder (`components/clouds/<cloud>/liveChanges.ts`), reached through its `CloudRules`.
 */
import { cloudRules } from "../components/clouds/registry";
import type { CloudRecords } from "../components/clouds/registry";
import type { ConfigIssue } from "./configReader";

/** The `deployedSettings` record; `schema` is `STATE_SCHEMA` (`stacks/stateRecords.ts`, which reads it back). */
export type DeployedSettings = { [C in keyof CloudRecords]: { schema: number; cloud: C } & CloudRecords[C] }[keyof CloudRecords];

/**
 * What the program knows about the deployed stack at preview:
 * - `new`: never deployed (no outputs): nothing to compare, any configuration passes;
 * - `unrecorded`: deployed by an earlier version, which recorded nothing: the settings cannot be
 *   compared this once (the update records them);
 * - `recorded`: the settings of the last update;
 * - `unknown`: offline (`tfs plan`), no engine to ask.
 */
export type DeployedState =
    | { kind: "new" }
    | { kind: "unrecorded" }
    | { kind: "recorded"; settings: DeployedSettings }
    | { kind: "unknown" };

export interface LiveChanges {
    /** Refused: each names the key, the deployed and the new value, and the way out. */
    issues: ConfigIssue[];
    /** Allowed, but worth saying before it happens (a replacement, a new address). */
    warnings: string[];
}

const shown = (v: unknown) => (v === undefined ? "unset" : JSON.stringify(v));

/** The transitions from `deployed` to `next` that must not be applied, and those to warn about. */
export function liveChanges(deployed: DeployedSettings, next: DeployedSettings): LiveChanges {
    const out: LiveChanges = { issues: [], warnings: [] };
    if (deployed.cloud !== next.cloud) {
        out.issues.push({
            key: "cloud", value: next.cloud,
            expected: `the stack is deployed on ${deployed.cloud}; switching clouds would replace every resource, and the old cluster's deletion is refused while its deletion protection is on. ` +
                `Deploy ${next.cloud} as a new stack (\`pulumi stack init\`), or \`pulumi destroy\` this one first`,
        });
        return out;
    }
    cloudRules(next.cloud).liveChanges(deployed as never, next as never, out);
    return out;
}

/** A refused change of `key`: what it would do, then the way out. */
export function refuse(out: LiveChanges, key: string, from: unknown, to: unknown, why: string, wayOut: string): void {
    out.issues.push({ key, value: to, expected: `changed from ${shown(from)} on the running stack: ${why}. ${wayOut}` });
}

/** A new cluster name (`<section>.clusterName`) replaces the cluster: created beside the old one, which is deleted last. */
export function clusterRename(out: LiveChanges, section: string, from: { clusterName: string; deletionProtection: boolean }, to: string): void {
    if (from.deletionProtection) {
        refuse(out, `${section}.clusterName`, from.clusterName, to,
            `a new name creates a new cluster and deletes "${from.clusterName}" last, and its deletion protection would fail the update after everything new was created`,
            `Set ${section}.deletionProtection: false and run \`pulumi up\` once, then rename (keep the old name to keep the cluster)`);
        return;
    }
    out.warnings.push(`${section}.clusterName: "${from.clusterName}" -> "${to}" creates a new cluster, moves the models onto it and then deletes the old one: ` +
        "the load balancer's address changes (clients must follow `restUrl`), and the old cluster's workloads go with it");
}

