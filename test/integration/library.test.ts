/**
 * The library as another Pulumi program gets it: `npm run packages` (tools/pack/main.ts: compiles,
 * writes the library's package.json, runs `npm pack` on it), the tarball installed offline into a
 * consumer project (`test/consumer/`), its program type-checked against the shipped declarations
 * and run under Pulumi's mocks with the consumer's own SDK.
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PackedPackage, pack } from "../../tools/pack/main";
import { CLI_FOLDERS } from "../../tools/pack/manifest";
import { writeConsumer } from "../support/consumerProject";
import { fixtureModelDir } from "../support/fixtures";

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, "../..");
const ENTRY_POINTS = ["components", "eks", "gke", "modelImage", "modelServer", "preflight", "sizing"];
const MODEL_DIR = fixtureModelDir("half_plus_two_cpu");

interface Registered { type: string; name: string; inputs: any; provider?: string }

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

    before(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-library-"));
        [library] = pack(ROOT, path.join(work, "packages"));
        consumer = path.join(work, "consumer");
        fs.mkdirSync(consumer);
        writeConsumer(consumer, path.join(ROOT, "test", "consumer"), ROOT, { "tf-serving": library });
        run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], consumer);
        // The repository's TypeScript, resolving the consumer's modules (typesVersions, as moduleResolution node reads them).
        const tsc = require.resolve("typescript/bin/tsc");
        run(process.execPath, [tsc, "-p", "."], consumer);
        // And through the exports map's types conditions, as node16 resolution reads them.
        run(process.execPath, [tsc, "-p", ".", "--noEmit", "--module", "node16", "--moduleResolution", "node16"], consumer);
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    it("packs the built library and what a consumer needs, nothing of the project", () => {
        const files = library.files;
        for (const entry of ENTRY_POINTS) {
            assert.ok(files.includes(`dist/lib/${entry}.js`) && files.includes(`dist/lib/${entry}.d.ts`), `entry point ${entry} missing: ${files.join(" ")}`);
        }
        assert.deepStrictEqual(files.filter((f) => !f.startsWith("dist/")), ["CHANGELOG.md", "PulumiPlugin.yaml", "README.md", "package.json", "tsconfig.json"]);
        assert.deepStrictEqual(files.filter((f) => /(^|\/)(test|\.tfs|stacks|ops|cli|policy|bench|bin)\//.test(f)), []);
        assert.deepStrictEqual(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !f.startsWith("dist/facade/")), [],
            "sources stay out (but the facade's, for Pulumi's schema analyzer); declarations go in");
        assert.ok(!files.includes("index.ts"), "the project's program is not part of the library");
    });

    it("holds no command code and depends on no gRPC package", () => {
        const cliFolders = new RegExp(`^dist/(${CLI_FOLDERS.join("|")})/`);
        assert.deepStrictEqual(library.files.filter((f) => cliFolders.test(f) || f.startsWith("bin/")), []);
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

    it("installs one @pulumi/pulumi, the consumer's, shared with the library", () => {
        const fromLibrary = require.resolve("@pulumi/pulumi/package.json", { paths: [path.join(consumer, "node_modules", "tf-serving", "dist", "lib")] });
        assert.strictEqual(fromLibrary, path.join(consumer, "node_modules", "@pulumi", "pulumi", "package.json"));
        assert.ok(!fs.existsSync(path.join(consumer, "node_modules", "tf-serving", "node_modules", "@pulumi")), "the library brings no SDK of its own");
    });

    it("registers nothing when its entry points are imported; preflight and sizing load no Pulumi SDK, model-server and model-image no cloud SDK", () => {
        const result = underMocks("imports");
        assert.deepStrictEqual(result.registered, []);
        assert.deepStrictEqual(result.pureLoaded, []);
        assert.deepStrictEqual(result.cloudLoaded, [], "@pulumi/gcp and @pulumi/aws are optional peers: only gke, eks and components need them");
        assert.strictEqual(result.preflightOk, true);
        assert.match(result.memoryLimit, /^\d+Mi$/);
        for (const entry of ["model-server", "model-image", "gke", "eks", "components"]) {
            assert.match(result.entries[`tf-serving/${entry}`], /^exports \d+$/, entry);
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
