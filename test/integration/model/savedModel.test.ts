import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { TensorSpec } from "../../../contract/signature";
import { formatReport } from "../../../cli/preflightText";
import { Finding, preflight, PreflightReport } from "../../../model/savedModel";
import { SAVED_MODELS } from "../../support/fixtures";
import { withTensorflowVersion } from "../../support/savedModelBytes";
import { decodeSavedModel } from "../../../model/tfProto";
import { buildWarmupFile, WARMUP_FILE } from "../../../model/warmup";

const FIXTURES = SAVED_MODELS;
const fixture = (name: string): string => path.join(FIXTURES, name);

/** TF Serving's own GetModelMetadata answer for half_plus_two_cpu (the oracle). */
interface OracleTensor { dtype: string; tensor_shape: { dim: { size: string }[]; unknown_rank: boolean } }
interface OracleSignature { method_name: string; inputs: Record<string, OracleTensor>; outputs: Record<string, OracleTensor> }
const oracle = JSON.parse(fs.readFileSync(path.join(FIXTURES, "half_plus_two_cpu.metadata.json"), "utf8")) as {
    metadata: { signature_def: { signature_def: Record<string, OracleSignature> } };
};

function codes(findings: Finding[]): string[] {
    return findings.map((f) => f.code);
}

function only(findings: Finding[], code: string): Finding {
    const matching = findings.filter((f) => f.code === code);
    assert.strictEqual(matching.length, 1, `expected one ${code} in ${JSON.stringify(findings, null, 1)}`);
    return matching[0];
}

/** Sum of the sizes of every regular file under `dir`, computed independently of the module. */
function bytesUnder(dir: string): number {
    return fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
        .map((entry) => fs.statSync(path.join(dir, entry)))
        .filter((stat) => stat.isFile())
        .reduce((sum, stat) => sum + stat.size, 0);
}

/** Temp folders with writable copies of fixtures; removed after each test. */
let scratch: string[] = [];
function tempDir(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-preflight-"));
    scratch.push(dir);
    return dir;
}
function copyFixture(name: string): string {
    const base = path.join(tempDir(), name);
    fs.cpSync(fixture(name), base, { recursive: true });
    makeWritable(base);
    return base;
}
function makeWritable(entry: string): void {
    const stat = fs.lstatSync(entry);
    if (stat.isDirectory()) {
        fs.chmodSync(entry, 0o755);
        for (const name of fs.readdirSync(entry)) {
            makeWritable(path.join(entry, name));
        }
    } else if (stat.isFile()) {
        fs.chmodSync(entry, 0o644);
    }
}
function removeScratch(): void {
    for (const dir of scratch) {
        fs.rmSync(dir, { recursive: true, force: true });
    }
    scratch = [];
}

const V123 = "00000123";

/** A hand-written text SavedModel with the blocks a real export has around the signatures, for the reader to skip. */
function pbtxt(tags: string[], signatureName = "serving_default"): string {
    return `# Written by hand in the shape of TensorFlow's text export.
saved_model_schema_version: 1
meta_graphs {
  meta_info_def {
    stripped_op_list { op { name: "Add" input_arg { name: "x" type_attr: "T" } attr { name: "T" type: "type" } } }
    ${tags.map((tag) => `tags: "${tag}"`).join("\n    ")}
    tensorflow_version: "2.14.0"
    tensorflow_git_version: "unknown"
  }
  graph_def {
    node {
      name: "weird}name{"
      op: "Const"
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } tensor_content: "\\000\\000\\000?}{" } } }
    }
    versions { producer: 1645 }
  }
  saver_def { filename_tensor_name: "save/Const:0" version: V2 }
  collection_def { key: "variables" value { bytes_list { value: "\\n\\003x:0" } } }
  signature_def {
    key: "${signatureName}"
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT tensor_shape { dim { size: -1 } dim { size: 3 } } } }
      inputs { key: "ids" value { name: "ids:0" dtype: DT_INT64 tensor_shape { unknown_rank: true } } }
      outputs < key: "y" value < name: "y:0" dtype: DT_DOUBLE_REF tensor_shape { } > >
      method_name: "tensorflow/serving/predict"
    }
  }
  asset_file_def { tensor_info { name: "vocab:0" } filename: "vocab.txt" }
}
`;
}

/** A base folder with one version whose only graph file is `text` as saved_model.pbtxt. */
function textModel(text: string): string {
    const base = copyFixture("half_plus_two_gpu");
    const version = path.join(base, V123);
    fs.rmSync(path.join(version, "saved_model.pb"));
    fs.writeFileSync(path.join(version, "saved_model.pbtxt"), text);
    return base;
}

