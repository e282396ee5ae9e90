/**
 * Typed, validating access to one level of Pulumi configuration.
 *
 * Pulumi hands the program its configuration as strings (`pulumi.runtime.allConfig()`: structured
 * values arrive as JSON text). A `ConfigReader` turns those into typed values, and instead of
 * throwing at the first bad value it records a `ConfigIssue` naming the key, the value and what
 * would be valid, so the user sees every problem in one preview. `stacks/config.ts` throws them all
 * together as one `ConfigError` before any resource is registered.
 */

export interface ConfigIssue {
    /** The full key as the user types it after `pulumi config set`, e.g. `replicas` or `models[0].name`. */
    key: string;
    /** The offending value as the user wrote it (`undefined` for a missing required key). */
    value: unknown;
    /** What is valid, and how to fix it. */
    expected: string;
    /** The key exactly as written when it is not in the project's namespace (`tf_serving:replicas`, a bare `replicas`). */
    qualifiedKey?: string;
}

/**
 * All configuration problems of a stack, raised together before anything is registered, each once:
 * every model falls back to a top-level key it does not set (`cpu`), so reading 40 models reads a bad
 * top-level value 40 times, and each reading records the same issue.
 */
export class ConfigError extends Error {
    readonly issues: ConfigIssue[];

    constructor(issues: ConfigIssue[], readonly project: string) {
        const once = [...new Map(issues.map((i) => [JSON.stringify([i.qualifiedKey, i.key, i.value, i.expected]), i])).values()];
        super(ConfigError.describe(once, project));
        this.issues = once;
        this.name = "ConfigError";
    }

    private static describe(issues: ConfigIssue[], project: string): string {
        const lines = issues.map((i) => {
            if (i.qualifiedKey !== undefined) {
                // Its value is not shown: a key in the wrong place may be a secret that nothing treats as one.
                return `  - ${i.qualifiedKey}: ${i.expected}`;
            }
            const shown = i.value === undefined ? "is not set" : `= ${JSON.stringify(i.value)}`;
            return `  - ${project}:${i.key} ${shown}: ${i.expected}`;
        });
        const noun = issues.length === 1 ? "problem" : "problems";
        return `invalid configuration (${issues.length} ${noun}):\n${lines.join("\n")}`;
    }
}

import { parseQuantity } from "../contract/quantity";
import { editDistance } from "../contract/spelling";

type Raw = Record<string, unknown>;

/** Lowercase letters and digits only: `tf_serving`, `tfserving` and `TF-Serving` all read `tfserving`. */
const squashed = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * Keys of `all` written for this project but outside its namespace, which `fromPulumi` (like
 * `pulumi.Config`) never reads: a bare key (no namespace at all), or a namespace that is the project's
 * name misspelt (`tf_serving:replicas`, `tfserving:replicas`). Other namespaces belong to other
 * packages (`aws:region`, `gcp:project`, `kubernetes:context`, `pulumi:template`) and pass. Pulumi's
 * config keys are `NAMESPACE:NAME` (`ParseKey` in pulumi/pulumi sdk/go/common/resource/config/key.go);
 * `pulumi config set KEY` run in the project writes a bare KEY as `PROJECT:KEY`.
 */
export function misplacedKeyIssues(all: Record<string, string>, project: string, known: readonly string[]): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    for (const written of Object.keys(all)) {
        const colon = written.indexOf(":");
        const namespace = colon < 0 ? undefined : written.slice(0, colon);
        const name = colon < 0 ? written : written.slice(colon + 1);
        if (namespace === project) {
            continue;
        }
        if (namespace !== undefined && squashed(namespace) !== squashed(project) && editDistance(namespace, project) > 2) {
            continue;
        }
        const topKey = name.split(/[.[]/)[0];
        const meant = known.includes(topKey) ? `did you mean '${project}:${name}'? ` : `did you mean '${project}:${name}' (not a key of this project either: known keys are ${known.join(", ")})? `;
        const why = namespace === undefined
            ? "has no namespace: Pulumi's config keys are NAMESPACE:NAME, and `pulumi config set` run in this project writes this project's keys as "
            : `is in namespace "${namespace}", which is not this project's ("${project}"), so nothing reads it: this project's keys are `;
        issues.push({ key: name, qualifiedKey: written, value: undefined, expected: `${why}${project}:KEY. ${meant}`.trimEnd() });
    }
    return issues;
}

export class ConfigReader {
    /**
     * @param raw this level's values (strings from Pulumi, or already-parsed JSON for nested objects)
     * @param issues shared sink for problems, so nested readers report into the same list
     * @param prefix key prefix for messages (`models[0].`), empty at the top level
     */
    constructor(
        private readonly raw: Raw,
        readonly issues: ConfigIssue[] = [],
        private readonly prefix = "",
    ) {}

