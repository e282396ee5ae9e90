/**
 * `tfs plan` outside this repository: it plans this project's program only, so a project whose
 * Pulumi.yaml runs a program of its own (a user's index.ts that uses the library, a YAML program) is
 * refused in one line that names `pulumi preview`, instead of planning resources that program never declares.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PlanError, planStack } from "../../../ops/plan";
import { foreignProgramProblem, programEntry } from "../../../ops/projectProgram";

const ROOT = path.resolve(__dirname, "../../..");

/** A library user's program, as the library's docs show one. */
const USER_PROGRAM = 'import { ModelServer } from "tf-serving/model-server";\n\nnew ModelServer("half-plus-two", { model: "half-plus-two", modelPath: "./models/half_plus_two" });\n';

describe("tfs plan: whose program it plans", () => {
    let dir: string;

    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-own-program-"));
        fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  my-app:replicas: 2\n");
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const project = (pulumiYaml: string, files: Record<string, string> = {}): void => {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), pulumiYaml);
        for (const [name, text] of Object.entries(files)) {
            fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
            fs.writeFileSync(path.join(dir, name), text);
        }
    };

    it("refuses a Node.js project whose index.ts is the user's own, in one line naming pulumi preview, and plans nothing", async () => {
        project("name: my-app\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n", { "index.ts": USER_PROGRAM });
        await assert.rejects(planStack(dir, "dev"), (err: Error) => err instanceof PlanError && !err.message.includes("\n")
            && err.message.startsWith(`${path.join(dir, "Pulumi.yaml")} runs its own program (index.ts), and tfs plan plans only this project's program`)
            && err.message.includes("`pulumi preview --stack dev`") && err.message.includes("docs/reference/cli.md#tfs-plan-outside-this-repository"));
        assert.ok(!fs.existsSync(path.join(dir, ".tfs")), "nothing was staged");
    });

    it("finds the entry as Pulumi's Node.js host does: main, else package.json's main, else index", () => {
        project("name: my-app\nruntime: nodejs\n", { "package.json": '{"main": "lib/main.js"}', "lib/main.js": "require('@pulumi/pulumi');\n" });
        assert.strictEqual(programEntry(dir, undefined), path.join(dir, "lib", "main.js"));
        assert.match(foreignProgramProblem(dir, { runtime: "nodejs" }, "dev") ?? "", /runs its own program \(lib\/main\.js\)/);
        fs.rmSync(path.join(dir, "package.json"));
        fs.writeFileSync(path.join(dir, "index.js"), USER_PROGRAM);
        assert.strictEqual(programEntry(dir, undefined), path.join(dir, "index.js"));
        assert.strictEqual(programEntry(dir, "src"), path.join(dir, "src"));
    });

    it("refuses a YAML or Python program", () => {
        assert.match(foreignProgramProblem(dir, { runtime: "yaml" }, "dev") ?? "", /runs a yaml program, and tfs plan plans only this project's program .*pulumi preview --stack dev/);
        assert.match(foreignProgramProblem(dir, { runtime: { name: "python" } }, "prod") ?? "", /runs a python program.*--stack prod/);
    });

    it("plans this repository, a checkout of it, and a folder holding only its Pulumi.yaml and a stack file", () => {
        const ours = fs.readFileSync(path.join(ROOT, "Pulumi.yaml"), "utf8");
        assert.strictEqual(foreignProgramProblem(ROOT, { runtime: { name: "nodejs" }, main: "index.ts" }, "dev"), undefined);
        project(ours);
        assert.strictEqual(foreignProgramProblem(dir, { runtime: { name: "nodejs" }, main: "index.ts" }, "dev"), undefined, "no entry of its own");
        fs.writeFileSync(path.join(dir, "index.ts"), fs.readFileSync(path.join(ROOT, "index.ts")));
        assert.strictEqual(foreignProgramProblem(dir, { runtime: { name: "nodejs" }, main: "index.ts" }, "dev"), undefined, "a checkout's own index.ts");
    });
});
