/**
 * The library as another Pulumi program gets it: `npm run packages` (tools/pack/main.ts: compiles,
 * writes the library's package.json, runs `npm pack` on it), the tarball installed offline into a
 * consumer project (`test/consumer/`) outside the repository, its program type-checked against the
 * shipped declarations (TypeScript 5, the repository's, and 6; Pulumi's template resolution `node`
 * and `node16`) and run under Pulumi's mocks with the consumer's own SDK.
 */
import * as assert from "assert";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PackedPackage, pack } from "../../tools/pack/main";
import { COMMAND_ONLY_FOLDERS } from "../../tools/pack/manifest";
import { writeConsumer } from "../support/consumerProject";
import { fixtureModelDir } from "../support/fixtures";
import { TYPESCRIPT_6, installTypescript6 } from "../support/typescript6";

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, "../..");
const ENTRY_POINTS = ["components", "eks", "gke", "modelImage", "modelServer", "preflight", "sizing"];
const MODEL_DIR = fixtureModelDir("half_plus_two_cpu");

interface Registered { type: string; name: string; inputs: any; provider?: string }

/** Bytes on disk under `dir`, as `du` counts them. */
function duBytes(dir: string): number {
    return Number(execFileSync("du", ["-sk", dir], { encoding: "utf8" }).split("\t")[0]) * 1024;
}

