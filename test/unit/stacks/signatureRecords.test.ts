import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { SignatureSpec } from "../../../contract/signature";
import { STATE_SCHEMA } from "../../../stacks/stateRecords";
import { readSignatureRecord, signatureVerdict } from "../../../stacks/signatureRecords";
import { exampleConfig, runCloudStack } from "../../support/cloudMocks";

/* eslint-disable @typescript-eslint/no-explicit-any */
const IP = { ip: "203.0.113.10" };
const KEYS = { model: "m", path: "tf-serving:modelPath (/models/m)", allow: "tf-serving:allowSignatureChange" };
const sig = (input: string): Record<string, SignatureSpec> =>
    ({ serving_default: { method: "tensorflow/serving/predict", inputs: { [input]: { dtype: "DT_FLOAT", shape: [-1, 1] } }, outputs: { y: { dtype: "DT_FLOAT", shape: [-1, 1] } } } });

describe("the servedSignatures record and the signature check at preview (stacks/signatureRecords.ts)", () => {
    it("a breaking change not allowed is one problem naming the model, both versions, the signature, the tensor, and both ways out", () => {
        const { problems, warnings } = signatureVerdict(KEYS, { 1: sig("x") }, { 2: sig("inputs") }, false);
        assert.deepStrictEqual(warnings, []);
        assert.strictEqual(problems.length, 1);
        assert.match(problems[0], /^tf-serving:modelPath \(\/models\/m\): model "m" version 2, which replaces version 1, breaks what its clients call: /);
        assert.match(problems[0], /signature "serving_default": input "x" is renamed to "inputs"/);
        assert.match(problems[0], /Keep the old signature beside the new one .* set tf-serving:allowSignatureChange: true for this update \(see docs\/guides\/model-contract.md#signatures-at-preview\)$/);
    });

    it("allowed, the same change is a warning that says to remove the allowance after; with nothing to allow the allowance is a warning of its own", () => {
        const allowed = signatureVerdict(KEYS, { 1: sig("x") }, { 2: sig("inputs") }, true);
        assert.deepStrictEqual(allowed.problems, []);
        assert.match(allowed.warnings.join("\n"), /released because tf-serving:allowSignatureChange is true: .*remove tf-serving:allowSignatureChange after this update/);
        const idle = signatureVerdict(KEYS, { 1: sig("x") }, { 1: sig("x") }, true);
        assert.deepStrictEqual(idle.problems, []);
        assert.match(idle.warnings.join("\n"), /allowSignatureChange is true, but no served version breaks the signatures this stack serves; remove it/);
        assert.deepStrictEqual(signatureVerdict(KEYS, { 1: sig("x") }, { 1: sig("x") }, false), { problems: [], warnings: [], notes: [] });
    });

    it("an additive change is a note, never a problem; a stack with no record compares nothing", () => {
        const more = { ...sig("x"), classify: sig("x").serving_default };
        const v = signatureVerdict(KEYS, { 1: sig("x") }, { 2: more }, false);
        assert.deepStrictEqual(v.problems, []);
        assert.match(v.notes.join("\n"), /signature "classify" is added/);
        assert.deepStrictEqual(signatureVerdict(KEYS, undefined, { 2: sig("inputs") }, false).problems, []);
    });

    it("a record reads back only when whole; a newer schema stops the run", () => {
        assert.deepStrictEqual(readSignatureRecord({ schema: 1, versions: { 3: sig("x") } }), { 3: sig("x") });
        for (const bad of [undefined, "x", { versions: { a: sig("x") } }, { versions: { 1: { s: { method: 1, inputs: {}, outputs: {} } } } },
            { versions: { 1: { s: { method: "m", inputs: { x: { dtype: "DT_FLOAT", shape: "?" } }, outputs: {} } } } }]) {
            assert.strictEqual(readSignatureRecord(bad), undefined, JSON.stringify(bad));
        }
        assert.throws(() => readSignatureRecord({ schema: STATE_SCHEMA + 1, versions: {} }), (err: Error) =>
            err instanceof pulumi.RunError && /stack output servedSignatures has schema 2, newer than this program reads/.test(err.message));
    });

    describe("through the program, from the stack's last outputs", () => {
        const config = exampleConfig("gcp-example");
        let last: Record<string, unknown>;
        let model = "";
        /** The last outputs with the record of `model` rewritten: as if the serving version's input were `input`. */
        const servedInput = (input: string) => {
            const record = structuredClone(last.servedSignatures) as Record<string, any>;
            for (const v of Object.values(record[model].versions) as any[]) {
                v.serving_default.inputs = { [input]: v.serving_default.inputs.x };
            }
            return { ...last, servedSignatures: record };
        };

        before(async () => {
            last = (await runCloudStack(config, IP)).outputs;
            model = Object.keys(last.servedSignatures as object)[0];
        });

        it("every update records each model's served signatures, TensorFlow's own left out", () => {
            const record = (last.servedSignatures as Record<string, any>)[model];
            assert.strictEqual(record.schema, STATE_SCHEMA);
            const [version] = Object.keys(record.versions);
            assert.match(version, /^\d+$/);
            assert.deepStrictEqual(record.versions[version].serving_default.inputs, { x: { dtype: "DT_FLOAT", shape: [-1, 1] } });
            assert.ok(!Object.keys(record.versions[version]).some((s) => s.startsWith("__saved_model_")));
        });

        it("the same signatures run as before; a renamed input stops the run before anything is registered; allowed, it runs", async () => {
            const again = await runCloudStack(config, IP, undefined, last);
            assert.deepStrictEqual(again.outputs.servedSignatures, last.servedSignatures);
            await assert.rejects(runCloudStack(config, IP, undefined, servedInput("features")), (err: Error) => {
                assert.match(err.message, /the stack cannot be deployed \(1 problem\):/);
                assert.match(err.message, /tf-serving:modelPath \(.*\): model "[^"]+" version \d+ \(re-exported\) breaks what its clients call: signature "serving_default": input "features" is renamed to "x"/);
                return true;
            });
            const allowed = await runCloudStack({ ...config, "tf-serving:allowSignatureChange": "true" }, IP, undefined, servedInput("features"));
            assert.deepStrictEqual(allowed.outputs.servedSignatures, last.servedSignatures, "the update records what it serves now");
        });
    });
});
