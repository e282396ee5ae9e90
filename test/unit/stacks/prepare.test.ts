import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { readConfig } from "../../../config/config";
import { ConfigError } from "../../../config/configReader";
import { prepareModels, prepareStack } from "../../../stacks/prepare";
import { fixtureModelDir } from "../../support/fixtures";
import { withTensorflowVersion } from "../../support/savedModelBytes";

const ROOT = path.resolve(__dirname, "../../..");
const PROJECT = "tf-serving";

function prepared(values: Record<string, unknown>, today?: string) {
    const all = Object.fromEntries(Object.entries({ modelPath: "models/half_plus_two", publicEndpoint: "true", ...values })
        .map(([k, v]) => [`${PROJECT}:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
    return prepareModels(readConfig(all, PROJECT, ROOT), PROJECT, today);
}

describe("prepareModels", () => {
    const gke = (maxNodes: number) => ({ project: "my-project", region: "us-central1", zones: ["us-central1-a"], gpuPool: { acceleratorType: "nvidia-l4", maxNodes } });

    it("warns that one GPU replica on a pool with no GPU to spare makes every update an outage, and for how long", () => {
        const { models, warnings } = prepared({ cloud: "gcp", gpu: "true", replicas: "1", gke: gke(1) });
        const warning = warnings.find((w) => /outage/.test(w));
        assert.ok(warning, JSON.stringify(warnings));
        assert.match(warning, /^model "half-plus-two": the GPU pool has no GPU to spare/);
        assert.match(warning, new RegExp(`up to ${models[0].sizing.startupBudgetSeconds} s`));
        assert.match(warning, /docs\/concepts\/model-server\.md#gpu-capacity/);
    });

    it("refuses a batchingParametersFile TF Serving cannot parse, naming the key (ModelServer's own check)", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-batching-"));
        try {
            const file = path.join(dir, "batching.txt");
            fs.writeFileSync(file, "max_batch_size { value: 32 }\nbatch_size: 3\n");
            assert.throws(() => prepared({ batchingParametersFile: file }), (err: Error) => {
                assert.match(err.message, /batchingParametersFile = .*batching\.txt: does not parse as a BatchingParameters text proto \(.*unknown field 'batch_size'/);
                return true;
            });
            fs.writeFileSync(file, "max_batch_size { value: 32 }\n");
            assert.strictEqual(prepared({ batchingParametersFile: file }).models[0].batchingParameters, "max_batch_size { value: 32 }\n");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("says nothing when a second replica keeps serving, or the pool has room to surge", () => {
        for (const values of [{ replicas: "2", gke: gke(2) }, { replicas: "1", gke: gke(2) }]) {
            const { warnings } = prepared({ cloud: "gcp", gpu: "true", ...values });
            assert.deepStrictEqual(warnings.filter((w) => /outage/.test(w)), [], JSON.stringify(values));
        }
    });

    it("names a tf-serving: key written outside config: in Pulumi.<stack>.yaml, which Pulumi drops without a word", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-stackfile-"));
        try {
            fs.writeFileSync(path.join(dir, "Pulumi.ci.yaml"), "config:\n  tf-serving:publicEndpoint: true\ntf-serving:replicas: 3\nconfiguration: {}\n");
            const config = { [`${PROJECT}:modelPath`]: path.join(ROOT, "models/half_plus_two"), [`${PROJECT}:publicEndpoint`]: "true" };
            assert.throws(() => prepareStack({ project: PROJECT, stack: "ci", config, projectDir: dir }, { offline: true }), (err: Error) => {
                assert.ok(err instanceof ConfigError, String(err));
                assert.deepStrictEqual(err.issues.map((i) => i.qualifiedKey), ["Pulumi.ci.yaml: tf-serving:replicas", "Pulumi.ci.yaml: configuration"]);
                assert.match(err.message, /Pulumi\.ci\.yaml: tf-serving:replicas: is written at the top level of Pulumi\.ci\.yaml, outside `config:`, where Pulumi ignores it.*indent it under `config:`/);
                return true;
            });
            fs.writeFileSync(path.join(dir, "Pulumi.ci.yaml"), "config:\n  tf-serving:publicEndpoint: true\n  tf-serving:replicas: 3\n");
            assert.strictEqual(prepareStack({ project: PROJECT, stack: "ci", config, projectDir: dir }, { offline: true }).models.length, 1);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("warns about a model exported by a newer TensorFlow than its base image runs, naming the baseImage key", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-prepare-"));
        try {
            const base = path.join(dir, "model");
            fs.cpSync(fixtureModelDir("half_plus_two_tf2_cpu"), base, { recursive: true });
            const graph = path.join(base, "00000123", "saved_model.pb");
            fs.chmodSync(graph, 0o644);
            fs.writeFileSync(graph, withTensorflowVersion(fs.readFileSync(graph), "2.22.0"));
            const pinned = prepared({ modelPath: base }).warnings.filter((w) => /NEWER|newer than the TensorFlow/.test(w));
            assert.strictEqual(pinned.length, 1, JSON.stringify(pinned));
            assert.match(pinned[0], /^model "model": .* newer than the TensorFlow 2\.21 that tensorflow\/serving:2\.21\.0 \(TF Serving 2\.21\.0\) runs/);
            assert.ok(pinned[0].includes("(tf-serving:baseImage: tensorflow/serving:2.22.0, once that release is published)"), pinned[0]);
            const newer = prepared({ modelPath: base, baseImage: "tensorflow/serving:2.22.0" }).warnings;
            assert.deepStrictEqual(newer.filter((w) => /newer than the TensorFlow/.test(w)), []);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("warns at preview when eks.kubernetesVersion is in EKS extended support, naming the versions in standard support", () => {
        const eks = (kubernetesVersion: string) => ({ region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"], kubernetesVersion });
        const versionWarnings = (version: string, today: string) => prepared({ cloud: "aws", eks: eks(version) }, today).warnings.filter((w) => w.includes("eks.kubernetesVersion"));
        const [warning] = versionWarnings("1.34", "2026-12-04");
        assert.match(warning, /^tf-serving:eks\.kubernetesVersion = "1\.34" left EKS standard support on 2026-12-02: .* "1\.35", "1\.36"/);
        assert.deepStrictEqual(versionWarnings("1.34", "2026-12-01"), []);
        assert.deepStrictEqual(versionWarnings("1.35", "2026-12-04"), []);
    });
});

describe("prepareModels: the golden file", () => {
    let dir: string;
    const write = (name: string, lines: unknown[]) => {
        fs.writeFileSync(path.join(dir, name), lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
        return path.join(dir, name);
    };
    before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-golden-")); });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("a good file reaches the model's server as the text and the name the config gives it", () => {
        const file = write("good.jsonl", [{ request: { instances: [1, 2] }, expected: { y: [2.5, 3] } }]);
        const [model] = prepared({ golden: file }).models;
        assert.deepStrictEqual(model.golden, { file, text: fs.readFileSync(file, "utf8") });
    });

    it("each case a served version refuses, and a line that does not parse, is a problem under the golden key naming the line", () => {
        const refused = write("refused.jsonl", [{ request: { instances: [{ inputs: 1 }] } }, { request: { signature_name: "serving_defualt", instances: [1] } }]);
        assert.throws(() => prepared({ golden: refused }), (err: Error) => {
            assert.match(err.message, /tf-serving:golden: .*refused\.jsonl:1: instance 0 has input "inputs", which signature "serving_default" does not have/);
            assert.match(err.message, /tf-serving:golden: .*refused\.jsonl:2: signature "serving_defualt" is not the model's \(did you mean "serving_default"\?\)/);
            return true;
        });
        const broken = write("broken.jsonl", ["{\"request\": {\"instances\": [1]}, \"tolerance\": {\"atol\": -1}}"]);
        assert.throws(() => prepared({ golden: broken }), /tf-serving:golden: .*broken\.jsonl:1: "tolerance\.atol" is -1, negative/);
        assert.throws(() => prepared({ golden: path.join(dir, "none.jsonl") }), /tf-serving:golden: .*none\.jsonl: cannot read it \(ENOENT\)/);
    });
});

describe("prepareModels: warmup from the golden file", () => {
    let dir: string;
    before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-golden-warmup-")); });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const golden = (cases: unknown[]) => {
        const file = path.join(dir, "golden.jsonl");
        fs.writeFileSync(file, cases.map((c) => JSON.stringify(c)).join("\n"));
        return file;
    };

    it("hands the image its golden cases as warmup requests, and the startup budget a replay for each", () => {
        const file = golden(Array.from({ length: 8 }, (_, i) => ({ request: { instances: [[i]] }, expected: { y: [[i / 2 + 2]] } })));
        const [plain] = prepared({ golden: file }).models;
        const [warm] = prepared({ golden: file, warmup: "golden" }).models;
        assert.strictEqual(plain.warmup, undefined);
        assert.deepStrictEqual(warm.warmup?.map((s) => s.name), Array.from({ length: 8 }, (_, i) => `${file}:${i + 1}`));
        assert.deepStrictEqual(warm.warmup?.[0].expected, { y: [[2]] });
        assert.strictEqual(warm.sizing.startupBudgetSeconds - plain.sizing.startupBudgetSeconds, 2, "8 records, once each, at 0.25 s");
        const [none] = prepared({ golden: file, warmup: "golden", enableWarmup: "false" }).models;
        assert.strictEqual(none.sizing.startupBudgetSeconds, plain.sizing.startupBudgetSeconds, "no replay with warmup off");
    });

    it("refuses a golden case that cannot be written as a warmup record, under the warmup key", () => {
        // Ragged rows stack into no tensor; the golden file's own checks leave that to the endpoint.
        const file = golden([{ request: { instances: [[1], [2, 3]] } }]);
        assert.doesNotThrow(() => prepared({ golden: file }));
        assert.throws(() => prepared({ golden: file, warmup: "golden" }),
            /tf-serving:warmup: version 123: .*golden\.jsonl:1: input "x" of signature "serving_default" is not a dense list.*model-contract\.md#warmup-records/);
    });
});
