/**
 * The configuration keys that hold a secret, as the engine tells the program: the language host sets
 * `PULUMI_CONFIG_SECRET_KEYS` to their full names as a JSON list (pulumi/pulumi `sdk/nodejs/runtime/config.ts`,
 * `configSecretKeysEnvKey`, which the SDK reads only internally).
 */
export function engineSecretKeys(env: NodeJS.ProcessEnv): string[] {
    const text = env.PULUMI_CONFIG_SECRET_KEYS;
    if (text === undefined || text === "") {
        return [];
    }
    try {
        const keys: unknown = JSON.parse(text);
        return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === "string") : [];
    } catch {
        return [];
    }
}
