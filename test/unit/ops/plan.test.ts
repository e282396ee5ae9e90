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

    it("refuses scalars Pulumi reads otherwise than YAML 1.2 (010, 1_000, yes, .inf), naming the line; quoted, they pass", () => {
        const cases: [string, RegExp][] = [
            ["tf-serving:autoscaling: {maxReplicas: 010}", /line 3: 010 is read two ways: .*octal .*\(010 is 8 there\)/],
            ["tf-serving:replicas: 010", /line 3: 010 is read two ways/],
            ["tf-serving:autoscaling: {maxReplicas: 1_000}", /line 3: 1_000 is read two ways: .*drops the '_'/],
            ["tf-serving:monitoring: {collector: none, labels: {team: yes}}", /line 3: yes is true or false to YAML 1\.1/],
            ["tf-serving:canary: {gates: {maxErrorRatio: .inf}}", /line 3: \.inf is not a finite number: .*would silently take its default/],
            ["tf-serving:canary: {gates: {maxP99Ms: .NaN}}", /line 3: \.NaN is not a finite number/],
        ];
        cases.forEach(([line, message], i) => {
            writeStack(`amb${i}`, `config:\n  tf-serving:modelPath: m\n  ${line}\n`);
            assert.throws(() => stackConfig(project, `amb${i}`), (err: Error) => err instanceof PlanError && message.test(err.message) && err.message.includes(line), line);
        });
        writeStack("quoted", "config:\n  tf-serving:modelPath: m\n  tf-serving:monitoring: {labels: {team: \"yes\", id: \"010\"}}\n");
        assert.deepStrictEqual(JSON.parse(stackConfig(project, "quoted").config["tf-serving:monitoring"]).labels, { team: "yes", id: "010" });
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