function treeBytes(dir: string): number {
    return fs.readdirSync(dir, { withFileTypes: true })
        .reduce((sum, e) => sum + (e.isDirectory() ? treeBytes(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size), 0);
}

describe("the packed library in another Pulumi program", function () {
    this.timeout(600_000);
    let work: string;
    let consumer: string;
    let library: PackedPackage;

    const run = (file: string, args: string[], cwd: string) => execFileSync(file, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 180_000 });
    const underMocks = (mode: string) => JSON.parse(run(process.execPath, [path.join("bin", "underMocks.js"), mode, MODEL_DIR], consumer));
    /** `tsc -p PROJECT` in the consumer, the exit code and what it printed. */
    const typeCheck = (tsc: string, project: string) => {
        const result = spawnSync(process.execPath, [tsc, "-p", project, "--noEmit"], { cwd: consumer, encoding: "utf8", timeout: 180_000 });
        return { status: result.status, output: `${result.stdout}${result.stderr}` };
    };
    /** A tsconfig beside the consumer's (Pulumi's template: module commonjs, moduleResolution node) with `options` over it. */
    const variant = (name: string, options: Record<string, unknown>) => {
        fs.writeFileSync(path.join(consumer, name), JSON.stringify({ extends: "./tsconfig.json", compilerOptions: options }));
        return name;
    };

    before(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-library-"));
        assert.ok(path.relative(ROOT, work).startsWith(".."), `${work} must be outside the repository`);
        [library] = pack(ROOT, path.join(work, "packages"));
        consumer = path.join(work, "consumer");
        fs.mkdirSync(consumer);
        writeConsumer(consumer, path.join(ROOT, "test", "consumer"), ROOT, { "tf-serving": library });
        run("npm", ["install", "--offline", "--no-audit", "--no-fund"], consumer);
        // The repository's TypeScript, resolving the consumer's modules as Pulumi's template does (moduleResolution node:
        // the main entry's `types`, the others' typesVersions); the program it writes is what the tests below run.
        run(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "."], consumer);
        console.log(`      (library ${library.version}: tarball ${library.size} bytes, ${library.files.length} files; ` +
            `the consumer's node_modules ${(duBytes(path.join(consumer, "node_modules")) / 2 ** 20).toFixed(0)} MiB on disk)`);
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    it("packs the built library and what a consumer needs, nothing of the project", () => {
        const files = library.files;
        for (const entry of ENTRY_POINTS) {
            assert.ok(files.includes(`dist/lib/${entry}.js`) && files.includes(`dist/lib/${entry}.d.ts`), `entry point ${entry} missing: ${files.join(" ")}`);
        }
        assert.deepStrictEqual(files.filter((f) => !f.startsWith("dist/")), ["CHANGELOG.md", "LICENSE", "PulumiPlugin.yaml", "README.md", "package.json", "tsconfig.json"]);
        assert.ok(files.includes("dist/lib/index.js") && files.includes("dist/lib/index.d.ts"), "the main entry");
        assert.deepStrictEqual(files.filter((f) => /(^|\/)(test|\.tfs|stacks|ops|cli|policy|bench|bin)\//.test(f)), []);
        assert.deepStrictEqual(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !f.startsWith("dist/facade/")), [],
            "sources stay out (but the facade's, for Pulumi's schema analyzer); declarations go in");
        assert.ok(!files.includes("index.ts"), "the project's program is not part of the library");
    });

    it("holds no command code, no config layer, and depends on no gRPC package", () => {
        const commandOnly = new RegExp(`^dist/(${COMMAND_ONLY_FOLDERS.join("|")})/`);
        assert.deepStrictEqual(library.files.filter((f) => commandOnly.test(f) || f.startsWith("bin/")), []);
        assert.deepStrictEqual(library.files.filter((f) => /^dist\/components\/clouds\/(registry|cloud|[a-z]+\/(about|cloud|config|providerRules|liveChanges))\./.test(f)), [],
            "each cloud's config rules are the command's, not the library's");
        const manifest = JSON.parse(fs.readFileSync(path.join(library.dir, "package.json"), "utf8"));
        assert.strictEqual(manifest.bin, undefined, "the library installs no command");
        assert.strictEqual(manifest.private, undefined);
        const named = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
        assert.deepStrictEqual(named.filter((n) => n.startsWith("@grpc/") || n === "commander"), [], named.join(" "));
        for (const peer of ["@pulumi/pulumi", "@pulumi/kubernetes", "@pulumi/docker", "@pulumi/gcp", "@pulumi/aws"]) {
            assert.ok(manifest.peerDependencies[peer] !== undefined && manifest.dependencies[peer] === undefined, `${peer} is a peer, not a dependency`);
        }
        const grpcRequires = library.files.filter((f) => f.endsWith(".js"))
            .filter((f) => fs.readFileSync(path.join(library.dir, f), "utf8").includes("@grpc/grpc-js"));
        assert.deepStrictEqual(grpcRequires, []);
    });

    it("is an Apache-2.0 package that says where it comes from, with a main entry and no path into its files", () => {
        const manifest = JSON.parse(fs.readFileSync(path.join(consumer, "node_modules", "tf-serving", "package.json"), "utf8"));
        assert.strictEqual(manifest.license, "Apache-2.0");
        assert.match(fs.readFileSync(path.join(consumer, "node_modules", "tf-serving", "LICENSE"), "utf8"), /^\s*Apache License\s+Version 2\.0, January 2004/);
        assert.strictEqual(fs.readFileSync(path.join(consumer, "node_modules", "tf-serving", "LICENSE"), "utf8"), fs.readFileSync(path.join(ROOT, "LICENSE"), "utf8"));
        for (const key of ["repository", "homepage", "bugs", "keywords"]) {
            assert.ok(manifest[key] !== undefined, `${key} missing`);
        }
        assert.deepStrictEqual(manifest.exports["."], { types: "./dist/lib/index.d.ts", default: "./dist/lib/index.js" });
        assert.deepStrictEqual(Object.keys(manifest.exports).filter((k: string) => k.includes("*") || k.includes("internal")), []);
        assert.strictEqual(manifest.exports["./command"], "./dist/lib/command.js", "the tfs command's entry, without types");
    });

    it("brings no command and suggests none: the command is the tf-serving-cli package", () => {
        assert.ok(!fs.existsSync(path.join(consumer, "node_modules", ".bin", "tfs")), "npx tfs must find no tfs of the library's");
        const readme = fs.readFileSync(path.join(consumer, "node_modules", "tf-serving", "README.md"), "utf8");
        assert.doesNotMatch(readme, /\btfs\b|npm run pack\b/, readme);
        assert.match(readme, /tf-serving-cli/);
    });

    it("installs no @kubernetes/client-node for a program without a canary, and refuses a canary at preview without it", () => {
        assert.ok(!fs.existsSync(path.join(consumer, "node_modules", "@kubernetes", "client-node")));
        const manifest = JSON.parse(fs.readFileSync(path.join(library.dir, "package.json"), "utf8"));
        assert.deepStrictEqual([manifest.dependencies["@kubernetes/client-node"], manifest.peerDependenciesMeta["@kubernetes/client-node"]], [undefined, { optional: true }]);
        const { registered, refusal } = underMocks("canary");
        assert.strictEqual(refusal?.runError, true, JSON.stringify(refusal));
        assert.match(refusal.message, /^ModelServer m: canary needs the @kubernetes\/client-node package, which is not installed.*npm install @kubernetes\/client-node/);
        const serverKinds = /^(tf-serving:index:ModelServer|kubernetes:(apps|core|policy|autoscaling|networking\.k8s\.io)\/)/;
        assert.deepStrictEqual(registered.filter((r: Registered) => serverKinds.test(r.type)).map((r: Registered) => `${r.type} ${r.name}`), [],
            "the refused ModelServer registered nothing");
    });

    it("type-checks with TypeScript 5 through the main entry and the subpaths, as moduleResolution node, node16 and nodenext read them", () => {
        // tsconfig.json (moduleResolution node) compiled the program before these tests.
        const tsc = require.resolve("typescript/bin/tsc");
        for (const project of [variant("tsconfig.node16.json", { module: "node16", moduleResolution: "node16" }),
            variant("tsconfig.nodenext.json", { module: "nodenext", moduleResolution: "nodenext" })]) {
            const result = typeCheck(tsc, project);
            assert.strictEqual(result.status, 0, `${project}:\n${result.output}`);
        }
        assert.match(fs.readFileSync(path.join(consumer, "index.ts"), "utf8"), /from "tf-serving";/, "the program imports the main entry");
    });

    it(`type-checks with TypeScript ${TYPESCRIPT_6}: node16 and nodenext as they are, Pulumi's moduleResolution node with ignoreDeprecations "6.0"`, () => {
        const tsc = installTypescript6(path.join(work, "typescript-6"));
        const entries = { files: ["entries.ts"] };
        const project = (name: string, options: Record<string, unknown>) => {
            fs.writeFileSync(path.join(consumer, name), JSON.stringify({ extends: "./tsconfig.json", compilerOptions: options, ...entries }));
            return name;
        };
        const deprecated = typeCheck(tsc, project("tsconfig.ts6-node.json", {}));
        assert.strictEqual(deprecated.status, 2, deprecated.output);
        assert.match(deprecated.output, /error TS5107: Option 'moduleResolution=node10' is deprecated/, "what docs/reference/library.md says TypeScript 6 does");
        for (const name of [project("tsconfig.ts6.json", { ignoreDeprecations: "6.0" }), project("tsconfig.ts6-node16.json", { module: "node16", moduleResolution: "node16" }),
            project("tsconfig.ts6-nodenext.json", { module: "nodenext", moduleResolution: "nodenext" })]) {
            const result = typeCheck(tsc, name);
            assert.strictEqual(result.status, 0, `${name}:\n${result.output}`);
        }
        const refused = typeCheck(require.resolve("typescript/bin/tsc"), "tsconfig.ts6.json");
        assert.match(refused.output, /error TS5103: Invalid value for '--ignoreDeprecations'/, "TypeScript 5 refuses the setting: node16 is the one both take");
    });

    it("installs one @pulumi/pulumi, the consumer's, shared with the library", () => {
        const fromLibrary = require.resolve("@pulumi/pulumi/package.json", { paths: [path.join(consumer, "node_modules", "tf-serving", "dist", "lib")] });
        assert.strictEqual(fromLibrary, path.join(consumer, "node_modules", "@pulumi", "pulumi", "package.json"));
        assert.ok(!fs.existsSync(path.join(consumer, "node_modules", "tf-serving", "node_modules", "@pulumi")), "the library brings no SDK of its own");
    });

    it("registers nothing when its entry points are imported; preflight and sizing load no Pulumi SDK, the main entry, model-server and model-image no optional one", () => {
        const result = underMocks("imports");
        assert.deepStrictEqual(result.registered, []);
        assert.deepStrictEqual(result.pureLoaded, []);
        assert.deepStrictEqual(result.optionalLoaded, [], "@pulumi/gcp, @pulumi/aws and @kubernetes/client-node are optional peers: only gke, eks, components and a canary need them");
        assert.strictEqual(result.preflightOk, true);
        assert.match(result.memoryLimit, /^\d+Mi$/);
        for (const entry of ["tf-serving", "tf-serving/model-server", "tf-serving/model-image", "tf-serving/gke", "tf-serving/eks", "tf-serving/components"]) {
            assert.match(result.entries[entry], /^exports \d+$/, entry);
        }
    });

    it("builds a GkeCluster and an EksCluster from their required fields alone, with the stack configuration's defaults", () => {
        const { registered, outputs } = underMocks("clusters") as { registered: Registered[]; outputs: any };
        const one = (type: string) => {
            const found = registered.filter((r) => r.type === type);
            assert.strictEqual(found.length, 1, `${type}: ${found.length} registered`);
            return found[0].inputs;
        };
        const gke = one("gcp:container/cluster:Cluster");
        assert.deepStrictEqual([gke.name, gke.releaseChannel, gke.deletionProtection, gke.privateClusterConfig],
            ["team", { channel: "REGULAR" }, true, { enablePrivateNodes: false }]);
        assert.strictEqual(one("gcp:compute/subnetwork:Subnetwork").ipCidrRange, "10.0.0.0/20");
        const eks = one("aws:eks/cluster:Cluster");
        assert.deepStrictEqual([eks.name, eks.deletionProtection, eks.vpcConfig.publicAccessCidrs], ["team", true, ["0.0.0.0/0"]]);
        assert.deepStrictEqual([outputs.gkeClusterName, outputs.eksClusterName], ["team", "team"]);
    });

    it("deploys a ModelImage and a ModelServer through the consumer's own provider", () => {
        const { registered, outputs } = underMocks("program") as { registered: Registered[]; outputs: any };
        const types = registered.map((r) => r.type).sort();
        assert.deepStrictEqual(types, [
            "docker:index/image:Image",
            "kubernetes:apps/v1:Deployment", "kubernetes:core/v1:ConfigMap", "kubernetes:core/v1:Namespace", "kubernetes:core/v1:Service",
            "kubernetes:core/v1:ServiceAccount", "kubernetes:networking.k8s.io/v1:NetworkPolicy", "kubernetes:policy/v1:PodDisruptionBudget",
            "pulumi:providers:kubernetes",
            "tf-serving:index:ModelImage", "tf-serving:index:ModelServer",
        ]);
        const provider = registered.find((r) => r.type === "pulumi:providers:kubernetes")!;
        assert.strictEqual(provider.name, "cluster");
        for (const r of registered.filter((x) => x.type.startsWith("kubernetes:"))) {
            assert.match(r.provider ?? "", /::cluster::cluster-id$/, `${r.type} ${r.name} must run through the consumer's provider`);
        }

        const image = registered.find((r) => r.type === "docker:index/image:Image")!;
        assert.match(image.inputs.imageName, /^registry\.example\.test:5000\/models\/half-plus-two:ctx-[0-9a-f]{16}$/);
        assert.deepStrictEqual(image.inputs.build, { context: ".tfs/build/half-plus-two", dockerfile: ".tfs/build/half-plus-two/Dockerfile", platform: "linux/amd64" });

        const deployment = registered.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs;
        const [container] = deployment.spec.template.spec.containers;
        assert.strictEqual(container.image, `registry.example.test:5000/models/half-plus-two@sha256:${"ab".repeat(32)}`);
        assert.strictEqual(deployment.metadata.namespace, "serving");
        assert.strictEqual(deployment.spec.replicas, 3);
        assert.deepStrictEqual(deployment.spec.strategy.rollingUpdate, { maxUnavailable: 0, maxSurge: 1 });
        assert.deepStrictEqual([container.resources.limits.cpu, container.resources.limits.memory], ["2", "1Gi"]);
        assert.strictEqual(container.resources.requests.memory, outputs.memoryRequest);
        assert.ok(container.args.includes("--tensorflow_intra_op_parallelism=2"), container.args.join(" "));
        assert.strictEqual(deployment.spec.template.metadata.annotations["tf-serving.dev/model-bytes"], String(treeBytes(path.join(MODEL_DIR, "00000123"))),
            "the served version's size on disk is recorded on the pods");

        const service = registered.find((r) => r.type === "kubernetes:core/v1:Service")!.inputs;
        assert.deepStrictEqual(service.spec.loadBalancerSourceRanges, ["203.0.113.0/24"]);
        assert.strictEqual(outputs.modelStatusUrl, "http://198.51.100.20:8501/v1/models/half-plus-two");
        assert.strictEqual(outputs.imageRef, container.image);
    });
});
