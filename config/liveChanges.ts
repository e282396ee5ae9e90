/**
 * Changing a running stack: the settings a cloud stack records when it is deployed (its
 * `deployedSettings` output) and the transitions from them that are refused at preview, because the
 * cloud or the provider would fail halfway, delete the cluster first, or silently keep the old value.
 * Pure: the stack reads the record back (`stacks/stateRecords.ts`) and hands it here;
 * docs/concepts/changing-a-stack.md has the table of every key. Each cloud's record and rules are in
 * its folder (`components/clouds/<cloud>/liveChanges.ts`), reached through its `CloudRules`; what
 * they are made of, which knows no cloud, is in `config/liveChangeRules.ts`.
 */
import { cloudRules } from "../components/clouds/registry";
import type { CloudRecords } from "../components/clouds/registry";
import type { DeployedStateOf, LiveChanges } from "./liveChangeRules";

export { clusterRename, refuse } from "./liveChangeRules";
export type { DeployedStateOf, LiveChanges } from "./liveChangeRules";

/** The `deployedSettings` record; `schema` is `STATE_SCHEMA` (`stacks/stateRecords.ts`, which reads it back). */
export type DeployedSettings = { [C in keyof CloudRecords]: { schema: number; cloud: C } & CloudRecords[C] }[keyof CloudRecords];

/** What the program knows about the deployed stack at preview (`DeployedStateOf`). */
export type DeployedState = DeployedStateOf<DeployedSettings>;

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
