/**
 * Test helpers for the GKE and EKS stacks (the mock runtime's defaults give the state the clouds
 * compute: service account emails, role ARNs, repository names): a runner that takes a stack's
 * config through `readConfig`, `prepareModels` and `composeStack` under the mock runtime,
 * the example stacks' config, and config issue lookup.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { MockOptions } from "../../ops/planRuntime";
import { MockRun, settleOutput, startMockRuntime } from "./mockRuntime";
import { stackConfig } from "../../ops/plan";
import { readConfig } from "../../config/config";
import { ConfigIssue } from "../../config/configReader";
import { prepareModels } from "../../stacks/prepare";
import { composeStack } from "../../stacks/program";
import { READ_CHECKPOINT } from "../../stacks/previousOutputs";

export const MOCK_ACCOUNT = "123456789012";

/**
 * Provider-function answers for an AWS caller that assumed `roleArn` (path included) in a session named
 * `session`: what `getCallerIdentity` and `getSessionContext` say for a laptop's SSO role or CI's role.
 */
export function awsCaller(roleArn: string, session: string): MockOptions["call"] {
    const [, partition, account, resource] = /^arn:([^:]+):iam::(\d{12}):role\/(.+)$/.exec(roleArn) ?? [];
    assert.ok(resource, `not a role ARN: ${roleArn}`);
    const sessionArn = `arn:${partition}:sts::${account}:assumed-role/${resource.split("/").pop()}/${session}`;
    return (token) => {
        if (token === "aws:index/getCallerIdentity:getCallerIdentity") {
            return { accountId: account, arn: sessionArn, userId: `AROAMOCK:${session}`, id: account };
        }
        return token === "aws:iam/getSessionContext:getSessionContext" ? { arn: sessionArn, issuerArn: roleArn, issuerName: resource.split("/").pop() } : undefined;
    };
}
export const ROOT = path.resolve(__dirname, "../..");

export interface StackRun {
    recorder: MockRun;
    /** Every output resolved (undefined where unknown). */
    outputs: Record<string, unknown>;
    /** Dockerfile text per model, read from the staged build contexts. */
    dockerfiles: Record<string, string>;
}

/**
 * Composes the stack for the configuration `all` (full `project:key` strings, as Pulumi hands them over)
 * under the mock runtime, the load balancer answering with `loadBalancer` and provider functions
 * (the caller's identity) with `call` over the defaults; `deployed` are the outputs the stack's last
 * update left (what the engine's read of its checkpoint answers; default none, a new stack). The project root is
 * this repository: build contexts are staged under its `.tfs/build/test/`.
 */
export async function runCloudStack(
    all: Record<string, string>,
    loadBalancer: { ip?: string; hostname?: string },
    call?: MockOptions["call"],
    deployed?: Record<string, unknown>,
): Promise<StackRun> {
    // The engine's answer: the checkpoint's resources, the root one holding the stack's outputs.
    const answer: MockOptions["call"] = (token, args) => (token === READ_CHECKPOINT
        ? deployed && { name: args.stackName, outputs: { "urn:pulumi:test::tf-serving::pulumi:pulumi:Stack::tf-serving-test": { type: "pulumi:pulumi:Stack", outputs: deployed } } }
        : call?.(token, args));
    const recorder = await startMockRuntime({ config: all, loadBalancer, call: answer });
    const config = readConfig(all, "tf-serving", ROOT);
    const { models } = prepareModels(config, "tf-serving");
    const result = await composeStack(config, models, { offline: false });
    const outputs: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(result)) {
        outputs[key] = value === undefined ? undefined : await settleOutput(value);
    }
    await recorder.settle();
    const dockerfiles: Record<string, string> = {};
    for (const image of recorder.ofType("docker:index/image:Image")) {
        // The Docker provider resolves the Dockerfile from the project root, as this does.
        const build = image.inputs.build as { dockerfile: string };
        dockerfiles[image.name] = fs.readFileSync(path.resolve(ROOT, build.dockerfile), "utf8");
    }
    return { recorder, outputs, dockerfiles };
}

/**
 * A shipped example stack's config (`Pulumi.<stack>.yaml` over Pulumi.yaml's defaults), with `edit`
 * applied to its cloud section (`gke` or `eks`) and `extra` top-level keys set.
 */
export function exampleConfig(
    stack: "gcp-example" | "aws-example",
    edit: (section: Record<string, unknown>) => void = () => undefined,
    extra: Record<string, string> = {},
): Record<string, string> {
    const { config } = stackConfig(ROOT, stack);
    const key = `tf-serving:${stack === "gcp-example" ? "gke" : "eks"}`;
    const section = JSON.parse(config[key]) as Record<string, unknown>;
    edit(section);
    return { ...config, [key]: JSON.stringify(section), ...extra };
}

/** The config issue for `key`; fails listing every issue when there is none. */
export function issueFor(issues: ConfigIssue[], key: string): ConfigIssue {
    const found = issues.find((i) => i.key === key);
    assert.ok(found, `no issue for ${key}; issues: ${JSON.stringify(issues)}`);
    return found;
}
