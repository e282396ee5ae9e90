/**
 * The packed version moves when the content does: while CHANGELOG.md has unreleased entries, each
 * package is packed as a prerelease named after its files (tools/pack/manifest.ts, `packedVersion`),
 * so two different tarballs never share a name. Packs a copy of the sources, outside the repository,
 * before and after one source file changes.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PackedPackage, pack } from "../../../tools/pack/main";
import { unreleasedEntries } from "../../../tools/pack/manifest";

const ROOT = path.resolve(__dirname, "../../..");
/** What packing reads: the product's folders, the bin, the manifest, the compiler's settings, the changelog and the licence. */
const SOURCES = ["bin", "cli", "components", "config", "contract", "facade", "lib", "model", "observability", "ops", "serving", "stacks",
    "package.json", "tsconfig.json", "CHANGELOG.md", "LICENSE"];
/** A library module (so both packages change: the command pins the library's version) and the change made to it. */
const CHANGED = "serving/images.ts";
const CHANGE = "\nexport const CONTENT_CHANGE = \"the packed version moves\";\n";

describe("the packed version", function () {
    this.timeout(900_000);
    let work: string;
    let copy: string;
    let original: PackedPackage[];
    let changed: PackedPackage[];

    before(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-version-"));
        assert.ok(path.relative(ROOT, work).startsWith(".."), `${work} must be outside the repository`);
        copy = path.join(work, "checkout");
        for (const entry of SOURCES) {
            fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
        }
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"), "dir");
        original = pack(copy, path.join(work, "before"));
        fs.appendFileSync(path.join(copy, CHANGED), CHANGE);
        changed = pack(copy, path.join(work, "after"));
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    it("is a prerelease of the next version while CHANGELOG.md has unreleased entries", () => {
        assert.ok(unreleasedEntries(fs.readFileSync(path.join(copy, "CHANGELOG.md"), "utf8")).length > 0, "this checkout's changelog has unreleased entries");
        const { version } = JSON.parse(fs.readFileSync(path.join(copy, "package.json"), "utf8")) as { version: string };
        const [major, minor, patch] = version.split(".").map(Number);
        for (const packed of original) {
            assert.match(packed.version, new RegExp(`^${major}\\.${minor}\\.${patch + 1}-dev\\.h?[0-9a-f]{8}$`), packed.name);
            assert.strictEqual(path.basename(packed.tarball), `${packed.name}-${packed.version}.tgz`);
        }
    });

    it("changes both tarballs' names when a library source changes, the command's pin with them", () => {
        const names = (packed: PackedPackage[]) => packed.map((p) => path.basename(p.tarball));
        assert.deepStrictEqual(changed.map((p) => p.name), original.map((p) => p.name));
        for (const [i, name] of names(changed).entries()) {
            assert.notStrictEqual(name, names(original)[i], `${name}: the content changed, the name must too`);
        }
        const cli = JSON.parse(fs.readFileSync(path.join(changed[1].dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
        assert.strictEqual(cli.dependencies[changed[0].name], changed[0].version);
        assert.ok(fs.readFileSync(path.join(changed[0].dir, "dist", CHANGED.replace(/\.ts$/, ".js")), "utf8").includes("CONTENT_CHANGE"), "the change is packed");
    });
});
