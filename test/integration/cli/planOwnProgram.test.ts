/** `tfs plan` run in a library user's project folder: one line on stderr naming `pulumi preview`, exit 1, no plan. */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { runTfs } from "../../support/mistakes";

describe("tfs plan in a project with its own program", () => {
    let dir: string;

    before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-own-program-cli-"));
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: my-app\nruntime: nodejs\nmain: index.ts\n");
        fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  my-app:replicas: 2\n");
        fs.writeFileSync(path.join(dir, "index.ts"), 'import { ModelServer } from "tf-serving/model-server";\n\nnew ModelServer("m", { model: "m", modelPath: "./m" });\n');
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("exits 1 with one line on stderr and nothing on stdout", async function () {
        this.timeout(60_000);
        const run = await runTfs(["plan", "--stack", "dev"], dir);
        assert.strictEqual(run.status, 1, run.stderr);
        assert.strictEqual(run.stdout, "");
        assert.strictEqual(run.stderr.trim().split("\n").length, 1, run.stderr);
        assert.match(run.stderr, /plan for stack "dev" stopped: .*runs its own program \(index\.ts\), and tfs plan plans only this project's program.*pulumi preview --stack dev/);
    });
});
