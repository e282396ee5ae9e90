/**
 * What the installable packages hold (tools/pack/manifest.ts), from the repository's package.json:
 * the library without the command's dependencies, the command depending on the library.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import {
    CLI_PACKAGE, RootManifest, cliManifest, libraryManifest, packageOf, pointAtLibrary, requiredPackages,
} from "../../../tools/pack/manifest";

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
        const manifest = libraryManifest(root, ["@kubernetes/client-node", "@pulumi/kubernetes", "@pulumi/pulumi", "yaml"]);

        it("depends on what its files require, pinned as package.json pins it, and on no peer", () => {
            assert.deepStrictEqual(manifest.dependencies, {
                "@kubernetes/client-node": root.dependencies!["@kubernetes/client-node"], "yaml": root.dependencies!.yaml,
            });
            assert.deepStrictEqual(manifest.peerDependencies, root.peerDependencies);
        });

        it("does not take the repository's command dependencies along", () => {
            assert.ok(root.dependencies!["@grpc/grpc-js"] !== undefined, "the repository depends on grpc-js (the command does)");
            assert.strictEqual(manifest.dependencies["@grpc/grpc-js"], undefined);
            assert.strictEqual(manifest.bin, undefined);
        });

        it("keeps the entry points and the version, and adds the command's internal path", () => {
            assert.strictEqual(manifest.version, root.version);
            for (const key of Object.keys(root.exports)) {
                assert.deepStrictEqual(manifest.exports![key], root.exports[key], key);
            }
            assert.strictEqual(manifest.exports!["./internal/*"], "./dist/*.js");
        });

        it("refuses a required package that package.json does not pin", () => {
            assert.throws(() => libraryManifest(root, ["left-pad"]), /tf-serving requires left-pad, which package\.json neither depends on nor pins/);
        });
    });

    describe("cliManifest", () => {
        const manifest = cliManifest(root, ["@grpc/grpc-js", "commander", "tf-serving", "yaml"]);

        it("installs tfs and depends on the library at its exact version", () => {
            assert.strictEqual(manifest.name, CLI_PACKAGE);
            assert.deepStrictEqual(manifest.bin, { tfs: "bin/tfs.js" });
            assert.strictEqual(manifest.dependencies[root.name], root.version);
        });

        it("pins its own dependencies and every SDK the program can load", () => {
            assert.strictEqual(manifest.dependencies["@grpc/grpc-js"], root.dependencies!["@grpc/grpc-js"]);
            assert.strictEqual(manifest.dependencies.commander, root.devDependencies!.commander);
            for (const peer of Object.keys(root.peerDependencies!)) {
                assert.strictEqual(manifest.dependencies[peer], root.devDependencies![peer], peer);
            }
        });
    });

    describe("pointAtLibrary", () => {
        it("sends requires of the library's folders to the library package and keeps the command's own", () => {
            const js = 'require("../components/modelServer"); require("./errors"); require("../ops/plan"); require("../../serving/images");';
            const cli = pointAtLibrary(js.split(" ").slice(0, 3).join(" "), "cli/plan.js", "tf-serving");
            assert.strictEqual(cli.text, 'require("tf-serving/internal/components/modelServer"); require("./errors"); require("../ops/plan");');
            assert.deepStrictEqual(cli.libraryModules, ["components/modelServer"]);
            const nested = pointAtLibrary('require("../../serving/images");', "ops/doctor/rules.js", "tf-serving");
            assert.strictEqual(nested.text, 'require("tf-serving/internal/serving/images");');
        });

        it("refuses a require that climbs out of the compiled tree", () => {
            assert.throws(() => pointAtLibrary('require("../../x")', "cli/a.js", "tf-serving"), /cli\/a\.js: require\("\.\.\/\.\.\/x"\) leaves the compiled tree/);
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
