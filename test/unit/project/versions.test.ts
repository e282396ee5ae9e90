/**
 * Each version is pinned in one place, and this file holds every copy of it equal:
 * - npm packages: the root package.json (and its lock). The policy pack and the consumer program are
 *   packages of their own, which npm makes state their dependencies again; the library's peer ranges
 *   start at the versions it is tested with; @types/node follows the Node.js line engines names.
 * - Node.js: package.json's engines.node (the oldest a user's own node may be) is scripts/lib/node.sh's
 *   TFS_NODE_MIN; TFS_NODE_VERSION there is the build the scripts install when the user's node is older
 *   (an LTS line at or above engines.node's, the line the deploy workflow sets up), and any other file
 *   naming a node-linux build names it.
 * - Pulumi CLI: tools/e2e-env/go/pulumi/go.mod's github.com/pulumi/pulumi/pkg/v3 (and sdk/v3, the same
 *   release), the CLI the loopback environment builds, is the SDK's release or a later one.
 * - TF Serving: serving/images.ts `TF_SERVING_VERSION`. The e2e stand-in answers `--version` with it, the
 *   loopback environment tags its stand-in base with it (it reads the line this file checks), and no
 *   product source or example stack names another release.
 * (The loopback environment reads its other pins from the Go modules: tools/e2e-env/README.md.)
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { TF_SERVING_VERSION } from "../../../serving/images";

const ROOT = path.resolve(__dirname, "../../..");

interface Manifest {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    engines?: Record<string, string>;
}

function manifest(file: string): Manifest {
    return JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));
}

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const root = manifest("package.json");
const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version: string }> };

describe("version pins", () => {
    for (const file of ["policy/package.json", "test/consumer/package.json"]) {
        it(`${file} pins the root's versions of the packages they share`, () => {
            const own = { ...manifest(file).dependencies, ...manifest(file).devDependencies };
            const shared = Object.keys(own).filter((name) => root.devDependencies?.[name] !== undefined);
            assert.ok(shared.includes("@pulumi/pulumi"), `${file} should depend on @pulumi/pulumi`);
            for (const name of shared) {
                assert.strictEqual(own[name], root.devDependencies![name], `${file}: ${name} is ${own[name]}, the root pins ${root.devDependencies![name]}`);
            }
        });
    }

    it("the root's pins are exact and are what package-lock.json installs", () => {
        for (const [name, version] of Object.entries(root.devDependencies ?? {})) {
            assert.match(version, /^\d+\.\d+\.\d+$/, `${name}: ${version} is a range, not a pin`);
            assert.strictEqual(lock.packages[`node_modules/${name}`]?.version, version, `${name}: package-lock.json installs another version`);
        }
    });

    it("the library's peer ranges start at the versions its tests run with", () => {
        const peers = Object.entries(root.peerDependencies ?? {});
        assert.ok(peers.some(([name]) => name === "@pulumi/pulumi"));
        for (const [name, range] of peers) {
            assert.strictEqual(range, `^${root.devDependencies?.[name]}`, `peerDependencies ${name}: ${range}, the tests run with ${root.devDependencies?.[name]}`);
        }
    });

    it("@types/node describes the Node.js line package.json's engines requires, and that line is what @pulumi/pulumi accepts", () => {
        const engines = /^>=(\d+)\.(\d+)$/.exec(root.engines?.node ?? "");
        assert.ok(engines, `engines.node is ${root.engines?.node}: expected >=MAJOR.MINOR`);
        assert.strictEqual(root.devDependencies?.["@types/node"].split(".")[0], engines[1], "@types/node's major is engines.node's");
        const sdk = JSON.parse(read("node_modules/@pulumi/pulumi/package.json")) as Manifest;
        const floor = /^>=(\d+)/.exec(sdk.engines?.node ?? "")?.[1];
        assert.ok(floor !== undefined && Number(engines[1]) >= Number(floor), `@pulumi/pulumi needs node ${sdk.engines?.node}, engines.node says ${root.engines?.node}`);
    });

    const nodeHelper = read("scripts/lib/node.sh");
    const nodePin = (name: string) => new RegExp(`^${name}=(\\S+)$`, "m").exec(nodeHelper)?.[1];

    it("engines.node is the oldest Node.js scripts/lib/node.sh keeps (TFS_NODE_MIN)", () => {
        assert.strictEqual(root.engines?.node, `>=${nodePin("TFS_NODE_MIN")}`);
    });

    it("the Node.js build the scripts install (TFS_NODE_VERSION) is of an LTS line at or above engines.node's", () => {
        const version = nodePin("TFS_NODE_VERSION") ?? "";
        const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
        assert.ok(m, `TFS_NODE_VERSION is ${version}: expected X.Y.Z`);
        // Even majors become LTS; odd ones are never supported for long.
        assert.strictEqual(Number(m[1]) % 2, 0, `Node.js ${version} is not of an LTS line`);
        const floor = /^>=(\d+)\.(\d+)$/.exec(root.engines?.node ?? "");
        assert.ok(floor !== null && (Number(m[1]) > Number(floor[1]) || (m[1] === floor[1] && Number(m[2]) >= Number(floor[2]))),
            `Node.js ${version} is older than engines.node ${root.engines?.node}`);
    });

    it("the deploy workflow runs the Node.js line the scripts install", () => {
        const lines = [...read(".github/workflows/deploy.yml").matchAll(/^\s*node-version:\s*(\S+)\s*$/gm)].map((m) => m[1]);
        assert.deepStrictEqual(lines, [nodePin("TFS_NODE_VERSION")?.split(".")[0]]);
    });

    it("every file that names a node-linux build names TFS_NODE_VERSION", () => {
        const files = [".ci/run", "README.md", "CHANGELOG.md", ...["scripts", "tools", "docs"].flatMap((folder) => (fs.readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
            .map((f) => path.join(folder, f)))].filter((f) => !f.includes("node_modules") && fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile()
                && fs.statSync(path.join(ROOT, f)).size < 1_000_000);
        const stale = files.flatMap((file) => [...read(file).matchAll(/node-linux-(?:x64|arm64)@(\d+\.\d+\.\d+)/g)]
            .filter((m) => m[1] !== nodePin("TFS_NODE_VERSION")).map((m) => `${file}: ${m[0]}`));
        assert.deepStrictEqual(stale, []);
    });

    it("the Pulumi CLI the loopback environment builds is the SDK's release or later, its pkg and sdk modules one release", () => {
        const goMod = read("tools/e2e-env/go/pulumi/go.mod");
        const cli = /^\s*github\.com\/pulumi\/pulumi\/pkg\/v3 v(\d+)\.(\d+)\.(\d+)$/m.exec(goMod);
        const goSdk = /^\s*github\.com\/pulumi\/pulumi\/sdk\/v3 v(\S+)$/m.exec(goMod)?.[1];
        assert.ok(cli, "tools/e2e-env/go/pulumi/go.mod requires no github.com/pulumi/pulumi/pkg/v3 vX.Y.Z");
        assert.strictEqual(goSdk, cli.slice(1).join("."), "github.com/pulumi/pulumi/sdk/v3 is another release than pkg/v3");
        const sdk = root.devDependencies!["@pulumi/pulumi"].split(".").map(Number);
        const order = cli.slice(1).map(Number).map((n, i) => n - sdk[i]).find((d) => d !== 0) ?? 0;
        assert.ok(order >= 0, `the Pulumi CLI ${cli.slice(1).join(".")} is older than @pulumi/pulumi ${root.devDependencies!["@pulumi/pulumi"]}`);
    });

    it("the e2e stand-in server answers --version with the pinned TF Serving release", () => {
        const declared = /^const standinVersion = "([^"]+)"$/m.exec(read("tools/e2e-env/go/tfserving-standin/main.go"))?.[1];
        assert.strictEqual(declared, `${TF_SERVING_VERSION}-standin`);
    });

    it("the loopback environment can read the pin (tools/e2e-env/go/e2e-env/internal/images, TFServingVersion)", () => {
        assert.match(read("serving/images.ts"), new RegExp(`^export const TF_SERVING_VERSION = "${TF_SERVING_VERSION.replace(/\./g, "\\.")}";$`, "m"));
    });

    it("no product source, comment, example stack or user doc names another tensorflow/serving release", () => {
        const folders = ["cli", "components", "config", "contract", "lib", "model", "observability", "ops", "policy", "serving", "stacks", "docs"];
        const files = [
            ...folders.flatMap((folder) => (fs.readdirSync(path.join(ROOT, folder), { recursive: true }) as string[]).map((f) => path.join(folder, f))),
            ...fs.readdirSync(ROOT).filter((f) => /^(index\.ts|Pulumi\..*\.ya?ml|README\.md)$/.test(f)),
        ].filter((f) => /\.(ts|ya?ml|json|md)$/.test(f) && !f.includes("node_modules")
            // Decision records keep the release they were decided on.
            && !f.startsWith(path.join("docs", "development", "decisions")) && fs.statSync(path.join(ROOT, f)).isFile());
        assert.ok(files.includes(path.join("serving", "images.ts")) && files.includes("README.md") && files.includes(path.join("docs", "concepts", "model-image.md")));
        const stale = files.flatMap((file) => [...read(file).matchAll(/tensorflow\/serving:(\d+\.\d+\.\d+)/g)]
            .filter((m) => m[1] !== TF_SERVING_VERSION).map((m) => `${file}: ${m[0]}`));
        assert.deepStrictEqual(stale, [], `the pin is ${TF_SERVING_VERSION}`);
    });
});
