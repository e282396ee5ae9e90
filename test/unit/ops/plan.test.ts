/** `tfs plan`'s reading of a stack: its name, its file's YAML, and a program that stops on a user mistake. */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PlanError, planStack, stackConfig, stackNameProblem } from "../../../ops/plan";
import { fixtureModelDir } from "../../support/fixtures";

const ROOT = path.resolve(__dirname, "../../..");

describe("tfs plan: the stack it reads", () => {
    let project: string;

    before(() => {
        project = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-plan-"));
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(project, "Pulumi.yaml"));
        fs.cpSync(fixtureModelDir("half_plus_two_cpu"), path.join(project, "m"), { recursive: true });
    });
    after(() => fs.rmSync(project, { recursive: true, force: true }));

    const writeStack = (name: string, text: string): void => fs.writeFileSync(path.join(project, `Pulumi.${name}.yaml`), text);

    it("takes a stack name as a name, never as a path", () => {
        for (const ok of ["dev", "prod-eu", "ci_2", "v1.2"]) {
            assert.strictEqual(stackNameProblem(ok), undefined, ok);
        }
        for (const bad of ["../../x", "a/b", ".hidden", "..", "", "a b", "x".repeat(101)]) {
            assert.match(stackNameProblem(bad) ?? "", /is not a stack name/, bad);
        }
        fs.writeFileSync(path.join(path.dirname(project), "Pulumi.outside.yaml"), "config: {}\n");
        try {
            assert.throws(() => stackConfig(project, "../Pulumi.outside"), (err: Error) => err instanceof PlanError && /--stack "\.\.\/Pulumi\.outside": is not a stack name/.test(err.message));
        } finally {
            fs.rmSync(path.join(path.dirname(project), "Pulumi.outside.yaml"));
        }
    });

    it("names the file, the line and the mistake for a YAML error, with the line itself", () => {
        writeStack("tab", "config:\n\ttf-serving:modelPath: m\n");
        assert.throws(() => stackConfig(project, "tab"), (err: Error) => err instanceof PlanError
            && err.message.startsWith(`${path.join(project, "Pulumi.tab.yaml")}, line 2: a tab indents this line`) && err.message.includes("\ttf-serving:modelPath: m"));
        writeStack("dup", "config:\n  tf-serving:replicas: 1\n  tf-serving:replicas: 2\n");
        assert.throws(() => stackConfig(project, "dup"), /Pulumi\.dup\.yaml, line 3: the key "tf-serving:replicas" appears twice/);
        writeStack("flow", "config:\n  tf-serving:versions: [1\n");
        assert.throws(() => stackConfig(project, "flow"), (err: Error) => err instanceof PlanError && /Pulumi\.flow\.yaml, line \d: .*fix the YAML syntax/.test(err.message));
    });

    it("reads merge keys and UTF-16 as Pulumi's Go YAML reader does", () => {
        writeStack("merge", "config:\n  tf-serving:modelPath: m\n  tf-serving:gateway:\n    <<: {className: traefik}\n    tlsSecretName: tls\n");
        assert.deepStrictEqual(JSON.parse(stackConfig(project, "merge").config["tf-serving:gateway"]), { className: "traefik", tlsSecretName: "tls" });
        const text = "config:\n  tf-serving:modelPath: m\n  tf-serving:replicas: 3\n";
        fs.writeFileSync(path.join(project, "Pulumi.le.yaml"), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
        fs.writeFileSync(path.join(project, "Pulumi.be.yaml"), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]));
        fs.writeFileSync(path.join(project, "Pulumi.bom8.yaml"), `\uFEFF${text}`);
        for (const name of ["le", "be", "bom8"]) {
            assert.strictEqual(stackConfig(project, name).config["tf-serving:replicas"], "3", name);
        }
        fs.writeFileSync(path.join(project, "Pulumi.nobom.yaml"), Buffer.from(text, "utf16le"));
        assert.throws(() => stackConfig(project, "nobom"), /Pulumi\.nobom\.yaml: holds NUL bytes, as UTF-16 text without a byte order mark does.*save it as UTF-8/);
    });

    // How the engine reads a stack file: gopkg.in/yaml.v3 into Go values (pulumi/pulumi sdk/go/common/workspace/loaders.go
    // LoadProjectStackBytes), each value handed to the program as its JSON text (sdk/go/common/resource/config/object.go
    // MarshalString). The values below are what Pulumi 3.277.0's `pulumi preview` handed a program that printed allConfig().
    it("hands the program what the engine hands it for 0x2, +2, 2.0, 1e1, True, FALSE, 0o17, yes, at the top and nested", () => {
        const engine: [string, string][] = [["0x2", "2"], ["+2", "2"], ["2.0", "2"], ["1e1", "10"], ["1.50", "1.5"], ["True", "true"], ["FALSE", "false"],
            ["0o17", "15"], ["09", "9"], ["yes", "yes"], ["off", "off"]];
        writeStack("engine", ["config:", ...engine.map(([v], i) => `  tf-serving:k${i}: ${v}`), `  tf-serving:nested: {${engine.map(([v], i) => `k${i}: ${v}`).join(", ")}}`, ""].join("\n"));
        const { config } = stackConfig(project, "engine");
        assert.deepStrictEqual(engine.map((_, i) => config[`tf-serving:k${i}`]), engine.map(([, text]) => text));
        // Nested: 2, 2, 2, 10, 1.5, true, false, 15, 9, "yes", "off" (the engine's JSON of the object).
        assert.deepStrictEqual(Object.values(JSON.parse(config["tf-serving:nested"])), [2, 2, 2, 10, 1.5, true, false, 15, 9, "yes", "off"]);
    });

    it("refuses scalars Pulumi reads otherwise than YAML 1.2 (010, 1_000, 0b101, a date, .inf), naming the line; quoted, they pass", () => {
        // Pulumi 3.277.0 handed the program 010 as "8", 1_000 as "1000", 0b101 as "5" and 2001-12-14 as
        // "2001-12-14 00:00:00 +0000 UTC", at the top and nested alike, and refused .inf ("json: unsupported value: +Inf").
        const cases: [string, RegExp][] = [
            ["tf-serving:autoscaling: {maxReplicas: 010}", /line 3: 010 is read two ways: .*octal \(010 is 8 to it\)/],
            ["tf-serving:replicas: 010", /line 3: 010 is read two ways: .*octal \(010 is 8 to it\)/],
            ["tf-serving:autoscaling: {maxReplicas: 1_000}", /line 3: 1_000 is read two ways: .*drops the '_'/],
            ["tf-serving:replicas: 0b10", /line 3: 0b10 is read two ways: .*binary/],
            ["tf-serving:modelName: 2001-12-14", /line 3: 2001-12-14 is read two ways: .*timestamp .*"2001-12-14 00:00:00 \+0000 UTC".*quote it/],
            ["tf-serving:canary: {gates: {maxErrorRatio: .inf}}", /line 3: \.inf is not a finite number: .*Pulumi refuses the stack file/],
            ["tf-serving:canary: {gates: {maxP99Ms: .NaN}}", /line 3: \.NaN is not a finite number/],
        ];
        cases.forEach(([line, message], i) => {
            writeStack(`amb${i}`, `config:\n  tf-serving:modelPath: m\n  ${line}\n`);
            assert.throws(() => stackConfig(project, `amb${i}`), (err: Error) => err instanceof PlanError && message.test(err.message) && err.message.includes(line), line);
        });
        writeStack("quoted", "config:\n  tf-serving:modelPath: m\n  tf-serving:monitoring: {labels: {team: \"yes\", id: \"010\", day: \"2001-12-14\"}}\n");
        assert.deepStrictEqual(JSON.parse(stackConfig(project, "quoted").config["tf-serving:monitoring"]).labels, { team: "yes", id: "010", day: "2001-12-14" });
    });

    it("namespaces a bare key with the project and hands an empty key as \"\", as the engine does", () => {
        // stackConfigNamespacedWithProject (pulumi/pulumi sdk/go/common/workspace/loaders.go); checkForEmptyConfig there: null is "".
        writeStack("bare", "config:\n  modelPath: m\n  replicas: 3\n  tf-serving:cpu:\n");
        const { config } = stackConfig(project, "bare");
        assert.strictEqual(config["tf-serving:replicas"], "3");
        assert.strictEqual(config["tf-serving:modelPath"], "m");
        assert.strictEqual(config["tf-serving:cpu"], "");
        assert.ok(!("replicas" in config));
        writeStack("twice", "config:\n  replicas: 3\n  tf-serving:replicas: 4\n");
        assert.throws(() => stackConfig(project, "twice"), /Pulumi\.twice\.yaml: replicas and tf-serving:replicas are the same key .*keep one/);
    });

    it("refuses a value of another type than Pulumi.yaml declares, with the engine's own words (True for an integer, yes for a boolean)", () => {
        // validateStackConfigValue (pulumi/pulumi pkg/workspace/config.go) with ValidateConfigValue (sdk/go/common/workspace/project.go);
        // Pulumi 3.277.0 stopped `replicas: True` and `gpu: yes` with these messages, and took `replicas: 0x2` and `gpu: True`.
        const cases: [string, RegExp][] = [
            ["tf-serving:replicas: True", /tf-serving:replicas = "true": Pulumi\.yaml declares replicas of type integer.*"Stack 'types0' with configuration key 'replicas' must be of type 'integer'"/],
            ["tf-serving:replicas: 2.5", /"2\.5": Pulumi\.yaml declares replicas of type integer/],
            ["tf-serving:gpu: yes", /tf-serving:gpu = "yes": .*must be of type 'boolean'.*write true or false/],
            ["tf-serving:gpu: 1", /tf-serving:gpu = "1": .*must be of type 'boolean'/],
            ["tf-serving:versions: 3", /tf-serving:versions = "3": .*must be of type 'array<integer>'/],
            ["tf-serving:versions: [1.5]", /must be of type 'array<integer>'/],
            ["tf-serving:extraServerArgs: [--a, 2]", /must be of type 'array<string>'/],
            ["tf-serving:cpu: {a: 1}", /must be of type 'string'/],
        ];
        cases.forEach(([line, message], i) => {
            writeStack(`types${i}`, `config:\n  tf-serving:modelPath: m\n  ${line}\n`);
            assert.throws(() => stackConfig(project, `types${i}`), (err: Error) => err instanceof PlanError && message.test(err.message), line);
        });
        writeStack("typesok", "config:\n  replicas: 0x2\n  tf-serving:gpu: True\n  tf-serving:cpu: 2\n  tf-serving:versions: [\"1\", 2]\n");
        const { config } = stackConfig(project, "typesok");
        assert.deepStrictEqual([config["tf-serving:replicas"], config["tf-serving:gpu"], config["tf-serving:cpu"]], ["2", "true", "2"]);
    });

    it("refuses a stack file that is not a mapping with a config mapping", () => {
        writeStack("list", "- tf-serving:modelPath: m\n");
        assert.throws(() => stackConfig(project, "list"), /Pulumi\.list\.yaml is not a stack file: it must be a YAML mapping with a "config:" mapping/);
        writeStack("scalar-config", "config: 5\n");
        assert.throws(() => stackConfig(project, "scalar-config"), /Pulumi\.scalar-config\.yaml is not a stack file/);
        writeStack("empty", "");
        assert.strictEqual(stackConfig(project, "empty").config["tf-serving:replicas"], "2");
    });

    it("stops on a configuration error with a PlanError, and leaves no promise rejected unhandled", async () => {
        writeStack("bad", "config:\n  tf-serving:modelPath: m\n  tf-serving:replicas: 0\n");
        const unhandled: unknown[] = [];
        const record = (reason: unknown): void => { unhandled.push(reason); };
        process.on("unhandledRejection", record);
        try {
            await assert.rejects(planStack(project, "bad"), (err: Error) => err instanceof PlanError && /tf-serving:replicas = "0": must be a whole number from 1 to 1000/.test(err.message));
            // Unhandled rejections are reported after the microtasks that could still handle them.
            await new Promise((resolve) => setTimeout(resolve, 100));
        } finally {
            process.off("unhandledRejection", record);
        }
        assert.deepStrictEqual(unhandled.map(String), []);
    });

    it("prints a top-level key's error once, not once per model that falls back to it (40 models)", async () => {
        const models = Array.from({ length: 40 }, (_, i) => `    - {name: m${i}, path: m}`);
        writeStack("forty", ["config:", "  tf-serving:cpu: lots", "  tf-serving:replicas: 0", "  tf-serving:serviceType: ClusterIP", "  tf-serving:models:", ...models, ""].join("\n"));
        await assert.rejects(planStack(project, "forty"), (err: Error) => {
            assert.ok(err instanceof PlanError, String(err));
            const lines = err.message.split("\n");
            assert.strictEqual(lines.filter((l) => l.includes("tf-serving:cpu")).length, 1, err.message);
            assert.strictEqual(lines.filter((l) => l.includes("tf-serving:replicas")).length, 1, err.message);
            assert.match(lines[0], /invalid configuration \(2 problems\)/);
            return true;
        });
    });

    it("stops on a kubeContext the stack's kubeconfig does not hold", async () => {
        fs.writeFileSync(path.join(project, "kube.yaml"), "apiVersion: v1\nkind: Config\ncontexts:\n- name: kind-dev\n  context: {cluster: kind-dev, user: kind-dev}\n");
        writeStack("context", "config:\n  tf-serving:modelPath: m\n  tf-serving:serviceType: ClusterIP\n  tf-serving:kubeconfig: kube.yaml\n  tf-serving:kubeContext: kind-prod\n");
        await assert.rejects(planStack(project, "context"), (err: Error) => err instanceof PlanError && /tf-serving:kubeContext = "kind-prod": is not a context of .*kube\.yaml\), which has "kind-dev"/.test(err.message));
    });

    it("stops on a staging error (the build folder cannot be made) with a PlanError, not an internal error", async () => {
        writeStack("blocked", "config:\n  tf-serving:modelPath: m\n  tf-serving:serviceType: ClusterIP\n");
        const tfs = path.join(project, ".tfs");
        fs.rmSync(tfs, { recursive: true, force: true });
        fs.writeFileSync(tfs, "a file where the build folder goes");
        try {
            await assert.rejects(planStack(project, "blocked"), (err: Error) => err instanceof PlanError && /cannot create the output folder .*\.tfs\/build\/blocked\/m: .*\.tfs is a file, not a folder/.test(err.message));
        } finally {
            fs.rmSync(tfs);
        }
    });
});
