/**
 * Reading helpers shared by the `gke` and `eks` configuration sections: sections, node bounds, and
 * the resolvers' issues recorded under the sections' keys, so messages name the full key
 * (`gke.cpuPool.maxNodes`).
 */
import type { ArgsIssue } from "../components/argsIssues";
import { MAX_POOL_NODES } from "../components/clusterRules";
import { ConfigReader } from "./configReader";

/** The nested section `name` (a YAML mapping), or an empty one so missing required keys still report under its prefix. */
export function section(r: ConfigReader, name: string): ConfigReader {
    return r.nested(name) ?? new ConfigReader({}, r.issues, `${r.key(name)}.`);
}

/**
 * Records a component resolver's issues under this section's keys (`configField` maps a field path to
 * the key, `network.zones` to `zones`). A list's entries the reader already refused are not in what
 * the resolver saw, so `zones[1]` there is the second entry kept; a key already refused (a required
 * key missing, a value of the wrong type) is not refused twice.
 */
export function recordArgsIssues(r: ConfigReader, issues: readonly ArgsIssue[], configField: (field: string) => string = (field) => field): void {
    const refused = new Set(r.issues.map((i) => i.key));
    for (const issue of issues) {
        const key = r.key(writtenEntry(r, configField(issue.field), refused));
        if (!refused.has(key)) {
            r.issues.push({ key, value: issue.value, expected: issue.message });
        }
    }
}

/** `name[i]rest` with `i` counted among the entries of `name` not refused already, as the list was written. */
function writtenEntry(r: ConfigReader, field: string, refused: ReadonlySet<string>): string {
    const entry = /^([^[]+)\[(\d+)\](.*)$/.exec(field);
    if (entry === null) {
        return field;
    }
    const [, name, index, rest] = entry;
    let kept = -1;
    let written = -1;
    while (kept < Number(index)) {
        written++;
        if (!refused.has(r.key(`${name}[${written}]`))) {
            kept++;
        }
    }
    return `${name}[${written}]${rest}`;
}

/**
 * `minNodes` and `maxNodes` of a node pool or group, as written or defaulted; `maxNodes` follows a
 * larger `minNodes` up. The resolver checks them (`nodeBoundsIssues`).
 */
export function readNodeBounds(r: ConfigReader, defaults: { minNodes: number; maxNodes: number }): { minNodes: number; maxNodes: number } {
    const minNodes = r.int("minNodes", defaults.minNodes);
    const maxNodes = r.int("maxNodes", Math.max(defaults.maxNodes, minNodes <= MAX_POOL_NODES ? minNodes : defaults.maxNodes));
    return { minNodes, maxNodes };
}
