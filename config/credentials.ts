/**
 * Is there a credential for the target at all? Checked before anything is registered, so a
 * missing kubeconfig or cloud login stops the preview with the fix, instead of a provider error
 * halfway through an update.
 *
 * Only the presence of a source is checked (a file, an environment variable), never its validity:
 * that needs the network, and the providers say it well enough. On a VM that takes its cloud
 * credentials from the instance metadata (no file, no variable), set `TFS_INSTANCE_CREDENTIALS=1`.
 */
import * as os from "os";
import { cloudRules } from "../components/clouds/registry";
import { ServingConfig } from "./config";

type Env = Record<string, string | undefined>;

/** Problems with where credentials come from; empty when every source the stack needs is there (each cloud's `credentialProblems`). */
export function credentialProblems(config: ServingConfig, env: Env = process.env, home: string = os.homedir()): string[] {
    return cloudRules(config.cloud).credentialProblems(config, env, home);
}
