import * as assert from "assert";
import { SignatureSpec, TensorSpec } from "../../../contract/signature";
import { ChangeKind, compareSignatures, replacedVersions, servedVersionChanges } from "../../../contract/signatureChange";

const f = (shape: number[] | null): TensorSpec => ({ dtype: "DT_FLOAT", shape });
const predict = (inputs: Record<string, TensorSpec>, outputs: Record<string, TensorSpec>, method = "tensorflow/serving/predict"): SignatureSpec => ({ method, inputs, outputs });
const BASE = { serving_default: predict({ x: f([-1, 3]) }, { y: f([-1, 2]) }) };
/** The kinds and breaking flags of `after` against BASE (or `before`). */
const kinds = (after: Record<string, SignatureSpec>, before: Record<string, SignatureSpec> = BASE) =>
    compareSignatures(before, after).map((c) => `${c.kind}${c.breaking ? "!" : ""}`);
const withInput = (x: TensorSpec | undefined, extra: Record<string, TensorSpec> = {}) =>
    ({ serving_default: predict({ ...(x ? { x } : {}), ...extra }, { y: f([-1, 2]) }) });
const withOutput = (y: TensorSpec | undefined, extra: Record<string, TensorSpec> = {}) =>
    ({ serving_default: predict({ x: f([-1, 3]) }, { ...(y ? { y } : {}), ...extra }) });

