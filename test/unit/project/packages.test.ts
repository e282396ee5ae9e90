/**
 * What the installable packages hold (tools/pack/manifest.ts), from the repository's package.json:
 * the library without the command's dependencies, the command depending on the library through its
 * command entry, and the version both are packed as.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { CLOUDS, cloudAbout } from "../../../components/clouds/registry";
import { COMMAND_MODULES } from "../../../lib/command";
import {
    CLI_PACKAGE, COMMAND_SUBPATH, RootManifest, cliManifest, commandTableProblems, contentHash, libraryManifest, packageOf, packedVersion, pointAtLibrary,
    requiredPackages, unreleasedEntries,
} from "../../../tools/pack/manifest";
import { commandRequires, packageSplit } from "../../support/commandRequires";

const ROOT = path.resolve(__dirname, "../../..");
const root = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as RootManifest;

describe("the installable packages", () => {
    describe("requiredPackages", () => {
        it("names the packages a compiled file requires, not Node's own modules or relative files", () => {
            const js = [
                'const fs = require("fs");',
                'const k8s = __importStar(require("@pulumi/kubernetes/core/v1"));',
                'const yaml = require("yaml"); require("node:path"); require("./x");',
                'Promise.resolve().then(() => __importStar(require("@kubernetes/client-node")));',
            ].join("\n");
            assert.deepStrictEqual(requiredPackages([js]), ["@kubernetes/client-node", "@pulumi/kubernetes", "yaml"]);
        });

        it("leaves out ts-node, which the canary runner loads only from sources", () => {
            assert.deepStrictEqual(requiredPackages(['require("ts-node").register({})']), []);
        });

        it("reads scoped and deep specifiers", () => {
            assert.deepStrictEqual([packageOf("@pulumi/pulumi/automation"), packageOf("yaml/util"), packageOf("crypto"), packageOf("../a")],
                ["@pulumi/pulumi", "yaml", undefined, undefined]);
        });
    });

    describe("libraryManifest", () => {
        const manifest = libraryManifest(root, ["@kubernetes/client-node", "@pulumi/kubernetes", "@pulumi/pulumi", "yaml"], "0.2.1-dev.0123abcd");

        it("depends on what its files require, pinned as package.json pins it, and on no peer", () => {
            assert.deepStrictEqual(manifest.dependencies, { "yaml": root.dependencies!.yaml });
            assert.deepStrictEqual(manifest.peerDependencies, root.peerDependencies);
        });

        it("takes @kubernetes/client-node, which only a canary loads, as an optional peer", () => {
            assert.strictEqual(manifest.peerDependencies!["@kubernetes/client-node"], `^${root.devDependencies!["@kubernetes/client-node"]}`);
            assert.deepStrictEqual(manifest.peerDependenciesMeta!["@kubernetes/client-node"], { optional: true });
            assert.strictEqual(manifest.dependencies["@kubernetes/client-node"], undefined);
        });

        it("does not take the repository's command dependencies along", () => {
            assert.ok(root.dependencies!["@grpc/grpc-js"] !== undefined, "the repository depends on grpc-js (the command does)");
            assert.strictEqual(manifest.dependencies["@grpc/grpc-js"], undefined);
            assert.strictEqual(manifest.bin, undefined);
        });

        it("keeps the entry points, a main one among them, and adds the command's entry without types", () => {
            assert.strictEqual(manifest.version, "0.2.1-dev.0123abcd");
            for (const key of Object.keys(root.exports)) {
                assert.deepStrictEqual(manifest.exports![key], root.exports[key], key);
            }
            assert.deepStrictEqual(manifest.exports!["."], { types: "./dist/lib/index.d.ts", default: "./dist/lib/index.js" });
            assert.strictEqual(manifest.types, "./dist/lib/index.d.ts", "moduleResolution node reads the main entry's types here");
            assert.strictEqual(manifest.exports![`./${COMMAND_SUBPATH}`], "./dist/lib/command.js");
            assert.deepStrictEqual(Object.keys(manifest.exports!).filter((k) => k.includes("*")), [], "no path of the library is reachable by pattern");
        });

        it("says where it comes from, as package.json does", () => {
            for (const key of ["homepage", "repository", "bugs", "keywords", "license"] as const) {
                assert.ok(root[key] !== undefined, `package.json has no ${key}`);
                assert.deepStrictEqual(manifest[key], root[key], key);
            }
            assert.ok(manifest.files.includes("LICENSE"));
        });

        it("refuses a required package that package.json does not pin", () => {
            assert.throws(() => libraryManifest(root, ["left-pad"]), /tf-serving requires left-pad, which package\.json neither depends on nor pins/);
        });
    });

    describe("cliManifest", () => {
        const versions = { version: "0.2.1-dev.89abcdef", libraryVersion: "0.2.1-dev.0123abcd", cloudSdks: ["@pulumi/gcp", "@pulumi/aws"] };
        const manifest = cliManifest(root, ["@grpc/grpc-js", "@kubernetes/client-node", "commander", "tf-serving", "yaml"], versions);

        it("installs tfs and depends on the library at its exact version", () => {
            assert.strictEqual(manifest.name, CLI_PACKAGE);
            assert.strictEqual(manifest.version, versions.version);
            assert.deepStrictEqual(manifest.bin, { tfs: "bin/tfs.js" });
            assert.strictEqual(manifest.dependencies[root.name], versions.libraryVersion);
        });

        it("pins its own dependencies and every SDK the program loads on any cloud", () => {
            assert.strictEqual(manifest.dependencies["@grpc/grpc-js"], root.dependencies!["@grpc/grpc-js"]);
            assert.strictEqual(manifest.dependencies.commander, root.devDependencies!.commander);
            for (const sdk of ["@pulumi/pulumi", "@pulumi/kubernetes", "@pulumi/docker", "@kubernetes/client-node"]) {
                assert.strictEqual(manifest.dependencies[sdk], root.devDependencies![sdk], sdk);
            }
        });

        it("takes each cloud's SDK as an optional peer at the library's range, not as a dependency", () => {
            assert.deepStrictEqual(manifest.peerDependencies, { "@pulumi/aws": root.peerDependencies!["@pulumi/aws"], "@pulumi/gcp": root.peerDependencies!["@pulumi/gcp"] });
            assert.deepStrictEqual(manifest.peerDependenciesMeta, { "@pulumi/aws": { optional: true }, "@pulumi/gcp": { optional: true } });
            assert.deepStrictEqual(Object.keys(manifest.dependencies).filter((n) => versions.cloudSdks.includes(n)), []);
            assert.deepStrictEqual([manifest.repository, manifest.license, manifest.keywords!.includes("cli")], [root.repository, root.license, true]);
        });

        it("the cloud SDKs it makes optional are the ones the clouds' registry names", () => {
            assert.deepStrictEqual(CLOUDS.flatMap((c) => cloudAbout(c).sdk ?? []).sort(), ["@pulumi/aws", "@pulumi/gcp"]);
            assert.throws(() => cliManifest(root, [], { ...versions, cloudSdks: ["@pulumi/azure"] }), /cloud SDK @pulumi\/azure is not one of the library's peers/);
        });
    });

    describe("pointAtLibrary", () => {
        const library = new Set(["components/modelServer", "serving/images", "model/index"]);

        it("sends requires of the library's modules through its command entry and keeps the command's own", () => {
            const js = 'require("../components/modelServer"); require("./errors"); require("../config/config"); require("../model");';
            const cli = pointAtLibrary(js, "cli/plan.js", "tf-serving", library);
            assert.strictEqual(cli.text, [
                'require("tf-serving/command").COMMAND_MODULES["components/modelServer"]();', 'require("./errors");', 'require("../config/config");',
                'require("tf-serving/command").COMMAND_MODULES["model/index"]();',
            ].join(" "));
            assert.deepStrictEqual(cli.libraryModules, ["components/modelServer", "model/index"]);
            const nested = pointAtLibrary('const images_1 = require("../../serving/images");', "ops/doctor/rules.js", "tf-serving", library);
            assert.strictEqual(nested.text, 'const images_1 = require("tf-serving/command").COMMAND_MODULES["serving/images"]();');
        });

        it("refuses a require that climbs out of the compiled tree", () => {
            assert.throws(() => pointAtLibrary('require("../../x")', "cli/a.js", "tf-serving", library), /cli\/a\.js: require\("\.\.\/\.\.\/x"\) leaves the compiled tree/);
        });
    });

    describe("the command's table (lib/command.ts)", () => {
        it("names a module the command requires that it does not list, and one it lists that the command does not require", () => {
            assert.deepStrictEqual(commandTableProblems(["a/b", "c/d"], ["a/b", "e/f"]), [
                "the command requires e/f, which lib/command.ts does not list: add it",
                "lib/command.ts lists c/d, which the command does not require: remove it",
            ]);
            assert.deepStrictEqual(commandTableProblems(["a/b"], ["a/b", "a/b"]), []);
        });

        it("lists exactly the library modules the command's sources require (the packing checks the compiled files)", () => {
            const required = commandRequires(ROOT);
            assert.ok(required.includes("components/modelServer") && required.includes("model/savedModel"), required.join(" "));
            assert.deepStrictEqual(commandTableProblems(Object.keys(COMMAND_MODULES), required), []);
        });

        it("adds no module to the library: each it lists, an entry point or the facade imports already", () => {
            const [without, withTable] = [packageSplit(ROOT).library, packageSplit(ROOT, true).library];
            assert.deepStrictEqual([...withTable].filter((f) => !without.has(f)), ["lib/command.ts"]);
            assert.deepStrictEqual([...without].filter((f) => /^(cli|ops|stacks|config)\//.test(f)), [], "the config layer and the command stay out of the library");
            assert.ok(packageSplit(ROOT).command.has("config/config.ts") && packageSplit(ROOT).command.has("components/clouds/registry.ts"),
                "the command holds the config layer and the clouds' registry");
        });
    });

    describe("the packed version", () => {
        const hash = "3f2a9c01".padEnd(64, "0");
        const released = "# Changelog\n\n## 0.2.0\n\n### Library\n\n- A change.\n";
        const unreleased = "# Changelog\n\n## Unreleased\n\n### Library\n\n- A change to come.\n\n## 0.2.0\n\n- A change.\n";

        it("is package.json's while the changelog's Unreleased section is empty or missing", () => {
            assert.strictEqual(packedVersion("0.2.0", released, hash), "0.2.0");
            assert.strictEqual(packedVersion("0.2.0", "# Changelog\n\n## Unreleased\n\n### Library\n\n## 0.2.0\n\n- A change.\n", hash), "0.2.0");
        });

        it("is a prerelease of the next version named after the content while it has entries", () => {
            assert.strictEqual(packedVersion("0.2.0", unreleased, hash), "0.2.1-dev.3f2a9c01");
            assert.strictEqual(packedVersion("1.4.9", unreleased, "ffffffff"), "1.4.10-dev.ffffffff");
            assert.strictEqual(packedVersion("0.3.0-rc.1", unreleased, hash), "0.3.0-rc.1.dev.3f2a9c01");
        });

        it("keeps a hash of digits alone from reading as a number with a leading zero", () => {
            assert.strictEqual(packedVersion("0.2.0", unreleased, "01234567"), "0.2.1-dev.h01234567");
            assert.strictEqual(packedVersion("0.2.0", unreleased, "91234567"), "0.2.1-dev.h91234567");
        });

        it("sorts above the release it follows and below the next one (semver precedence)", () => {
            const dev = packedVersion("0.2.0", unreleased, hash).split(/[-.]/);
            assert.deepStrictEqual(dev.slice(0, 3).map(Number), [0, 2, 1]);
            assert.strictEqual(dev[3], "dev", "a prerelease of 0.2.1: above 0.2.0, below 0.2.1 and 0.3.0");
        });

        it("refuses a version that is not X.Y.Z[-PRERELEASE] and a hash that is not hex", () => {
            assert.throws(() => packedVersion("0.2", unreleased, hash), /version "0\.2" is not X\.Y\.Z/);
            assert.throws(() => packedVersion("0.2.0+build.1", unreleased, hash), /is not X\.Y\.Z/);
            assert.throws(() => packedVersion("0.2.0", unreleased, "XYZ12345"), /lowercase hex/);
        });

        it("reads the entries of the Unreleased section only", () => {
            assert.deepStrictEqual(unreleasedEntries(unreleased), ["- A change to come."]);
            assert.deepStrictEqual(unreleasedEntries(released), []);
            assert.deepStrictEqual(unreleasedEntries("## Unreleased\n<!-- nothing yet -->\n\n## 0.1.0\n- x\n"), []);
        });

        it("hashes every file's path and bytes, whatever order they come in", () => {
            const a = { path: "dist/a.js", bytes: Buffer.from("a") };
            const b = { path: "dist/b.js", bytes: Buffer.from("b") };
            assert.strictEqual(contentHash([a, b]), contentHash([b, a]));
            assert.notStrictEqual(contentHash([a, b]), contentHash([a, { ...b, bytes: Buffer.from("c") }]));
            assert.notStrictEqual(contentHash([a, b]), contentHash([a, { ...b, path: "dist/c.js" }]));
            assert.notStrictEqual(contentHash([{ path: "ab", bytes: Buffer.from("") }]), contentHash([{ path: "a", bytes: Buffer.from("b") }]));
            assert.match(contentHash([a]), /^[0-9a-f]{64}$/);
        });
    });

    it("carry a version CHANGELOG.md describes, the same in package.json and package-lock.json", () => {
        const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
        assert.deepStrictEqual([lock.version, lock.packages[""].version], [root.version, root.version]);
        const changelog = fs.readFileSync(path.join(ROOT, "CHANGELOG.md"), "utf8");
        const section = changelog.split(/^## /m).find((s) => s.startsWith(`${root.version}\n`));
        assert.ok(section !== undefined, `CHANGELOG.md has no "## ${root.version}" section for the packages' version`);
        assert.match(section, /^### Library$/m, `CHANGELOG.md's ${root.version} section says nothing for library users`);
    });
});
