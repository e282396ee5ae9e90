/**
 * The stack file's own keys. Pulumi reads `Pulumi.<stack>.yaml` into its `ProjectStack` (pulumi/pulumi
 * sdk/go/common/workspace/project.go: `secretsprovider`, `encryptedkey`, `encryptionsalt`, `config`,
 * `environment`) and drops every other top-level key without a word: a `tf-serving:replicas: 3`
 * written beside `config:` instead of under it never reaches the program. The program cannot see
 * such a key in its configuration, so it reads the stack file itself to name it.
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { ConfigIssue } from "./configReader";

/** The top-level keys of a stack file that Pulumi reads. */
export const STACK_FILE_KEYS = ["secretsprovider", "encryptedkey", "encryptionsalt", "config", "environment"] as const;

/** An issue for each top-level key of the parsed stack file `parsed` that Pulumi ignores. */
export function ignoredStackFileKeyIssues(parsed: unknown, fileName: string, project: string): ConfigIssue[] {
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        return [];
    }
    return Object.keys(parsed).filter((key) => !(STACK_FILE_KEYS as readonly string[]).includes(key)).map((key) => {
        const isConfigKey = key.includes(":") || key === project;
        return {
            key, qualifiedKey: `${fileName}: ${key}`, value: undefined,
            expected: isConfigKey
                ? `is written at the top level of ${fileName}, outside \`config:\`, where Pulumi ignores it (it reads only ${STACK_FILE_KEYS.join(", ")}): ` +
                    "indent it under `config:`, or set it with `pulumi config set` (see docs/reference/configuration.md#the-stack-file)"
                : `is not a key of a stack file, so Pulumi ignores it (it reads only ${STACK_FILE_KEYS.join(", ")}): ` +
                    "configuration goes under `config:` (see docs/reference/configuration.md#the-stack-file)",
        };
    });
}

/**
 * The same, read from `Pulumi.<stack>.yaml` in `projectDir`; none when the file is absent (config kept
 * elsewhere) or does not parse (Pulumi itself reports that before the program runs).
 */
export function ignoredStackFileKeys(projectDir: string, stack: string, project: string): ConfigIssue[] {
    const fileName = `Pulumi.${stack}.yaml`;
    let text: string;
    try {
        text = fs.readFileSync(path.join(projectDir, fileName), "utf8");
    } catch {
        return [];
    }
    const doc = YAML.parseDocument(text.replace(/^\uFEFF/, ""), { merge: true });
    return doc.errors.length > 0 ? [] : ignoredStackFileKeyIssues(doc.toJS({ maxAliasCount: 100 }), fileName, project);
}
