/**
 * `tfs` as a user of an existing cluster installs it: the packed command and library (`npm run
 * packages`) installed with `npm install`, offline, into a folder outside the repository, from a
 * lockfile cut from the repository's (so npm needs only its cache), then run through `npx` and the
 * installed bin. The cloud SDKs are the command's optional peers: such a user installs neither
 * `@pulumi/gcp` nor `@pulumi/aws`, and plans, preflights and runs a `ModelServer` program without them.
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
const MODEL_DIR = fixtureModelDir("half_plus_two_cpu");

/** Bytes on disk under `dir`, as `du` counts them. */
function duBytes(dir: string): number {
    return Number(execFileSync("du", ["-sk", dir], { encoding: "utf8" }).split("\t")[0]) * 1024;
}

/** Every `.js` file under `dir`. */
function jsFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? jsFiles(path.join(dir, e.name)) : e.name.endsWith(".js") ? [path.join(dir, e.name)] : []);
}

/**
 * A program of the user's own, in plain JavaScript: a `ModelServer` from the library's main entry on
 * the user's cluster, run under Pulumi's mocks; prints what it registered and which optional
 * packages it loaded.
 */
const PROGRAM = `const pulumi = require("@pulumi/pulumi");
const registered = [];
pulumi.runtime.setMocks({
    newResource: (args) => { registered.push(args.type); return { id: args.name + "-id", state: args.inputs }; },
    call: () => ({}),
}, "user", "dev", false).then(async () => {
    const k8s = require("@pulumi/kubernetes");
    const { ModelServer, preflight } = require("tf-serving");
    const report = preflight(process.argv[2]);
    const provider = new k8s.Provider("cluster", { context: "my-cluster" });
    const server = new ModelServer("half-plus-two", {
        model: { name: "half-plus-two", versionBytes: report.versions.filter((v) => v.served).map((v) => v.sizeBytes) },
        namespace: "serving", image: "registry.example.test/half-plus-two@sha256:" + "ab".repeat(32), resources: { cpu: "1" }, serviceType: "ClusterIP",
    }, { provider });
    // Registrations arrive asynchronously: wait until they stop (as test/consumer/underMocks.ts does).
    for (let seen = -1, i = 0; seen !== registered.length && i < 100; i++) {
        seen = registered.length;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const loaded = Object.keys(require.cache).filter((f) => /node_modules\\/(@pulumi\\/(aws|gcp)|@kubernetes\\/client-node)\\//.test(f));
    console.log(JSON.stringify({ registered: registered.sort(), memoryRequest: server.sizing.memoryRequest, loaded }));
});
`;