describe("the signature contract between two versions (contract/signatureChange.ts)", () => {
    it("identical signatures change nothing; TensorFlow's own signatures are never compared", () => {
        assert.deepStrictEqual(kinds(BASE), []);
        assert.deepStrictEqual(kinds({ ...BASE, __saved_model_init_op: predict({}, {}, "") }), []);
        assert.deepStrictEqual(kinds(BASE, { ...BASE, __saved_model_init_op: predict({}, {}, "") }), []);
    });

    const cases: [string, Record<string, SignatureSpec>, ChangeKind, boolean][] = [
        ["a signature removed", { other: BASE.serving_default }, "signature-removed", true],
        ["the method changed", { serving_default: predict({ x: f([-1, 3]) }, { y: f([-1, 2]) }, "tensorflow/serving/regress") }, "method-changed", true],
        ["an input removed", withInput(undefined, {}), "input-removed", true],
        ["an input added", withInput(f([-1, 3]), { mask: f([-1]) }), "input-added", true],
        ["an input's dtype changed", withInput({ dtype: "DT_DOUBLE", shape: [-1, 3] }), "input-dtype", true],
        ["an input's rank changed", withInput(f([-1, 3, 1])), "input-rank", true],
        ["an input of any rank now of one", withInput(f([-1, 3])), "input-rank", true],
        ["an input's known dimension changed", withInput(f([-1, 4])), "input-dimension", true],
        ["an input's unknown dimension now known", withInput(f([8, 3])), "input-dimension", true],
        ["an input's dimension now unknown", withInput(f([-1, -1])), "input-relaxed", false],
        ["an input's rank now unknown", withInput(f(null)), "input-relaxed", false],
        ["an output removed", withOutput(undefined, { z: f([-1, 2]) }), "output-removed", true],
        ["an output added", withOutput(f([-1, 2]), { probabilities: f([-1, 2]) }), "output-added", false],
        ["an output's dtype changed", withOutput({ dtype: "DT_INT64", shape: [-1, 2] }), "output-dtype", true],
        ["an output's rank changed", withOutput(f([-1])), "output-rank", true],
        ["an output's known dimension changed", withOutput(f([-1, 5])), "output-dimension", true],
        ["an output's dimension now unknown", withOutput(f([-1, -1])), "output-relaxed", false],
        ["an output's unknown dimension now known", withOutput(f([4, 2])), "output-relaxed", false],
        ["an output's rank now unknown", withOutput(f(null)), "output-relaxed", false],
        ["a signature added", { ...BASE, classify: predict({ x: f([-1, 3]) }, { scores: f([-1]) }) }, "signature-added", false],
    ];
    const before = (name: string) => (name === "an input of any rank now of one" ? withInput(f(null)) : BASE);
    for (const [what, after, kind, breaking] of cases) {
        it(`${what}: ${kind}, ${breaking ? "breaking" : "additive"}`, () => {
            const found = compareSignatures(before(what), after);
            const hit = found.find((c) => c.kind === kind);
            assert.ok(hit, `${kind} among ${JSON.stringify(found)}`);
            assert.strictEqual(hit.breaking, breaking);
            assert.strictEqual(hit.signature, kind === "signature-added" ? "classify" : "serving_default");
        });
    }

    it("one input removed and one of the same type added reads as a rename, named both ways", () => {
        const [c, ...rest] = compareSignatures(BASE, { serving_default: predict({ inputs: f([-1, 3]) }, { y: f([-1, 2]) }) });
        assert.deepStrictEqual(rest, []);
        assert.strictEqual(c.kind, "input-renamed");
        assert.strictEqual(c.breaking, true);
        assert.strictEqual(c.tensor, "x");
        assert.match(c.detail, /^input "x" is renamed to "inputs": requests that send "x" are refused$/);
    });

    it("a rename that also changes the shape is still a rename, with the shape named", () => {
        const [c] = compareSignatures(BASE, { serving_default: predict({ inputs: f(null) }, { y: f([-1, 2]) }) });
        assert.strictEqual(c.kind, "input-renamed");
        assert.match(c.detail, /^input "x" is renamed to "inputs" \(its shape changes from \[-1,3\] to unknown rank\)/);
    });

    it("one removed and one added of another type are a removal and an addition, each named with its dtype and shape", () => {
        const found = compareSignatures(BASE, { serving_default: predict({ ids: { dtype: "DT_INT64", shape: [-1] } }, { y: f([-1, 2]) }) });
        assert.deepStrictEqual(found.map((c) => c.kind), ["input-removed", "input-added"]);
        assert.match(found[0].detail, /input "x" \(DT_FLOAT \[-1,3\]\) is removed/);
        assert.match(found[1].detail, /input "ids" \(DT_INT64 \[-1\]\) is added/);
    });

    it("breaking changes come before additive ones", () => {
        const found = compareSignatures(BASE, { serving_default: predict({ x: f([-1, 3]) }, { y: f([-1]), extra: f([1]) }), more: BASE.serving_default });
        assert.deepStrictEqual(found.map((c) => c.breaking), [true, false, false]);
    });

    it("each served version pairs with the one whose clients it takes", () => {
        assert.deepStrictEqual(replacedVersions([1], [2]), [{ before: 1, after: 2 }], "a new highest takes the unversioned requests");
        assert.deepStrictEqual(replacedVersions([1, 2], [2, 3]), [{ before: 2, after: 2 }, { before: 2, after: 3 }], "kept versions against themselves");
        assert.deepStrictEqual(replacedVersions([124], [123, 124]), [{ before: 124, after: 124 }], "an older version added beside the served one takes nobody's clients");
        assert.deepStrictEqual(replacedVersions([5, 7], [3, 8]), [{ before: 5, after: 3 }, { before: 7, after: 8 }], "others replace a version no longer served");
        assert.deepStrictEqual(replacedVersions([], [1]), []);
    });

    it("several served versions: each one against the one it replaces, unchanged pairs left out", () => {
        const renamed = { serving_default: predict({ inputs: f([-1, 3]) }, { y: f([-1, 2]) }) };
        const changes = servedVersionChanges({ 1: BASE, 2: BASE }, { 2: BASE, 3: renamed });
        assert.deepStrictEqual(changes.map((c) => [c.before, c.after, c.changes.map((x) => x.kind)]), [[2, 3, ["input-renamed"]]]);
    });
});
