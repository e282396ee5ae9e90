/**
 * What a cloud's rules for changing a running stack are made of (`components/clouds/<cloud>/liveChanges.ts`):
 * the refused changes and warnings they record, the shared rules (`refuse`, `clusterRename`), and what
 * the program knows of the deployed stack. Knows no cloud: `config/liveChanges.ts` holds the union of
 * the clouds' records and hands each change to its cloud's rules through the registry.
 */
import type { ConfigIssue } from "./configReader";

/**
 * What the program knows about the deployed stack at preview:
 * - `new`: never deployed (no outputs): nothing to compare, any configuration passes;
 * - `unrecorded`: deployed by an earlier version, which recorded nothing: the settings cannot be
 *   compared this once (the update records them);
 * - `recorded`: the settings of the last update (`Settings`: the `deployedSettings` record,
 *   `DeployedSettings` in `config/liveChanges.ts`, or what one cloud's rules read of it);
 * - `unknown`: offline (`tfs plan`), no engine to ask.
 */
export type DeployedStateOf<Settings> =
    | { kind: "new" }
    | { kind: "unrecorded" }
    | { kind: "recorded"; settings: Settings }
    | { kind: "unknown" };

export interface LiveChanges {
    /** Refused: each names the key, the deployed and the new value, and the way out. */
    issues: ConfigIssue[];
    /** Allowed, but worth saying before it happens (a replacement, a new address). */
    warnings: string[];
}

const shown = (v: unknown) => (v === undefined ? "unset" : JSON.stringify(v));

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

