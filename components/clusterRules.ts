/**
 * Rules the GKE and EKS cluster resolvers share (`clouds/gcp/clusterArgs.ts`, `clouds/aws/clusterArgs.ts`), pure:
 * each returns `ArgsIssue`s keyed by the field it names, with the same words the `gke` and `eks`
 * config sections print, since those sections record the resolvers' issues under their keys.
 */
import { ipv4BlockProblem } from "../contract/cidr";
import type { ArgsIssue } from "./argsIssues";

/** TF Serving images are amd64 only; the message for an Arm machine or instance type. */
export const NO_ARM64 = "is an Arm (arm64) type, and TensorFlow Serving publishes amd64 images only; choose an x86 type";

/** Most nodes a pool or group may be given here (GKE's and EKS's per-pool limits are both 1000 or more). */
export const MAX_POOL_NODES = 1000;

/** Names another field in a message: the field itself for a library user, its config key for the stack. */
export type FieldKey = (field: string) => string;

export const sameField: FieldKey = (field) => field;

/** An issue when `value` is not a whole number in [min, max]. */
export function wholeNumberIssue(field: string, value: unknown, min: number, max: number): ArgsIssue | undefined {
    return typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max
        ? undefined
        : { field, value, message: `must be a whole number from ${min} to ${max}` };
}

/** An issue when `value` is not one of `allowed`. */
export function oneOfIssue(field: string, value: unknown, allowed: readonly string[]): ArgsIssue | undefined {
    return typeof value === "string" && allowed.includes(value)
        ? undefined
        : { field, value, message: `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}` };
}

/** An issue when `value` is not an aligned IPv4 block with a prefix in [minPrefix, maxPrefix]. */
export function ipv4BlockIssue(field: string, value: string, minPrefix: number, maxPrefix: number): ArgsIssue | undefined {
    const problem = ipv4BlockProblem(value, minPrefix, maxPrefix);
    return problem === undefined ? undefined : { field, value, message: problem };
}

/** One issue per entry of `cidrs` that is not an IPv4 block (allowed source ranges). */
export function ipv4ListIssues(field: string, cidrs: readonly string[] | undefined): ArgsIssue[] {
    return (cidrs ?? []).flatMap((cidr, i) => ipv4BlockIssue(`${field}[${i}]`, cidr, 0, 32) ?? []);
}

/** Zones of `region` (each matching `zonePattern`), without repeats. Entries that are not strings are left to the caller. */
export function zoneIssues(field: string, zones: readonly unknown[] | undefined, region: string, zonePattern: RegExp, example: string, key: FieldKey): ArgsIssue[] {
    if (zones === undefined) {
        return [];
    }
    const issues: ArgsIssue[] = [];
    zones.forEach((zone, i) => {
        if (typeof zone === "string" && !zonePattern.test(zone)) {
            issues.push({ field: `${field}[${i}]`, value: zone, message: `must be a zone of region ${region || `(${key("region")})`}, e.g. "${example}"` });
        }
    });
    if (new Set(zones).size !== zones.length) {
        issues.push({ field, value: zones, message: "lists a zone twice" });
    }
    return issues;
}

/**
 * A pool's or group's `minNodes` and `maxNodes` (under `at`, e.g. `cpuPool`): whole numbers, at
 * least `floor` (1 for the pool the add-ons run on) and one node possible, `maxNodes >= minNodes`.
 */
export function nodeBoundsIssues(at: string, bounds: { minNodes: number; maxNodes: number }, floor: number, key: FieldKey): ArgsIssue[] {
    const min = wholeNumberIssue(`${at}.minNodes`, bounds.minNodes, floor, MAX_POOL_NODES);
    const max = wholeNumberIssue(`${at}.maxNodes`, bounds.maxNodes, 1, MAX_POOL_NODES);
    const issues = [min, max].filter((i): i is ArgsIssue => i !== undefined);
    if (issues.length === 0 && bounds.maxNodes < bounds.minNodes) {
        issues.push({ field: `${at}.maxNodes`, value: bounds.maxNodes, message: `must be >= ${key(`${at}.minNodes`)} (${bounds.minNodes})` });
    }
    return issues;
}

/** The first issue of each field: a value refused for its form is not refused again for what it would mean. */
export function firstPerField(issues: readonly ArgsIssue[]): ArgsIssue[] {
    const seen = new Set<string>();
    return issues.filter((i) => !seen.has(i.field) && seen.add(i.field));
}
