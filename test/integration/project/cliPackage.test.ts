/**
 * `tfs` as a user installs it: the packed command and library (`npm run packages`) installed offline
 * into a folder outside the repository, from a lockfile cut from the repository's (so npm needs
 * only its cache), then run through `npx` and the installed bin.
 */
import * as assert from "assert";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PackedPackage, pack } from "../../../tools/pack/main";
import { writeConsumer } from "../../support/consumerProject";
import { fixtureModelDir } from "../../support/fixtures";

const ROOT = path.resolve(__dirname, "../../..");
const COMMANDS = ["build-context", "deploy", "doctor", "plan", "preflight", "smoke", "warmup"];

describe("the tfs command installed from its package", function () {
    this.timeout(600_000);
    let work: string;
    let user: string;
    let cli: PackedPackage;

    before(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-cli-"));
        assert.ok(path.relative(ROOT, work).startsWith(".."), `${work} must be outside the repository`);
        let library: PackedPackage;
        [library, cli] = pack(ROOT, path.join(work, "packages"));
        user = path.join(work, "user");
        const source = path.join(work, "user-source");
        fs.mkdirSync(user);
        fs.mkdirSync(source);
        fs.writeFileSync(path.join(source, "package.json"), `${JSON.stringify({
            name: "tfs-user", version: "0.0.0", private: true,
            dependencies: { "tf-serving": "file:tf-serving.tgz", "tf-serving-cli": "file:tf-serving-cli.tgz" },
        }, null, 2)}\n`);
        writeConsumer(user, source, ROOT, { "tf-serving": library, "tf-serving-cli": cli });
        execFileSync("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: user, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    const tfs = (file: string, args: string[]) => spawnSync(file, args, {
        cwd: user, encoding: "utf8", timeout: 120_000,
        // No checkout to fall back on, and no network: npx must find the installed bin.
        env: { ...process.env, npm_config_offline: "true" },
    });

    it("packs compiled files only, with its bin, and no library folder of its own", () => {
        assert.ok(cli.files.includes("bin/tfs.js") && cli.files.includes("dist/cli/main.js"), cli.files.join(" "));
        assert.deepStrictEqual(cli.files.filter((f) => f.endsWith(".ts")), []);
        assert.deepStrictEqual(cli.files.filter((f) => /^dist\/(components|serving|model|contract|observability|lib)\//.test(f)), []);
    });

    it("answers --help through npx, listing every command", () => {
        const result = tfs("npx", ["tfs", "--help"]);
        assert.strictEqual(result.status, 0, result.stderr);
        assert.match(result.stdout, /^Usage: tfs \[options\] \[command\]/m);
        assert.match(result.stdout, /Take a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes/);
        for (const command of COMMANDS) {
            assert.match(result.stdout, new RegExp(`^\\s+${command}\\b`, "m"), `${command} missing from:\n${result.stdout}`);
        }
    });

    it("runs the installed bin from the compiled files, the components from the library package", () => {
        const bin = path.join(user, "node_modules", ".bin", "tfs");
        const result = tfs(bin, ["preflight", fixtureModelDir("half_plus_two_cpu"), "--json"]);
        assert.strictEqual(result.status, 0, result.stderr);
        assert.strictEqual(JSON.parse(result.stdout).ok, true);
        assert.ok(!fs.existsSync(path.join(user, "node_modules", "tf-serving-cli", "dist", "serving")), "the command has no copy of the library");
    });
});