describe("preflight", () => {
    afterEach(removeScratch);

    describe("on the fixtures", () => {
        it("reads half_plus_two_cpu: one served version, its graph file, size, tags and signatures", () => {
            const report = preflight(fixture("half_plus_two_cpu"));
            assert.deepStrictEqual(report.errors, []);
            assert.deepStrictEqual(report.warnings, []);
            assert.strictEqual(report.ok, true);
            assert.strictEqual(report.baseDir, fixture("half_plus_two_cpu"));
            assert.strictEqual(report.servedVersion, 123);
            assert.deepStrictEqual(report.servedVersions, [123]);
            assert.strictEqual(report.versions.length, 1);
            const [v] = report.versions;
            assert.strictEqual(v.version, 123);
            assert.strictEqual(v.path, path.join(fixture("half_plus_two_cpu"), V123));
            assert.strictEqual(v.graphFile, "saved_model.pb");
            assert.strictEqual(v.sizeBytes, bytesUnder(v.path));
            assert.strictEqual(v.sizeBytes, 12107 + 172 + 20 + 19);
            assert.deepStrictEqual(v.tags, ["serve"]);
            assert.deepStrictEqual(v.metaGraphTags, [["serve"]]);
            assert.strictEqual(v.served, true);
            assert.strictEqual(v.hasVariables, true);
            assert.deepStrictEqual(v.signatures.serving_default, {
                method: "tensorflow/serving/predict",
                inputs: { x: { dtype: "DT_FLOAT", shape: [-1, 1] } },
                outputs: { y: { dtype: "DT_FLOAT", shape: [-1, 1] } },
            });
        });

        it("matches TF Serving's metadata answer for half_plus_two_cpu in every signature, dtype and shape", () => {
            const expected = oracle.metadata.signature_def.signature_def;
            const { signatures } = preflight(fixture("half_plus_two_cpu")).versions[0];
            assert.deepStrictEqual(Object.keys(signatures).sort(), Object.keys(expected).sort());
            const toSpec = (t: OracleTensor): TensorSpec => ({
                dtype: t.dtype,
                shape: t.tensor_shape.unknown_rank ? null : t.tensor_shape.dim.map((d) => Number(d.size)),
            });
            for (const [name, sig] of Object.entries(expected)) {
                assert.strictEqual(signatures[name].method, sig.method_name, name);
                for (const side of ["inputs", "outputs"] as const) {
                    assert.deepStrictEqual(Object.keys(signatures[name][side]).sort(), Object.keys(sig[side]).sort(), `${name} ${side}`);
                    for (const [tensor, info] of Object.entries(sig[side])) {
                        assert.deepStrictEqual(signatures[name][side][tensor], toSpec(info), `${name} ${side} ${tensor}`);
                    }
                }
            }
            // The oracle has both kinds of shape, so both decoding paths were compared.
            assert.deepStrictEqual(signatures.classify_x_to_y.inputs.inputs, { dtype: "DT_STRING", shape: null });
        });

        it("reads the TF2 export, including fingerprint.pb in the size and TensorFlow's init signature", () => {
            const report = preflight(fixture("half_plus_two_tf2_cpu"));
            assert.strictEqual(report.ok, true, JSON.stringify(report.errors));
            const [v] = report.versions;
            assert.strictEqual(v.sizeBytes, bytesUnder(v.path));
            assert.ok(fs.existsSync(path.join(v.path, "fingerprint.pb")));
            assert.deepStrictEqual(v.signatures.serving_default.inputs.x, { dtype: "DT_FLOAT", shape: [1] });
            assert.deepStrictEqual(v.signatures.regress_x_to_y.inputs.inputs, { dtype: "DT_STRING", shape: [-1] });
            assert.ok("__saved_model_init_op" in v.signatures);
            assert.ok(!formatReport(report).includes("__saved_model_init_op"), "TensorFlow's internal signature is not listed for users");
        });

        it("serves only the highest of two versions by default and warns about the other", () => {
            const report = preflight(fixture("half_plus_two_2_versions"));
            assert.strictEqual(report.ok, true);
            assert.deepStrictEqual(report.versions.map((v) => [v.version, v.served]), [[123, false], [124, true]]);
            assert.strictEqual(report.servedVersion, 124);
            assert.deepStrictEqual(report.servedVersions, [124]);
            assert.match(only(report.warnings, "VERSIONS_NOT_SERVED").message, /Version 123 .* not served/);
            for (const v of report.versions) {
                assert.strictEqual(v.sizeBytes, bytesUnder(v.path));
                assert.ok("serving_default" in v.signatures, "unserved versions are read too");
            }
        });

        it("serves the requested versions and fails for one that does not exist", () => {
            const both = preflight(fixture("half_plus_two_2_versions"), { versions: [123, 124] });
            assert.strictEqual(both.ok, true);
            assert.deepStrictEqual(both.servedVersions, [123, 124]);
            assert.strictEqual(both.servedVersion, 124);
            assert.deepStrictEqual(both.warnings, []);

            const missing = preflight(fixture("half_plus_two_2_versions"), { versions: [125] });
            assert.strictEqual(missing.ok, false);
            assert.match(only(missing.errors, "VERSION_NOT_FOUND").message, /Version 125 .*it has 123, 124/);
            assert.strictEqual(missing.servedVersion, null);
        });

        it("reads the GPU export", () => {
            const report = preflight(fixture("half_plus_two_gpu"));
            assert.strictEqual(report.ok, true, JSON.stringify(report.errors));
            assert.deepStrictEqual(report.versions[0].tags, ["serve"]);
            assert.deepStrictEqual(report.versions[0].signatures.serving_default.outputs.y, { dtype: "DT_FLOAT", shape: [-1, 1] });
        });

        it("records the TensorFlow that exported each fixture, none newer than the pinned server's", () => {
            // The values `strings saved_model.pb` shows in each fixture.
            const exported: Record<string, [string, string]> = {
                half_plus_two_cpu: ["1.14.0", "unknown"], half_plus_two_tf2_cpu: ["2.14.0", "unknown"], half_plus_two_gpu: ["1.9.0", "unknown"],
                half_plus_three: ["1.0.0-rc2", "v1.0.0-rc1-102-g1536a84-dirty"], counter: ["1.5.0-rc1", "unknown"], half_plus_two_2_versions: ["1.1.0-rc2", "unknown"],
            };
            for (const [name, [version, git]] of Object.entries(exported)) {
                const report = preflight(fixture(name), { signature: name === "counter" ? "get_counter" : undefined });
                for (const v of report.versions) {
                    assert.strictEqual(v.tensorflowVersion, version, name);
                    assert.strictEqual(v.tensorflowGitVersion, git, name);
                }
                assert.ok(!codes(report.warnings).includes("NEWER_TENSORFLOW"), name);
                assert.deepStrictEqual(report.server, { baseImage: "tensorflow/serving:2.21.0", servingVersion: "2.21.0", tensorflow: "2.21" });
            }
        });

        it("reports unknown shapes of half_plus_three as null", () => {
            const report = preflight(fixture("half_plus_three"));
            assert.strictEqual(report.ok, true);
            assert.deepStrictEqual(report.versions[0].signatures.serving_default, {
                method: "tensorflow/serving/predict",
                inputs: { x: { dtype: "DT_FLOAT", shape: null } },
                outputs: { y: { dtype: "DT_FLOAT", shape: null } },
            });
        });

        it("fails counter, which has no serving_default, and lists the signatures it has", () => {
            const report = preflight(fixture("counter"));
            assert.strictEqual(report.ok, false);
            const error = only(report.errors, "SIGNATURE_MISSING");
            assert.match(error.message, /no signature "serving_default" \(it has get_counter, incr_counter, incr_counter_by, reset_counter\)/);
            assert.match(error.message, /--signature get_counter/);
            assert.strictEqual(error.path, path.join(fixture("counter"), V123, "saved_model.pb"));
            assert.strictEqual(report.servedVersion, 123, "the version TF Serving would try is still reported");
        });

        it("accepts counter with one of its own signatures and warns about its reference dtypes", () => {
            const report = preflight(fixture("counter"), { signature: "incr_counter_by" });
            assert.strictEqual(report.ok, true);
            assert.deepStrictEqual(report.versions[0].signatures.get_counter.outputs.output, { dtype: "DT_FLOAT_REF", shape: [] });
            assert.match(only(report.warnings, "REF_DTYPE").message, /get_counter\.output: DT_FLOAT_REF/);
            assert.strictEqual(report.signature, "incr_counter_by");
        });
    });

    describe("fails a model TF Serving would not serve", () => {
        it("BASE_NOT_FOUND for a folder that does not exist", () => {
            const missing = path.join(tempDir(), "nope");
            const report = preflight(missing);
            assert.strictEqual(report.ok, false);
            assert.deepStrictEqual(report.versions, []);
            const error = only(report.errors, "BASE_NOT_FOUND");
            assert.ok(error.message.includes(missing));
            assert.strictEqual(error.path, missing);
        });

        it("BASE_NOT_A_FOLDER for a file, pointing at the base folder when given saved_model.pb", () => {
            const graph = path.join(fixture("half_plus_two_cpu"), V123, "saved_model.pb");
            const report = preflight(graph);
            assert.strictEqual(report.ok, false);
            const error = only(report.errors, "BASE_NOT_A_FOLDER");
            assert.ok(error.message.includes(`${graph} is a file`));
            assert.ok(error.message.includes(`instead: ${fixture("half_plus_two_cpu")}`));
        });

        it("NO_VERSIONS for an empty folder", () => {
            const report = preflight(tempDir());
            assert.strictEqual(report.ok, false);
            assert.match(only(report.errors, "NO_VERSIONS").message, /No numeric version folder .*it is empty.*wait forever/);
        });

        it("NO_VERSIONS alone when versions were requested from a folder without any", () => {
            const report = preflight(tempDir(), { versions: [3] });
            assert.deepStrictEqual(codes(report.errors), ["NO_VERSIONS"]);
        });

        it("NO_VERSIONS with a hint when the SavedModel sits in a named folder", () => {
            const base = tempDir();
            fs.cpSync(path.join(fixture("half_plus_two_cpu"), V123), path.join(base, "export"), { recursive: true });
            const report = preflight(base);
            assert.match(only(report.errors, "NO_VERSIONS").message, new RegExp(`${path.join(base, "export")} holds a SavedModel: rename it to a number`));
        });

        it("FLAT_LAYOUT for saved_model.pb and variables/ copied straight into the base folder", () => {
            const base = tempDir();
            fs.cpSync(path.join(fixture("half_plus_two_cpu"), V123), base, { recursive: true });
            const report = preflight(base);
            assert.strictEqual(report.ok, false);
            const error = only(report.errors, "FLAT_LAYOUT");
            assert.ok(error.message.includes(`move them into ${path.join(base, "1")}/`), error.message);
            assert.ok(error.message.includes(path.join(base, "saved_model.pb")) && error.message.includes(path.join(base, "variables")));
            assert.ok(!codes(report.errors).includes("NO_VERSIONS"), "one error for one mistake");
        });

        it("FLAT_LAYOUT says to pass the parent when given a version folder", () => {
            const version = path.join(fixture("half_plus_two_cpu"), V123);
            const error = only(preflight(version).errors, "FLAT_LAYOUT");
            assert.ok(error.message.includes(`pass its parent, ${fixture("half_plus_two_cpu")}`), error.message);
        });

        it("NO_GRAPH_FILE for a version without saved_model.pb, naming the version folder", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.rmSync(path.join(base, V123, "saved_model.pb"));
            const report = preflight(base);
            assert.strictEqual(report.ok, false);
            const error = only(report.errors, "NO_GRAPH_FILE");
            assert.strictEqual(error.path, path.join(base, V123));
            assert.match(error.message, /no saved_model\.pb/);
            assert.strictEqual(report.versions[0].graphFile, null);
        });

        it("NO_GRAPH_FILE points at a SavedModel nested one level down", () => {
            const base = tempDir();
            fs.cpSync(path.join(fixture("half_plus_two_cpu"), V123), path.join(base, "1", "model"), { recursive: true });
            const error = only(preflight(base).errors, "NO_GRAPH_FILE");
            assert.ok(error.message.includes(`one level down in ${path.join(base, "1", "model")}`), error.message);
        });

        it("NO_VERSIONS for a Keras file where the version folders belong, with the export that makes a SavedModel", () => {
            const base = path.join(tempDir(), "models", "half-plus-two");
            fs.mkdirSync(base, { recursive: true });
            fs.writeFileSync(path.join(base, "model.keras"), "PK\x03\x04 a Keras 3 zip");
            const error = only(preflight(base).errors, "NO_VERSIONS");
            const keras = path.join(base, "model.keras");
            assert.ok(error.message.includes(`${keras} is a Keras file, not a SavedModel`), error.message);
            assert.ok(error.message.includes(`keras.models.load_model("${keras}").export("${path.join(base, "1")}") (Keras 3)`), error.message);
            assert.ok(error.message.includes(`tf.saved_model.save(tf.keras.models.load_model("${keras}"), "${path.join(base, "1")}") (tf.keras 2)`), error.message);
            assert.doesNotMatch(error.message, /saved_model\.pb and variables/, "not the generic hint");
        });

        it("NO_GRAPH_FILE for an .h5 file in a version folder, exporting into that folder", () => {
            const base = tempDir();
            const version = path.join(base, "1");
            fs.mkdirSync(version);
            fs.writeFileSync(path.join(version, "model.h5"), "\x89HDF\r\n\x1a\n");
            const error = only(preflight(base).errors, "NO_GRAPH_FILE");
            assert.ok(error.message.includes(`${path.join(version, "model.h5")} is a Keras file, not a SavedModel`), error.message);
            assert.ok(error.message.includes(`.export("${version}") (Keras 3)`), error.message);
        });

        it("BASE_NOT_A_FOLDER for a Keras file passed as the model, with the export and the folder to pass", () => {
            const dir = tempDir();
            const file = path.join(dir, "model.keras");
            fs.writeFileSync(file, "PK\x03\x04");
            const error = only(preflight(file).errors, "BASE_NOT_A_FOLDER");
            assert.ok(error.message.includes(`keras.models.load_model("${file}").export("${path.join(dir, "1")}")`), error.message);
            assert.ok(error.message.includes(`Then pass ${dir} as the model folder`), error.message);
        });

        it("EMPTY_GRAPH for a 0-byte saved_model.pb", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.writeFileSync(path.join(base, V123, "saved_model.pb"), "");
            const report = preflight(base);
            assert.strictEqual(report.ok, false);
            assert.match(only(report.errors, "EMPTY_GRAPH").message, /is empty \(0 bytes\)/);
        });

        it("UNDECODABLE_GRAPH for bytes that are not a SavedModel", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.writeFileSync(path.join(base, V123, "saved_model.pb"), "this is not a protobuf\n");
            const report = preflight(base);
            assert.strictEqual(report.ok, false);
            const error = only(report.errors, "UNDECODABLE_GRAPH");
            assert.match(error.message, /not a valid SavedModel protobuf \(invalid wire type/);
            assert.deepStrictEqual(report.versions[0].signatures, {});
        });

        it("UNDECODABLE_GRAPH for a truncated saved_model.pb, saying so", () => {
            const base = copyFixture("half_plus_two_cpu");
            const file = path.join(base, V123, "saved_model.pb");
            fs.truncateSync(file, fs.statSync(file).size - 100);
            assert.match(only(preflight(base).errors, "UNDECODABLE_GRAPH").message, /looks truncated/);
        });

        it("LINK_OUTSIDE_MODEL for a link in a version that points outside the model folder", () => {
            const base = copyFixture("half_plus_two_cpu");
            const outside = path.join(tempDir(), "variables.data-00000-of-00001");
            const link = path.join(base, V123, "variables", "variables.data-00000-of-00001");
            fs.renameSync(link, outside);
            fs.symlinkSync(outside, link);
            const report = preflight(base);
            assert.strictEqual(report.ok, false);
            const error = only(report.errors, "LINK_OUTSIDE_MODEL");
            assert.strictEqual(error.path, link);
            assert.ok(error.message.includes(`links to ${outside}, outside the model folder`));
        });

        it("LINK_OUTSIDE_MODEL anywhere under the base, even in a folder TF Serving ignores", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.mkdirSync(path.join(base, "extra"));
            fs.symlinkSync("/etc", path.join(base, "extra", "etc"));
            const report = preflight(base);
            assert.strictEqual(only(report.errors, "LINK_OUTSIDE_MODEL").path, path.join(base, "extra", "etc"));
        });

        it("accepts a link that stays inside the model folder and counts what it points to", () => {
            const base = copyFixture("half_plus_two_cpu");
            const assets = path.join(base, V123, "assets");
            fs.renameSync(assets, path.join(base, "shared-assets"));
            fs.symlinkSync(path.join("..", "shared-assets"), assets);
            const report = preflight(base);
            assert.deepStrictEqual(codes(report.errors), []);
            assert.strictEqual(report.versions[0].sizeBytes, 12107 + 172 + 20 + 19);
        });

        it("BROKEN_LINK for a link to nothing in the served version", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.symlinkSync("missing-file", path.join(base, V123, "assets", "vocab.txt"));
            assert.match(only(preflight(base).errors, "BROKEN_LINK").message, /links to missing-file, which does not exist/);
        });

        it("LINK_LOOP for links that lead to each other, not BROKEN_LINK", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.symlinkSync("b", path.join(base, V123, "assets", "a"));
            fs.symlinkSync("a", path.join(base, V123, "assets", "b"));
            const report = preflight(base);
            assert.deepStrictEqual(codes(report.errors), ["LINK_LOOP", "LINK_LOOP"]);
            assert.match(report.errors[0].message, /assets\/a links to b, and the links lead back to each other without end \(a link loop\)/);
        });

        it("LINK_LOOP for a link back to a folder that contains it (staging would copy the model into itself)", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.symlinkSync("..", path.join(base, V123, "assets", "up"));
            const error = only(preflight(base).errors, "LINK_LOOP");
            assert.strictEqual(error.path, path.join(base, V123, "assets", "up"));
            assert.match(error.message, new RegExp(`which is ${path.join(base, V123).replace(/[/.]/g, "\\$&")}, a folder that contains the link`));
        });

        it("SPECIAL_FILE for a named pipe in a version, which staging could not copy either", function () {
            const base = copyFixture("half_plus_two_cpu");
            const pipe = path.join(base, V123, "assets", "pipe");
            try {
                execFileSync("mkfifo", [pipe]);
            } catch {
                this.skip();
            }
            assert.match(only(preflight(base).errors, "SPECIAL_FILE").message, /assets\/pipe is neither a file nor a folder/);
        });

        it("VARIABLES_INCOMPLETE for an empty variables/ when the graph restores from it (TensorFlow's loader then skips the restore: loader.cc, RunRestore)", () => {
            for (const name of ["half_plus_two_cpu", "half_plus_two_tf2_cpu"]) {
                const base = copyFixture(name);
                const version = fs.readdirSync(base).find((n) => /^\d+$/.test(n))!;
                const variables = path.join(base, version, "variables");
                fs.rmSync(variables, { recursive: true });
                fs.mkdirSync(variables);
                const report = preflight(base);
                assert.strictEqual(report.ok, false, name);
                assert.match(only(report.errors, "VARIABLES_INCOMPLETE").message, /variables is empty, but the graph restores its weights from it.*every predict fails/);
            }
        });

        it("VARIABLES_INCOMPLETE for a zero-byte shard or index (TensorFlow cannot restore them)", () => {
            for (const file of ["variables.data-00000-of-00001", "variables.index"]) {
                const base = copyFixture("half_plus_two_cpu");
                fs.truncateSync(path.join(base, V123, "variables", file), 0);
                const error = only(preflight(base).errors, "VARIABLES_INCOMPLETE");
                assert.strictEqual(error.path, path.join(base, V123, "variables", file));
                assert.match(error.message, /is empty \(0 bytes\), so TensorFlow cannot restore the weights/);
            }
        });

        it("a folder with no version at all (like /etc) gets NO_VERSIONS alone: nothing in it is scanned or changed", () => {
            const base = tempDir();
            for (let i = 0; i < 50; i++) {
                fs.mkdirSync(path.join(base, `conf${i}.d`));
                fs.writeFileSync(path.join(base, `conf${i}.d`, "secret"), "", { mode: 0o600 });
                fs.symlinkSync("/usr/share", path.join(base, `conf${i}.d`, "share"));
            }
            const report = preflight(base);
            assert.deepStrictEqual([...codes(report.errors), ...codes(report.warnings)], ["NO_VERSIONS"]);
        });

        it("reports at most five findings of a kind, then how many more", () => {
            const base = copyFixture("half_plus_two_cpu");
            for (let i = 0; i < 12; i++) {
                fs.symlinkSync(`gone${i}`, path.join(base, V123, "assets", `link${i}`));
            }
            const report = preflight(base);
            assert.strictEqual(report.ok, false);
            assert.deepStrictEqual(codes(report.errors), Array(6).fill("BROKEN_LINK"));
            assert.strictEqual(report.errors[5].message, "... and 7 more BROKEN_LINK problems like those above.");
        });

        it("names the caller's setting in a fix: a flag for the CLI, the config key for a stack", () => {
            const cli = only(preflight(fixture("half_plus_two_cpu"), { signature: "nope" }).errors, "SIGNATURE_MISSING");
            assert.match(cli.message, /\(--signature classify_x_to_y\)/);
            const settings = { signature: (v: string) => `tf-serving:models[1].signature: ${v}`, tags: (v: string) => `--saved_model_tags=${v}` };
            const stack = only(preflight(fixture("half_plus_two_cpu"), { signature: "nope", settings }).errors, "SIGNATURE_MISSING");
            assert.match(stack.message, /\(tf-serving:models\[1\]\.signature: classify_x_to_y\)/);
            assert.doesNotMatch(stack.message, /--signature/);
        });

        it("NO_SERVE_TAG when no MetaGraph is tagged exactly {serve}, suggesting the tags it has", () => {
            const report = preflight(textModel(pbtxt(["serve", "gpu"])));
            assert.strictEqual(report.ok, false);
            const error = only(report.errors, "NO_SERVE_TAG");
            assert.match(error.message, /no MetaGraph tagged exactly \{serve\} \(asked for with --tags serve; it has \{serve, gpu\}\)/);
            assert.match(error.message, /--saved_model_tags=serve,gpu/);
            assert.deepStrictEqual(report.versions[0].metaGraphTags, [["serve", "gpu"]]);
            assert.deepStrictEqual(report.versions[0].tags, []);

            const matching = preflight(textModel(pbtxt(["serve", "gpu"])), { tags: ["gpu", "serve"] });
            assert.strictEqual(matching.ok, true, JSON.stringify(matching.errors));
            assert.deepStrictEqual(matching.versions[0].tags, ["serve", "gpu"]);
        });

        it("NO_SERVE_TAG for a training-only export", () => {
            const error = only(preflight(textModel(pbtxt(["train"]))).errors, "NO_SERVE_TAG");
            assert.match(error.message, /it has \{train\}.*re-export with tags \{serve\}/);
        });

        it("SIGNATURE_MISSING for a requested signature the served version lacks", () => {
            const report = preflight(fixture("half_plus_two_cpu"), { signature: "predict" });
            assert.strictEqual(report.ok, false);
            assert.match(only(report.errors, "SIGNATURE_MISSING").message, /no signature "predict" \(it has classify_x_to_y, regress_x2_to_y3, regress_x_to_y, regress_x_to_y2, serving_default\)/);
        });

        it("VERSION_NOT_A_FOLDER for a file with a numeric name, which TF Serving takes for the latest version", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.writeFileSync(path.join(base, "200"), "");
            const report = preflight(base);
            assert.strictEqual(report.servedVersion, 200);
            assert.strictEqual(only(report.errors, "VERSION_NOT_A_FOLDER").path, path.join(base, "200"));
            assert.ok(codes(report.warnings).includes("VERSIONS_NOT_SERVED"));
        });

        it("VARIABLES_INCOMPLETE for variables without their index or with a missing shard", () => {
            const noIndex = copyFixture("half_plus_two_cpu");
            fs.rmSync(path.join(noIndex, V123, "variables", "variables.index"));
            assert.match(only(preflight(noIndex).errors, "VARIABLES_INCOMPLETE").message, /data files but no variables\.index/);

            const missingShard = copyFixture("half_plus_two_cpu");
            const variables = path.join(missingShard, V123, "variables");
            fs.renameSync(path.join(variables, "variables.data-00000-of-00001"), path.join(variables, "variables.data-00000-of-00002"));
            assert.match(only(preflight(missingShard).errors, "VARIABLES_INCOMPLETE").message, /lacks data shard 1 of 2/);
        });

        it("ODD_VERSION_NAME for a folder name TF Serving would read as a number", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.mkdirSync(path.join(base, "+5"));
            const report = preflight(base);
            assert.match(only(report.errors, "ODD_VERSION_NAME").message, /"\+5" .* rename it to a plain positive number such as 5/);
            assert.ok(!codes(report.warnings).includes("IGNORED_ENTRIES"));
        });

        it("UNDECODABLE_GRAPH for a malformed saved_model.pbtxt, with its line", () => {
            const error = only(preflight(textModel(pbtxt(["serve"]).replace(/\}\s*$/, ""))).errors, "UNDECODABLE_GRAPH");
            assert.match(error.message, /not a valid SavedModel text proto \(.*line \d+\)/);
        });
    });

    describe("reads saved_model.pbtxt", () => {
        it("decodes its signatures and skips the graph, saver, collections and op list around them", () => {
            const report = preflight(textModel(pbtxt(["serve"])));
            assert.deepStrictEqual(report.errors, []);
            const [v] = report.versions;
            assert.strictEqual(v.graphFile, "saved_model.pbtxt");
            assert.deepStrictEqual(v.signatures, {
                serving_default: {
                    method: "tensorflow/serving/predict",
                    inputs: { ids: { dtype: "DT_INT64", shape: null }, x: { dtype: "DT_FLOAT", shape: [-1, 3] } },
                    outputs: { y: { dtype: "DT_DOUBLE_REF", shape: [] } },
                },
            });
            assert.deepStrictEqual(codes(report.warnings), ["REF_DTYPE"]);
        });

        it("warns instead of failing on a field this schema does not know", () => {
            const report = preflight(textModel(pbtxt(["serve"]).replace("tensorflow_version:", "future_field: 3\n    tensorflow_version:")));
            assert.strictEqual(report.ok, true);
            assert.match(only(report.warnings, "GRAPH_NOT_CHECKED").message, /future_field/);
        });

        it("prefers saved_model.pb when both are present, as TensorFlow does, and warns", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.writeFileSync(path.join(base, V123, "saved_model.pbtxt"), "garbage {");
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            assert.strictEqual(report.versions[0].graphFile, "saved_model.pb");
            assert.ok(codes(report.warnings).includes("PBTXT_IGNORED"));
        });
    });

    describe("warns where TF Serving would still serve the model", () => {
        it("VERSIONS_NOT_SERVED does not advise removing a version a served one links into", () => {
            const base = copyFixture("half_plus_two_2_versions");
            const variables = path.join(base, "00000124", "variables");
            fs.rmSync(variables, { recursive: true });
            fs.symlinkSync(path.join("..", V123, "variables"), variables);
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            const message = only(report.warnings, "VERSIONS_NOT_SERVED").message;
            assert.doesNotMatch(message, /remove/);
            assert.match(message, /keep it: served version 124 links into it \(.*00000124\/variables -> \.\.\/00000123\/variables\)/);
        });

        it("VERSIONS_NOT_SERVED advises removing only the unserved versions nothing served links into", () => {
            const base = copyFixture("half_plus_two_2_versions");
            fs.cpSync(path.join(base, V123), path.join(base, "00000122"), { recursive: true });
            const variables = path.join(base, "00000124", "variables");
            fs.rmSync(variables, { recursive: true });
            fs.symlinkSync(path.join("..", V123, "variables"), variables);
            const message = only(preflight(base).warnings, "VERSIONS_NOT_SERVED").message;
            assert.match(message, /Versions 122, 123 .* not served/);
            assert.match(message, /remove 122 to keep the image small/);
            assert.match(message, /keep 123: served version 124 links into it/);
        });

        it("VERSIONS_NOT_SERVED never advises removing the only version that would load: it says to serve it", () => {
            const base = copyFixture("half_plus_two_2_versions");
            fs.rmSync(path.join(base, "00000124", "variables", "variables.index"));
            const report = preflight(base);
            assert.strictEqual(report.ok, false, "the served version 124 cannot load");
            const message = only(report.warnings, "VERSIONS_NOT_SERVED").message;
            assert.doesNotMatch(message, /remove/);
            assert.match(message, /keep it: unlike served version 124, which cannot load, it passes this check; serve it \(config key "versions": \[123\], or --version 123/);
        });

        it("IGNORED_ENTRIES and STRAY_MODEL_FILES for non-numeric entries beside the versions", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.mkdirSync(path.join(base, "latest"));
            fs.writeFileSync(path.join(base, "README.md"), "model");
            fs.copyFileSync(path.join(base, V123, "saved_model.pb"), path.join(base, "saved_model.pb"));
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            assert.match(only(report.warnings, "IGNORED_ENTRIES").message, /ignores "README\.md", "latest"/);
            assert.ok(only(report.warnings, "STRAY_MODEL_FILES").message.includes(path.join(base, "saved_model.pb")));
        });

        it("NO_VARIABLES for a version without variables/", () => {
            const base = copyFixture("half_plus_two_gpu");
            fs.rmSync(path.join(base, V123, "variables"), { recursive: true });
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            assert.strictEqual(report.versions[0].hasVariables, false);
            assert.strictEqual(only(report.warnings, "NO_VARIABLES").path, path.join(base, V123));
        });

        it("NOT_WORLD_READABLE for files the non-root server could not read", function () {
            if (process.platform === "win32") {
                this.skip();
            }
            const base = copyFixture("half_plus_two_cpu");
            const index = path.join(base, V123, "variables", "variables.index");
            fs.chmodSync(index, 0o600);
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            const warning = only(report.warnings, "NOT_WORLD_READABLE");
            assert.ok(warning.message.includes(index) && warning.message.includes(`chmod -R o+rX ${base}`), warning.message);
        });

        it("WARMUP_REQUESTS when assets.extra/tf_serving_warmup_requests is present", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.mkdirSync(path.join(base, V123, "assets.extra"));
            fs.writeFileSync(path.join(base, V123, "assets.extra", "tf_serving_warmup_requests"), "");
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            const advice = only(report.warnings, "WARMUP_REQUESTS").message;
            assert.match(advice, /on by default/);
            assert.match(advice, /set enableWarmup: false/, "the fix is the config key: extraServerArgs refuses the managed flag");
        });

        it("WARMUP_REQUESTS counts the records of a warmup file TF Serving would replay", () => {
            const base = copyFixture("half_plus_two_cpu");
            const signature = preflight(base).versions[0].signatures.serving_default;
            fs.mkdirSync(path.join(base, V123, "assets.extra"));
            const requests = [[[1.0]], [[2.0], [3.0]], [[4.0]]].map((instances) => ({ body: { instances }, signatureName: "serving_default", signature }));
            fs.writeFileSync(path.join(base, V123, WARMUP_FILE), buildWarmupFile(requests));
            const report = preflight(base);
            assert.strictEqual(report.ok, true, JSON.stringify(report.errors));
            assert.strictEqual(report.versions[0].warmupRecords, 3);
            assert.match(only(report.warnings, "WARMUP_REQUESTS").message, /holds 3 warmup records/);
        });

        it("WARMUP_SHAPE for a request of another rank, which TF Serving passes to the graph as it is", () => {
            const base = copyFixture("half_plus_two_cpu");
            const signature = preflight(base).versions[0].signatures.serving_default;
            fs.mkdirSync(path.join(base, V123, "assets.extra"));
            // TF Serving's own REST example sends half_plus_two rank 1 ({"instances": [1.0, 2.0, 5.0]}), and it answers.
            fs.writeFileSync(path.join(base, V123, WARMUP_FILE), buildWarmupFile([{ body: { instances: [1.0, 2.0] }, signatureName: "serving_default", signature }]));
            const report = preflight(base);
            assert.strictEqual(report.ok, true, JSON.stringify(report.errors));
            assert.match(only(report.warnings, "WARMUP_SHAPE").message, /record 0 \(byte 0\): input "x" has shape \[2\] \(rank 1\), but the signature says rank 2/);
        });

        it("WARMUP_INVALID names the record with a bad CRC and the fix, and a request the signature refuses", () => {
            const base = copyFixture("half_plus_two_cpu");
            const signatures = preflight(base).versions[0].signatures;
            fs.mkdirSync(path.join(base, V123, "assets.extra"));
            const file = buildWarmupFile([
                { body: { instances: [[1.0]] }, signatureName: "serving_default", signature: signatures.serving_default },
                // Written against another signature's inputs: serving_default has no input "inputs".
                { body: { instances: [[1.0]] }, signatureName: "serving_default", signature: signatures.regress_x2_to_y3 },
                { body: { instances: [[1.0]] }, signatureName: "serving_default", signature: signatures.serving_default },
            ]);
            file[file.length - 1] ^= 0x01;
            fs.writeFileSync(path.join(base, V123, WARMUP_FILE), file);
            const report = preflight(base);
            assert.strictEqual(report.ok, false);
            const errors = report.errors.filter((e) => e.code === "WARMUP_INVALID").map((e) => e.message);
            assert.strictEqual(errors.length, 2, JSON.stringify(errors));
            assert.match(errors[0], /record 1 \(byte \d+\): its inputs \{inputs\} are not signature "serving_default"'s \{x\}/);
            assert.match(errors[1], /record 2 \(byte \d+\) has data whose CRC does not match/);
            assert.match(errors[1], new RegExp(`TF Serving fails the load of version 123 on it: regenerate it with \`tfs warmup ${base} --version 123`));
            assert.strictEqual(report.versions[0].warmupRecords, 2);
        });

        it("DUPLICATE_VERSION for two names of one number, keeping the one TF Serving keeps", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.cpSync(path.join(base, V123), path.join(base, "123"), { recursive: true });
            const report = preflight(base);
            assert.strictEqual(report.versions.length, 1);
            assert.strictEqual(report.versions[0].path, path.join(base, "123"));
            assert.match(only(report.warnings, "DUPLICATE_VERSION").message, /TF Serving loads 123 and ignores 00000123/);
        });

        it("still checks links in the duplicate TF Serving ignores, since the image copies it", () => {
            const base = copyFixture("half_plus_two_cpu");
            fs.mkdirSync(path.join(base, "123"));
            fs.symlinkSync("/etc/hostname", path.join(base, V123, "assets", "host"));
            assert.strictEqual(only(preflight(base).errors, "LINK_OUTSIDE_MODEL").path, path.join(base, V123, "assets", "host"));
        });

        it("turns what breaks an unserved version into a warning", () => {
            const base = copyFixture("half_plus_two_2_versions");
            fs.rmSync(path.join(base, V123, "saved_model.pb"));
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            assert.match(only(report.warnings, "NO_GRAPH_FILE").message, /^version 123 \(not served\): /);
        });
    });

    describe("compares the exporter's TensorFlow with the server's", () => {
        /** A copy of the TF2 fixture whose graph says TensorFlow `version` exported it (every other byte kept). */
        function exportedBy(version: string, name = "half_plus_two_tf2_cpu"): string {
            const base = copyFixture(name);
            const graph = path.join(base, V123, "saved_model.pb");
            const original = fs.readFileSync(graph);
            const rewritten = withTensorflowVersion(original, version);
            fs.writeFileSync(graph, rewritten);
            const [before, after] = [decodeSavedModel(original)[0], decodeSavedModel(rewritten)[0]];
            assert.deepStrictEqual(after.signatures, before.signatures, "only the version changed");
            assert.strictEqual(after.tensorflowVersion, version);
            return base;
        }

        it("says nothing of a graph TensorFlow 2.21 exported (what pip install tensorflow gives) on the pinned base", () => {
            for (const version of ["2.21.0", "2.21.1"]) {
                const report = preflight(exportedBy(version));
                assert.strictEqual(report.versions[0].tensorflowVersion, version);
                assert.deepStrictEqual(report.warnings, [], version);
            }
        });

        it("NEWER_TENSORFLOW (a warning) for a graph from a newer release line than the pinned TF Serving's", () => {
            const base = exportedBy("2.22.0");
            const report = preflight(base);
            assert.strictEqual(report.ok, true, "a graph that uses no new op still loads");
            assert.strictEqual(report.versions[0].tensorflowVersion, "2.22.0");
            const warning = only(report.warnings, "NEWER_TENSORFLOW");
            const graph = path.join(base, V123, "saved_model.pb");
            assert.strictEqual(warning.path, graph);
            for (const part of [`${graph} was exported by TensorFlow 2.22.0`, "newer than the TensorFlow 2.21 that tensorflow/serving:2.21.0 (TF Serving 2.21.0) runs",
                "Op type not registered", 'pip install "tensorflow==2.21.*"', "--base-image tensorflow/serving:2.22.0"]) {
                assert.ok(warning.message.includes(part), `${part}\n${warning.message}`);
            }
        });

        it("compares release lines: a patch, an older line or a TF1 export is not newer; a release candidate or a nightly of the next is", () => {
            for (const version of ["2.21.1", "2.20.1", "1.15.5"]) {
                assert.ok(!codes(preflight(exportedBy(version)).warnings).includes("NEWER_TENSORFLOW"), version);
            }
            for (const version of ["2.22.0-rc0", "2.22.0-dev20261105", "3.0.0"]) {
                only(preflight(exportedBy(version)).warnings, "NEWER_TENSORFLOW");
            }
        });

        it("checks against the base image's own release, and skips a tag that names none", () => {
            const base = exportedBy("2.22.0");
            const newer = preflight(base, { baseImage: "registry.example:5000/serving:2.22.0-gpu" });
            assert.deepStrictEqual(newer.server, { baseImage: "registry.example:5000/serving:2.22.0-gpu", servingVersion: "2.22.0", tensorflow: "2.22" });
            assert.deepStrictEqual(newer.warnings, []);
            const older = only(preflight(exportedBy("2.21.0"), { baseImage: "tensorflow/serving:2.20.0" }).warnings, "NEWER_TENSORFLOW");
            assert.ok(older.message.includes("newer than the TensorFlow 2.20 that tensorflow/serving:2.20.0"), older.message);
            const unknown = preflight(base, { baseImage: "mirror.example/serving:prod" });
            assert.deepStrictEqual(unknown.server, { baseImage: "mirror.example/serving:prod", servingVersion: null, tensorflow: null });
            assert.deepStrictEqual(unknown.warnings, []);
        });

        it("names the stack's baseImage key in the fix, and marks a version that is not served", () => {
            const base = exportedBy("2.22.0", "half_plus_two_2_versions");
            fs.cpSync(path.join(fixture("half_plus_two_2_versions"), "00000124"), path.join(base, "00000124"), { recursive: true });
            const settings = { signature: (v: string) => v, tags: (v: string) => v, baseImage: (v: string) => `tf-serving:models[0].baseImage: ${v}` };
            const report = preflight(base, { settings });
            const warning = only(report.warnings, "NEWER_TENSORFLOW");
            assert.match(warning.message, /^version 123 \(not served\): /);
            assert.ok(warning.message.includes("(tf-serving:models[0].baseImage: tensorflow/serving:2.22.0, once"), warning.message);
            assert.doesNotMatch(warning.message, /--base-image/);
            const older = { signature: (v: string) => v, tags: (v: string) => v };
            const fallback = only(preflight(base, { settings: older }).warnings, "NEWER_TENSORFLOW");
            assert.ok(fallback.message.includes("(base image tensorflow/serving:2.22.0, once"), fallback.message);
        });

        it("VERSIONS_NOT_SERVED keeps the unserved version known to load while the served one may not (NEWER_TENSORFLOW)", () => {
            // 123 exported by TensorFlow 2.21 (the pinned server's line), 124 by 2.22: TF Serving serves 124, which may not load.
            const base = exportedBy("2.21.0");
            fs.cpSync(path.join(base, V123), path.join(base, "00000124"), { recursive: true });
            const graph = path.join(base, "00000124", "saved_model.pb");
            fs.writeFileSync(graph, withTensorflowVersion(fs.readFileSync(graph), "2.22.0"));
            const report = preflight(base);
            assert.strictEqual(report.ok, true);
            assert.match(only(report.warnings, "NEWER_TENSORFLOW").message, /00000124/);
            const message = only(report.warnings, "VERSIONS_NOT_SERVED").message;
            assert.doesNotMatch(message, /remove/);
            assert.match(message, /keep it: served version 124 may not load \(see its NEWER_TENSORFLOW warning\), and it has no such warning; serve it \(config key "versions": \[123\], or --version 123 on the command line\) if 124 fails to load/);
        });

        it("VERSIONS_NOT_SERVED still advises removing an unserved version that carries the same risk", () => {
            const base = exportedBy("2.22.0");
            fs.cpSync(path.join(base, V123), path.join(base, "00000124"), { recursive: true });
            assert.match(only(preflight(base).warnings, "VERSIONS_NOT_SERVED").message, /remove it to keep the image small/);
        });

        it("reads the version from saved_model.pbtxt too", () => {
            const base = textModel(pbtxt(["serve"]).replace('tensorflow_version: "2.14.0"', 'tensorflow_version: "2.99.0"'));
            const report = preflight(base, { signature: "serving_default" });
            assert.strictEqual(report.versions[0].tensorflowVersion, "2.99.0");
            only(report.warnings, "NEWER_TENSORFLOW");
        });
    });

    describe("formatReport", () => {
        it("lists versions, served signatures, findings and a verdict", () => {
            const text = formatReport(preflight(fixture("half_plus_two_2_versions")));
            const lines = text.split("\n");
            assert.strictEqual(lines[0], `Model ${fixture("half_plus_two_2_versions")}`);
            assert.strictEqual(lines[1], "Server tensorflow/serving:2.21.0: TF Serving 2.21.0, TensorFlow 2.21");
            assert.match(lines[2], /^ {2}version 123 {2}not served {2}saved_model\.pb {2}9\.9 KiB {2}tags serve {2}exported by TensorFlow 1\.1\.0-rc2$/);
            assert.match(lines[3], /^ {2}version 124 {2}served {6}saved_model\.pb/);
            assert.match(lines[4], /^ {4}serving_default +predict +x: DT_FLOAT\[-1,1\] -> y: DT_FLOAT\[-1,1\]$/);
            assert.ok(lines.some((line) => /classify_x_to_y +classify +inputs: DT_STRING\[unknown rank\] -> scores: DT_FLOAT\[-1,1\]/.test(line)));
            assert.ok(lines.some((line) => line.startsWith("warning VERSIONS_NOT_SERVED: ")));
            assert.strictEqual(lines[lines.length - 1], "OK: TF Serving would serve version 124 with signature serving_default (0 errors, 1 warning).");
        });

        it("shows a git version TensorFlow recorded, and says when the server's TensorFlow cannot be told", () => {
            const lines = formatReport(preflight(fixture("half_plus_three"), { baseImage: "mirror.example/serving:prod" })).split("\n");
            assert.strictEqual(lines[1], "Server mirror.example/serving:prod: its tag names no TF Serving release, so exporters' TensorFlow versions are not compared");
            assert.match(lines[2], /exported by TensorFlow 1\.0\.0-rc2 \(v1\.0\.0-rc1-102-g1536a84-dirty\)$/);
        });

        it("ends with a failure verdict and the errors for a broken model", () => {
            const report: PreflightReport = preflight(fixture("counter"));
            const lines = formatReport(report).split("\n");
            assert.ok(lines.some((line) => line.startsWith("error SIGNATURE_MISSING: ")));
            assert.ok(lines.some((line) => /get_counter +predict +\(none\) -> output: DT_FLOAT_REF\[\]/.test(line)));
            assert.match(lines[lines.length - 1], /^FAILED: .*\(1 error, 1 warning\)/);
        });
    });
});
