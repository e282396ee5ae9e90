import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { PreviousOutputs, READ_CHECKPOINT } from "../../../stacks/previousOutputs";
import { MockRun, startMockRuntime } from "../../support/mockRuntime";

describe("the stack's last state, read from its checkpoint", () => {
    const ROOT_URN = "urn:pulumi:test::tf-serving::pulumi:pulumi:Stack::tf-serving-test";
    let run: MockRun | undefined;
    afterEach(async () => {
        await run?.settle();
        run = undefined;
    });

    it("one engine call per run gives the stack's outputs and every resource's", async () => {
        const image = "urn:pulumi:test::tf-serving::tf-serving:index:ModelImage$docker:index/image:Image::m";
        run = await startMockRuntime({
            call: (token) => (token === READ_CHECKPOINT ? {
                outputs: {
                    [ROOT_URN]: { type: "pulumi:pulumi:Stack", outputs: { clusterName: "tfs", models: { m: {} } } },
                    [image]: { type: "docker:index/image:Image", outputs: { imageName: "r/m:ctx-1" } },
                },
            } : undefined),
        });
        const previous = new PreviousOutputs(false);
        assert.strictEqual(await previous.value("clusterName"), "tfs");
        assert.strictEqual(await previous.value("deployedSettings"), undefined, "an output the last update did not export");
        const resources = await new Promise((resolve) => previous.resources().apply(resolve));
        assert.deepStrictEqual(Object.keys(resources as object), [ROOT_URN, image]);
        assert.deepStrictEqual(await new Promise((resolve) => previous.output("models").apply(resolve)), { m: {} });
        const reads = run.calls.filter((c) => c.token === READ_CHECKPOINT);
        assert.deepStrictEqual(reads, [{ token: READ_CHECKPOINT, args: { stackName: `organization/tf-serving/${pulumi.getStack()}` } }]);
    });

    it("offline (tfs plan) nothing is read: no outputs, no resources", async () => {
        run = await startMockRuntime();
        const previous = new PreviousOutputs(true);
        assert.deepStrictEqual(await previous.read(), { stackOutputs: {}, resources: {} });
        assert.strictEqual(await previous.value("clusterName"), undefined);
        assert.deepStrictEqual(run.calls.filter((c) => c.token === READ_CHECKPOINT), []);
    });

    it("a backend that does not answer: read three times, then the run stops naming the stack and the next step, with no stack trace", async () => {
        let asked = 0;
        run = await startMockRuntime({
            call: (token) => {
                if (token === READ_CHECKPOINT) {
                    asked++;
                    throw new Error("failed to load checkpoint: EOF");
                }
                return undefined;
            },
        });
        await assert.rejects(new PreviousOutputs(false).read(), (err: Error) => {
            assert.ok(pulumi.RunError.isInstance(err), "a RunError: the engine prints its message alone");
            assert.ok(err.message.startsWith(`could not read stack organization/tf-serving/${pulumi.getStack()}'s last state from its backend (`), err.message);
            assert.match(err.message, /\); nothing was changed\. The program needs it to check a change against what runs/);
            assert.match(err.message, /run the command again/);
            return true;
        });
        assert.strictEqual(asked, 3);
    });
});