    /** Builds a reader from `pulumi.runtime.allConfig()` output, keeping only `project:` keys. */
    static fromPulumi(all: Record<string, string>, project: string): ConfigReader {
        const raw: Raw = {};
        for (const [k, v] of Object.entries(all)) {
            if (k.startsWith(`${project}:`)) {
                raw[k.slice(project.length + 1)] = v;
            }
        }
        return new ConfigReader(raw);
    }

    /** The full key name as shown in messages. */
    key(name: string): string {
        return `${this.prefix}${name}`;
    }

    /** True when the key holds a value; an empty string counts as unset (Pulumi.yaml's way of "no default"). */
    has(name: string): boolean {
        const v = this.raw[name];
        return v !== undefined && v !== null && v !== "";
    }

    /** True when the key is present as an empty string, which `has` counts as unset. */
    isEmptyString(name: string): boolean {
        return this.raw[name] === "";
    }

    /** Records a problem with `name` (for cross-field checks done by callers). */
    fail(name: string, expected: string, value: unknown = this.raw[name]): void {
        this.issues.push({ key: this.key(name), value, expected });
    }

    /** Keys present at this level that `known` does not list: usually a typo. */
    rejectUnknown(known: readonly string[]): void {
        for (const k of Object.keys(this.raw)) {
            if (!known.includes(k)) {
                const near = known.filter((n) => n.toLowerCase() === k.toLowerCase() || editDistance(n, k) <= 2);
                const hint = near.length ? `did you mean ${near.map((n) => `'${this.key(n)}'`).join(" or ")}?` : "";
                this.fail(k, `unknown key. ${hint} Known keys: ${known.join(", ")}`.replace(".  ", ". "));
            }
        }
    }

    string(name: string, fallback: string): string;
    string(name: string): string | undefined;
    string(name: string, fallback?: string): string | undefined {
        const v = this.raw[name];
        if (!this.has(name)) {
            return fallback;
        }
        if (typeof v !== "string" || v.trim() === "") {
            this.fail(name, "must be a non-empty string");
            return fallback;
        }
        return v.trim();
    }

    required(name: string, what: string): string {
        const v = this.string(name);
        if (v === undefined && !this.issues.some((i) => i.key === this.key(name))) {
            this.fail(name, `required: ${what}`, undefined);
        }
        return v ?? "";
    }

    oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
        const v = this.string(name);
        if (v === undefined) {
            return fallback;
        }
        if (!(allowed as readonly string[]).includes(v)) {
            this.fail(name, `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
            return fallback;
        }
        return v as T;
    }

    bool(name: string, fallback: boolean): boolean {
        const v = this.raw[name];
        if (!this.has(name)) {
            return fallback;
        }
        if (v === true || v === "true") {
            return true;
        }
        if (v === false || v === "false") {
            return false;
        }
        this.fail(name, "must be true or false");
        return fallback;
    }

    /**
     * A whole number within `bounds`. With `checkRange: false` the bounds only word the message of a
     * value that is no whole number: another check owns the range (a component's resolver, whose issues
     * the caller records under this key).
     */
    int(name: string, fallback: number, bounds?: { min?: number; max?: number }, checkRange?: boolean): number;
    int(name: string, fallback: undefined, bounds?: { min?: number; max?: number }, checkRange?: boolean): number | undefined;
    int(name: string, fallback: number | undefined, bounds?: { min?: number; max?: number }, checkRange = true): number | undefined {
        const v = this.raw[name];
        if (!this.has(name)) {
            return fallback;
        }
        const n = typeof v === "number" ? v : typeof v === "string" && /^-?[0-9]+$/.test(v.trim()) ? Number(v) : NaN;
        const { min, max } = bounds ?? {};
        const range = min !== undefined && max !== undefined ? ` from ${min} to ${max}`
            : min !== undefined ? ` >= ${min}` : max !== undefined ? ` <= ${max}` : "";
        if (typeof v === "string" && /^[-+]?0[0-9]+$/.test(v.trim())) {
            // Pulumi hands a top-level value over as written, but reads the same text inside a mapping as octal (go-yaml, strconv.ParseInt base 0).
            this.fail(name, `has a leading zero, which Pulumi's YAML reader takes as octal inside a mapping (010 is 8 there): write the number without it${range ? `, a whole number${range}` : ""}`);
            return fallback;
        }
        if (!Number.isSafeInteger(n) || (checkRange && ((min !== undefined && n < min) || (max !== undefined && n > max)))) {
            this.fail(name, `must be a whole number${range}`);
            return fallback;
        }
        return n;
    }

