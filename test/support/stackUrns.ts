/**
 * The URN of every resource a stack's offline plan (`tfs plan`, the program under the mock runtime)
 * registers, without the `urn:pulumi:<stack>::<project>::` prefix: `parentType$...$type::name`, as
 * the engine builds it from the parent chain. A resource whose URN changes is deleted and created
 * again by the next `pulumi up` unless an alias names its old URN, so moving code must leave this
 * list as it was. `test/fixtures/urns/<stack>.txt` holds the committed lists; write them again with
 * `npx ts-node -T test/support/stackUrns.ts --write` (only when a change of URN is meant).
 */
import * as fs from "fs";
import * as path from "path";
import { RecordedResource } from "../../ops/planRuntime";
import { planStack } from "../../ops/plan";
import { exampleConfig, runCloudStack } from "./cloudMocks";

/**
 * The shipped stacks' offline plans, and each cloud example with every optional part on (GPU nodes, the
 * Gateway endpoint, autoscaling on request rate), composed under the mock runtime as an update.
 */
export const URN_STACKS = ["dev", "gcp-example", "aws-example", "gcp-everything", "aws-everything"] as const;
type UrnStack = typeof URN_STACKS[number];

const EVERYTHING = { "tf-serving:gpu": "true", "tf-serving:endpoint": "gateway", "tf-serving:publicEndpoint": "true", "tf-serving:autoscaling": JSON.stringify({ minReplicas: 2, maxReplicas: 4 }) };

async function everything(cloud: "gcp" | "aws"): Promise<RecordedResource[]> {
    const config = cloud === "gcp"
        ? exampleConfig("gcp-example", (gke) => { gke.gpuPool = { acceleratorType: "nvidia-l4", minNodes: 0, maxNodes: 5 }; },
            { ...EVERYTHING, "tf-serving:gateway": JSON.stringify({ certificateMap: "tfs-map" }) })
        : exampleConfig("aws-example", (eks) => { eks.gpuNodeGroup = { instanceType: "g5.xlarge", desiredNodes: 5, minNodes: 0, maxNodes: 5 }; },
            { ...EVERYTHING, "tf-serving:gateway": JSON.stringify({ certificateArn: "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b" }) });
    delete config["tf-serving:loadBalancerSourceRanges"];
    const loadBalancer = cloud === "gcp" ? { ip: "203.0.113.20" } : { hostname: "k8s-tfserving-halfplus-0123456789-987654321.us-west-2.elb.amazonaws.com" };
    return (await runCloudStack(config, loadBalancer)).recorder.resources;
}
const ROOT = path.resolve(__dirname, "../..");
export const urnListFile = (stack: string): string => path.join(ROOT, "test", "fixtures", "urns", `${stack}.txt`);

/** `parentTypes$type::name` for each resource, from the recorded parents (`type::name`), sorted. */
export function urnsOf(resources: RecordedResource[]): string[] {
    const byKey = new Map<string, RecordedResource[]>();
    for (const r of resources) {
        const key = `${r.type}::${r.name}`;
        byKey.set(key, [...(byKey.get(key) ?? []), r]);
    }
    const qualifiedType = (r: RecordedResource, seen: Set<RecordedResource>): string => {
        if (r.parent === undefined) {
            return r.type;
        }
        const parents = byKey.get(r.parent) ?? [];
        if (parents.length !== 1 || seen.has(parents[0])) {
            throw new Error(`${r.type}::${r.name}: its parent ${r.parent} names ${parents.length} recorded resources`);
        }
        return `${qualifiedType(parents[0], new Set([...seen, r]))}$${r.type}`;
    };
    return resources.map((r) => `${qualifiedType(r, new Set())}::${r.name}`).sort();
}

/** The URNs of `stack`'s offline plan. */
export async function stackUrns(stack: UrnStack): Promise<string[]> {
    if (stack === "gcp-everything" || stack === "aws-everything") {
        return urnsOf(await everything(stack === "gcp-everything" ? "gcp" : "aws"));
    }
    return urnsOf((await planStack(ROOT, stack)).resources);
}

if (require.main === module && process.argv.includes("--write")) {
    void (async () => {
        for (const stack of URN_STACKS) {
            const urns = await stackUrns(stack);
            fs.mkdirSync(path.dirname(urnListFile(stack)), { recursive: true });
            fs.writeFileSync(urnListFile(stack), `${urns.join("\n")}\n`);
            console.log(`${urnListFile(stack)}: ${urns.length} URNs`);
        }
    })();
}
