import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { PreviousOutputs } from "../../../stacks/previousOutputs";
import { STATE_SCHEMA, readDeployedSettings, readDeployedState, readImageBuild, recordSchema } from "../../../stacks/stateRecords";
import { exampleConfig, runCloudStack } from "../../support/cloudMocks";

/* eslint-disable @typescript-eslint/no-explicit-any */
const TAG = "ctx-0123456789abcdef";
const IP = { ip: "203.0.113.10" };
const GKE = { project: "p", region: "us-central1", clusterName: "c", deletionProtection: true, privateNodes: false, subnetCidr: "10.0.0.0/20" };

/** The last update's outputs as `PreviousOutputs` answers them, online. */
const lastOutputs = (outputs: Record<string, unknown>) => ({ offline: false, value: async (name: string) => outputs[name] }) as unknown as PreviousOutputs;

describe("the records a stack reads back from its checkpoint (deployedSettings, imageBuilds)", () => {
    it("an image record reads back from a stack output, with or without its schema, and nothing else does", () => {
        assert.deepStrictEqual(readImageBuild({ tag: TAG, pushed: false }), { tag: TAG, pushed: false });
        assert.deepStrictEqual(readImageBuild({ tag: TAG, pushed: true, schema: STATE_SCHEMA }), { tag: TAG, pushed: true });
        for (const bad of [undefined, null, "x", [], { tag: TAG }, { tag: 1, pushed: true }, { tag: TAG, pushed: "yes" }]) {
            assert.strictEqual(readImageBuild(bad), undefined, JSON.stringify(bad));
        }
    });

    it("a settings record without a schema (written before the field) still reads, as the current version", async () => {
        const old = { cloud: "gcp", gke: GKE };
        assert.deepStrictEqual(readDeployedSettings(old), { cloud: "gcp", gke: GKE, schema: STATE_SCHEMA });
        assert.deepStrictEqual(await readDeployedState(lastOutputs({ clusterName: "c", deployedSettings: old })),
            { kind: "recorded", settings: { cloud: "gcp", gke: GKE, schema: STATE_SCHEMA } });
        for (const bad of [undefined, "x", { schema: 1 }, { cloud: "gcp", eks: GKE }, { cloud: "azure", gke: GKE }]) {
            assert.strictEqual(readDeployedSettings(bad), undefined, JSON.stringify(bad));
        }
        assert.deepStrictEqual(await readDeployedState(lastOutputs({ clusterName: "c" })), { kind: "unrecorded" });
        assert.deepStrictEqual(await readDeployedState(lastOutputs({})), { kind: "new" });
    });

    it("a newer schema is one line naming the output, both versions and the way out; a schema no version writes too", () => {
        const newer = STATE_SCHEMA + 1;
        for (const [output, read] of [["deployedSettings", readDeployedSettings], ["imageBuilds", readImageBuild]] as const) {
            assert.throws(() => read({ schema: newer, cloud: "gcp", gke: GKE, tag: TAG, pushed: true }), (err: Error) => {
                assert.ok(err instanceof pulumi.RunError, "a RunError: the engine prints its message without a stack trace");
                assert.strictEqual(err.message.split("\n").length, 1);
                assert.match(err.message, new RegExp(`^stack output ${output} has schema ${newer}, newer than this program reads \\(${STATE_SCHEMA}\\): ` +
                    "a later version of tf-serving last updated this stack; run that version or a later one \\(see docs/concepts/changing-a-stack.md#the-records-a-stack-keeps\\)$"));
                return true;
            });
        }
        for (const schema of [0, 1.5, "1"]) {
            assert.throws(() => recordSchema("deployedSettings", { schema }), /has schema .*, which no version of this program writes/, JSON.stringify(schema));
        }
    });

    it("a stack whose last update recorded a newer image schema stops the run with that line; the current schema named explicitly reads as before", async () => {
        const config = exampleConfig("gcp-example");
        const last = (await runCloudStack(config, IP)).outputs;
        const builds = last.imageBuilds as Record<string, any>;
        const newer = Object.fromEntries(Object.entries(builds).map(([model, b]) => [model, { ...b, schema: STATE_SCHEMA + 1 }]));
        await assert.rejects(runCloudStack(config, IP, undefined, { ...last, imageBuilds: newer }), /^Error: stack output imageBuilds has schema 2, newer than this program reads/);
        // The same outputs with the current schema named explicitly: an unchanged stack.
        const current = Object.fromEntries(Object.entries(builds).map(([model, b]) => [model, { ...b, schema: STATE_SCHEMA }]));
        const again = await runCloudStack(config, IP, undefined, { ...last, imageBuilds: current });
        assert.deepStrictEqual(again.outputs.imageBuilds, builds, "the records read back unchanged");
    });
});