    /** A number (a fraction allowed) within `bounds`, inclusive; `checkRange` as for `int`. */
    number(name: string, fallback: number, bounds: { min: number; max: number }, checkRange = true): number {
        const v = this.raw[name];
        if (!this.has(name)) {
            return fallback;
        }
        const n = typeof v === "number" ? v : typeof v === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(v.trim()) ? Number(v) : NaN;
        if (!Number.isFinite(n) || (checkRange && (n < bounds.min || n > bounds.max))) {
            this.fail(name, `must be a number from ${bounds.min} to ${bounds.max}`);
            return fallback;
        }
        return n;
    }

    /** A DNS-1123 label: what Kubernetes accepts as a Service or Deployment name. */
    dnsLabel(name: string, fallback: string): string;
    dnsLabel(name: string): string | undefined;
    dnsLabel(name: string, fallback?: string): string | undefined {
        const v = this.string(name);
        if (v === undefined) {
            return fallback;
        }
        if (!/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(v)) {
            this.fail(name, "must be a DNS label: lowercase letters, digits and '-', starting with a letter, at most 63 characters (e.g. \"half-plus-two\")");
            return fallback;
        }
        return v;
    }

    /** A Kubernetes quantity (memory "2Gi", CPU "1500m"), kept as text; undefined if unset or invalid. */
    quantity(name: string, kind: "memory" | "cpu"): string | undefined {
        const v = this.raw[name];
        if (!this.has(name)) {
            return undefined;
        }
        const text = typeof v === "number" ? String(v) : v;
        const parsed = typeof text === "string" ? parseQuantity(text) : undefined;
        if (parsed === undefined || parsed <= 0) {
            const example = kind === "memory" ? "\"512Mi\", \"2Gi\"" : "\"500m\", \"2\"";
            this.fail(name, `must be a positive Kubernetes ${kind} quantity such as ${example}`);
            return undefined;
        }
        return String(text).trim();
    }

    /** A list, given either as a YAML/JSON array in the stack file or as JSON text. */
    list(name: string): unknown[] | undefined {
        const v = this.json(name);
        if (v === undefined) {
            return undefined;
        }
        if (!Array.isArray(v)) {
            this.fail(name, "must be a list (in the stack file, a YAML list; on the command line, `pulumi config set --path 'KEY[0]' VALUE`)");
            return undefined;
        }
        return v;
    }

    /** How many entries the list holds as written, refused ones included; undefined if unset or not a list. Records nothing. */
    listLength(name: string): number | undefined {
        const v = this.json(name);
        return Array.isArray(v) ? v.length : undefined;
    }

    stringList(name: string, check?: (item: string) => string | undefined): string[] | undefined {
        const items = this.list(name);
        if (items === undefined) {
            return undefined;
        }
        const out: string[] = [];
        items.forEach((item, i) => {
            const problem = typeof item !== "string" || item.trim() === "" ? "must be a non-empty string" : check?.(item.trim());
            if (problem) {
                this.issues.push({ key: this.key(`${name}[${i}]`), value: item, expected: problem });
            } else {
                out.push((item as string).trim());
            }
        });
        return out;
    }

    /** A map of string keys to string values (labels, annotations, node selectors). */
    stringMap(name: string): Record<string, string> | undefined {
        const v = this.object(name);
        if (v === undefined) {
            return undefined;
        }
        const out: Record<string, string> = {};
        for (const [k, item] of Object.entries(v)) {
            if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") {
                this.issues.push({ key: this.key(`${name}.${k}`), value: item, expected: "must be a string" });
            } else {
                out[k] = String(item);
            }
        }
        return out;
    }

    object(name: string): Raw | undefined {
        const v = this.json(name);
        if (v === undefined) {
            return undefined;
        }
        if (typeof v !== "object" || v === null || Array.isArray(v)) {
            this.fail(name, "must be an object (a YAML mapping in the stack file)");
            return undefined;
        }
        return v as Raw;
    }

    /** A reader for a nested object, reporting into the same issue list with a dotted prefix. */
    nested(name: string): ConfigReader | undefined {
        const v = this.object(name);
        return v === undefined ? undefined : new ConfigReader(v, this.issues, `${this.key(name)}.`);
    }

    /** Readers for each object of a list (`models[0].`, `models[1].`...). */
    nestedList(name: string): ConfigReader[] | undefined {
        const items = this.list(name);
        if (items === undefined) {
            return undefined;
        }
        const readers: ConfigReader[] = [];
        items.forEach((item, i) => {
            if (typeof item !== "object" || item === null || Array.isArray(item)) {
                this.issues.push({ key: this.key(`${name}[${i}]`), value: item, expected: "must be an object (a YAML mapping)" });
            } else {
                readers.push(new ConfigReader(item as Raw, this.issues, `${this.key(name)}[${i}].`));
            }
        });
        return readers;
    }

    private json(name: string): unknown {
        const v = this.raw[name];
        if (!this.has(name)) {
            return undefined;
        }
        if (typeof v !== "string") {
            return v ?? undefined;
        }
        try {
            return JSON.parse(v);
        } catch {
            return v;
        }
    }
}