describe("the tfs command installed from its package, for a user of an existing cluster", function () {
    this.timeout(600_000);
    let work: string;
    let user: string;
    let library: PackedPackage;
    let cli: PackedPackage;

    before(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-cli-"));
        assert.ok(path.relative(ROOT, work).startsWith(".."), `${work} must be outside the repository`);
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
        execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund"], { cwd: user, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
        console.log(`      (tarballs: ${path.basename(library.tarball)} ${library.size} bytes, ${path.basename(cli.tarball)} ${cli.size} bytes; ` +
            `the user's node_modules ${(duBytes(path.join(user, "node_modules")) / 2 ** 20).toFixed(0)} MiB on disk)`);
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    const tfs = (file: string, args: string[], cwd = user) => spawnSync(file, args, {
        cwd, encoding: "utf8", timeout: 120_000,
        // No checkout to fall back on, and no network: npx must find the installed bin.
        env: { ...process.env, npm_config_offline: "true" },
    });
    const bin = () => path.join(user, "node_modules", ".bin", "tfs");

    it("packs compiled files only, with its bin and licence, and none of the library's files", () => {
        assert.ok(cli.files.includes("bin/tfs.js") && cli.files.includes("dist/cli/main.js") && cli.files.includes("LICENSE"), cli.files.join(" "));
        assert.deepStrictEqual(cli.files.filter((f) => f.endsWith(".ts")), []);
        assert.deepStrictEqual(cli.files.filter((f) => f.startsWith("dist/") && library.files.includes(f)), [], "one copy of each module: the library's");
        assert.ok(cli.files.includes("dist/config/config.js") && cli.files.includes("dist/components/clouds/registry.js"),
            "the config layer and the clouds' rules are the command's");
    });

    it("requires the library only through its command entry, at the library's exact version", () => {
        const installed = path.join(user, "node_modules", "tf-serving-cli");
        const specifiers = jsFiles(path.join(installed, "dist")).flatMap((f) =>
            [...fs.readFileSync(f, "utf8").matchAll(/\brequire\("(tf-serving(?:\/[^"]*)?)"\)/g)].map((m) => m[1]));
        assert.ok(specifiers.length > 0);
        assert.deepStrictEqual([...new Set(specifiers)], ["tf-serving/command"]);
        const manifest = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8"));
        assert.strictEqual(manifest.dependencies["tf-serving"], library.version);
        assert.strictEqual(manifest.license, "Apache-2.0");
        assert.match(fs.readFileSync(path.join(installed, "LICENSE"), "utf8"), /^\s*Apache License\s+Version 2\.0, January 2004/);
    });

    it("installs no cloud SDK: @pulumi/aws and @pulumi/gcp are optional peers", () => {
        const manifest = JSON.parse(fs.readFileSync(path.join(user, "node_modules", "tf-serving-cli", "package.json"), "utf8"));
        assert.deepStrictEqual(manifest.peerDependenciesMeta, { "@pulumi/aws": { optional: true }, "@pulumi/gcp": { optional: true } });
        const sdks = fs.readdirSync(path.join(user, "node_modules", "@pulumi"));
        assert.ok(sdks.includes("pulumi") && sdks.includes("kubernetes"), sdks.join(" "));
        assert.deepStrictEqual(sdks.filter((s) => s === "aws" || s === "gcp"), []);
        const nested = execFileSync("find", [path.join(user, "node_modules"), "-type", "d", "(", "-path", "*/@pulumi/aws", "-o", "-path", "*/@pulumi/gcp", ")"], { encoding: "utf8" });
        assert.strictEqual(nested.trim(), "", "no copy of either anywhere in the tree");
    });

    it("prints the command's version", () => {
        const result = tfs(bin(), ["--version"]);
        assert.strictEqual(result.status, 0, result.stderr);
        assert.strictEqual(result.stdout, `${cli.version}\n`);
        assert.match(cli.version, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
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

    it("preflights a model with the installed bin, the components from the library package", () => {
        const result = tfs(bin(), ["preflight", MODEL_DIR, "--json"]);
        assert.strictEqual(result.status, 0, result.stderr);
        assert.strictEqual(JSON.parse(result.stdout).ok, true);
        // The preflight's modules are the library's: the command holds none of them (it holds only what the library does not ship).
        const installed = path.join(user, "node_modules", "tf-serving-cli", "dist", "serving");
        const copies = fs.existsSync(installed) ? fs.readdirSync(installed).filter((f) => library.files.includes(`dist/serving/${f}`)) : [];
        assert.deepStrictEqual(copies, [], "the command has no copy of the library's modules");
        assert.ok(fs.existsSync(path.join(user, "node_modules", "tf-serving", "dist", "serving", "images.js")));
    });

    it("plans a stack on an existing cluster without the cloud SDKs, and names the one a GKE stack needs", () => {
        const project = path.join(user, "project");
        fs.mkdirSync(path.join(project, "models"), { recursive: true });
        fs.cpSync(MODEL_DIR, path.join(project, "models", "half_plus_two"), { recursive: true });
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(project, "Pulumi.yaml"));
        const stack = (cloud: string) => [
            "config:", `  tf-serving:cloud: ${cloud}`, "  tf-serving:modelPath: models/half_plus_two",
            "  tf-serving:loadBalancerSourceRanges:", "    - 10.0.0.0/8", "  tf-serving:registry:", "    server: localhost:5001", "",
        ].join("\n");
        fs.writeFileSync(path.join(project, "Pulumi.dev.yaml"), stack("local"));
        fs.writeFileSync(path.join(project, "Pulumi.gke.yaml"), stack("gcp").replace(/ {2}tf-serving:registry:\n.*\n/, ""));

        const planned = tfs(bin(), ["plan", "--stack", "dev", "--json"], project);
        assert.strictEqual(planned.status, 0, planned.stderr);
        const types = (JSON.parse(planned.stdout) as { resources: { type: string }[] }).resources.map((r) => r.type);
        assert.ok(types.includes("tf-serving:index:ModelServer") && types.includes("kubernetes:apps/v1:Deployment"), types.join(" "));

        const gke = tfs(bin(), ["plan", "--stack", "gke"], project);
        assert.strictEqual(gke.status, 1, gke.stdout + gke.stderr);
        assert.match(gke.stderr, /tf-serving:cloud = "gcp": needs the @pulumi\/gcp package, which is not installed.*`npm install @pulumi\/gcp`/);
    });

    it("runs a program of the user's own with ModelServer under Pulumi's mocks, loading no optional SDK", () => {
        fs.writeFileSync(path.join(user, "program.js"), PROGRAM);
        const result = spawnSync(process.execPath, ["program.js", MODEL_DIR], { cwd: user, encoding: "utf8", timeout: 120_000 });
        assert.strictEqual(result.status, 0, result.stderr);
        const { registered, memoryRequest, loaded } = JSON.parse(result.stdout.trim().split("\n").pop() as string);
        assert.ok(registered.includes("tf-serving:index:ModelServer") && registered.includes("kubernetes:apps/v1:Deployment"), registered.join(" "));
        assert.match(memoryRequest, /^\d+Mi$/);
        assert.deepStrictEqual(loaded, [], "the main entry loads neither a cloud SDK nor the canary's client");
    });
});
