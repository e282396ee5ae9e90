/**
 * What the cloud stacks know about themselves at preview: the settings the last update recorded in
 * the `deployedSettings` output, read back from the stack's latest checkpoint (`PreviousOutputs`: the
 * engine reads the backend; the config file alone cannot say what runs). Then the check of the change
 * (`config/liveChanges.ts`) before any other resource is registered.
 */
import * as pulumi from "@pulumi/pulumi";
import { ConfigError } from "../config/configReader";
import { DEPLOYED_SETTINGS_SCHEMA, DeployedSettings, DeployedState, liveChanges } from "../config/liveChanges";
import { PreviousOutputs } from "./previousOutputs";

/** The stack output holding the record. */
export const DEPLOYED_SETTINGS_OUTPUT = "deployedSettings";

/**
 * Reads this stack's last outputs. Offline (`tfs plan`: no engine, no backend) the state is `unknown`.
 * A stack with outputs but no record was deployed by an earlier version.
 */
export async function readDeployedState(previous: PreviousOutputs): Promise<DeployedState> {
    if (previous.offline) {
        return { kind: "unknown" };
    }
    const record = (await previous.value(DEPLOYED_SETTINGS_OUTPUT)) as DeployedSettings | undefined;
    if (record !== undefined && record.schema === DEPLOYED_SETTINGS_SCHEMA) {
        return { kind: "recorded", settings: record };
    }
    // Every stack exports clusterName; without it the stack has never been deployed.
    const clusterName = await previous.value("clusterName");
    return clusterName === undefined ? { kind: "new" } : { kind: "unrecorded" };
}

/**
 * Refuses the change from the recorded settings to `next` (a `ConfigError`, which stops the preview
 * with every refused key), and logs the allowed changes worth a warning. Nothing to compare unless
 * the state is `recorded`; an `unrecorded` stack is told its next update records the settings.
 */
export function checkLiveChanges(state: DeployedState, next: DeployedSettings): void {
    if (state.kind === "unrecorded") {
        pulumi.log.warn("this stack was deployed by an earlier version, which did not record the settings a running stack must keep; " +
            "this update records them, and later changes are checked against them (docs/concepts/changing-a-stack.md)");
    }
    if (state.kind !== "recorded") {
        return;
    }
    const { issues, warnings } = liveChanges(state.settings, next);
    warnings.forEach((w) => pulumi.log.warn(w));
    if (issues.length > 0) {
        throw new ConfigError(issues, pulumi.getProject());
    }
}
