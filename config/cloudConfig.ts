/**
 * Reading helpers shared by the `gke` and `eks` configuration sections: zones, CIDRs, node bounds.
 * Each reports through the `ConfigReader`, so messages name the full key (`gke.cpuPool.maxNodes`).
 */
import { ipv4BlockProblem } from "../contract/cidr";
import { ConfigReader } from "./configReader";

/** TF Serving images are amd64 only; the message for an Arm machine or instance type. */
export const NO_ARM64 = "is an Arm (arm64) type, and TensorFlow Serving publishes amd64 images only; choose an x86 type";

/** The nested section `name` (a YAML mapping), or an empty one so missing required keys still report under its prefix. */
export function section(r: ConfigReader, name: string): ConfigReader {
    return r.nested(name) ?? new ConfigReader({}, r.issues, `${r.key(name)}.`);
}

export function escapeRegExp(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A list of zones of `region`, each matching `zonePattern`, without repeats. */
export function readZones(r: ConfigReader, name: string, region: string, zonePattern: RegExp, example: string): string[] | undefined {
    const zones = r.stringList(name, (zone) => (zonePattern.test(zone) ? undefined : `must be a zone of region ${region || `(${r.key("region")})`}, e.g. "${example}"`));
    if (zones !== undefined && new Set(zones).size !== zones.length) {
        r.fail(name, "lists a zone twice");
    }
    return zones;
}

/** An IPv4 CIDR with a prefix in [minPrefix, maxPrefix]. */
export function readIpv4Block(r: ConfigReader, name: string, fallback: string, minPrefix: number, maxPrefix: number): string {
    const value = r.string(name, fallback);
    const problem = ipv4BlockProblem(value, minPrefix, maxPrefix);
    if (problem !== undefined) {
        r.fail(name, problem);
    }
    return value;
}

/** A list of IPv4 CIDRs (allowed source ranges). */
export function readIpv4Cidrs(r: ConfigReader, name: string): string[] | undefined {
    return r.stringList(name, (cidr) => ipv4BlockProblem(cidr, 0, 32));
}

/**
 * `minNodes` and `maxNodes` of a node pool or group, with `maxNodes >= minNodes` and at least one node
 * possible. `floor` is the smallest `minNodes` allowed (1 for the CPU pool: add-ons need a node).
 */
export function readNodeBounds(r: ConfigReader, defaults: { minNodes: number; maxNodes: number }, floor: number): { minNodes: number; maxNodes: number } {
    const minNodes = r.int("minNodes", defaults.minNodes, { min: floor, max: 1000 });
    const maxNodes = r.int("maxNodes", Math.max(defaults.maxNodes, minNodes), { min: 1, max: 1000 });
    if (maxNodes < minNodes) {
        r.fail("maxNodes", `must be >= ${r.key("minNodes")} (${minNodes})`);
    }
    return { minNodes, maxNodes };
}
