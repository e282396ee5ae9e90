/*
 * Claims of the contributor docs that are facts of the tree, held to it: the loopback environment's
 * stand-ins against tools/e2e-env/, the Go the tests need against the modules' `go` lines, the code
 * map's `cli/` and `lib/` rows against the commands and the entry points, and the benchmarks' one table.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { tfsProgram } from "../../../cli/main";
import { COMMAND_SOURCE, COMMAND_SUBPATH } from "../../../tools/pack/manifest";

const ROOT = path.resolve(__dirname, "../../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

/** The text of `file` from `heading` to the next heading of its level or above (or the end). */
function section(file: string, heading: string): string {
    const page = read(file);
    const from = page.indexOf(`\n${heading}\n`);
    assert.ok(from >= 0, `${file} has no "${heading}"`);
    const level = /^#+/.exec(heading)![0].length;
    const rest = page.slice(from + heading.length + 2);
    const next = rest.search(new RegExp(`^#{1,${level}} `, "m"));
    return next < 0 ? rest : rest.slice(0, next);
}

const dirs = (dir: string) => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

describe("contributor docs that state facts of the tree", () => {
    describe("the loopback page's stand-ins", () => {
        const LOOPBACK = "docs/getting-started/loopback.md";
        const text = section(LOOPBACK, "## What is real and what stands in");
        const bullets = text.split("\n").filter((l) => l.startsWith("- **"));
        const named = bullets.flatMap((b) => [...b.matchAll(/`(tools\/e2e-env\/[^`]+)`/g)].map((m) => m[1]));

        it("name only paths that exist, one stand-in per bullet", () => {
            assert.ok(bullets.length >= 5, `${LOOPBACK}: the stand-ins as a list of bullets, each naming its source under tools/e2e-env/`);
            assert.strictEqual(named.length, bullets.length, bullets.join("\n"));
            assert.deepStrictEqual(named.filter((p) => !fs.existsSync(path.join(ROOT, p))), [], `${LOOPBACK} names stand-ins that are gone`);
        });

        it("name every file of tools/e2e-env/stand-ins/ and every stand-in the Pulumi bundle builds beside the CLI", () => {
            const bundles = read("tools/e2e-env/go/e2e-env/internal/bundles/bundles.go");
            const built = dirs("tools/e2e-env/go/pulumi/cmd").map((d) => `tools/e2e-env/go/pulumi/cmd/${d}`);
            for (const cmd of built) {
                assert.ok(bundles.includes(`"${cmd.replace("tools/e2e-env/go/", "")}"`), `bundles.go builds ${cmd}`);
            }
            const expected = [...fs.readdirSync(path.join(ROOT, "tools/e2e-env/stand-ins")).map((f) => `tools/e2e-env/stand-ins/${f}`), ...built];
            assert.ok(expected.length >= 3, expected.join(", "));
            assert.deepStrictEqual(expected.filter((p) => !named.includes(p)), [], `${LOOPBACK}#what-is-real-and-what-stands-in: add them to the list`);
        });

        it("agree with the environment's README on what is a stand-in", () => {
            const rows = read("tools/e2e-env/README.md").split("\n").filter((l) => l.startsWith("| ") && l.includes("**stand-in**"));
            const sources = rows.flatMap((r) => [...r.matchAll(/`(go\/[\w/-]+)`/g)].map((m) => `tools/e2e-env/${m[1]}`));
            assert.ok(sources.length >= 3, rows.join("\n"));
            assert.deepStrictEqual(sources.filter((p) => !named.includes(p)), [], "tools/e2e-env/README.md marks these **stand-in**");
        });
    });

    it("the testing page asks for the Go the environment's modules need (their highest `go` line)", () => {
        const modules = dirs("tools/e2e-env/go").filter((d) => fs.existsSync(path.join(ROOT, "tools/e2e-env/go", d, "go.mod")));
        const versions = modules.map((d) => /^go (\d+)\.(\d+)(?:\.(\d+))?$/m.exec(read(`tools/e2e-env/go/${d}/go.mod`))).filter((m) => m !== null)
            .map((m) => [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]);
        assert.ok(versions.length >= 5, modules.join(", "));
        const [major, minor, patch] = versions.sort((a, b) => b[0] - a[0] || b[1] - a[1] || b[2] - a[2])[0];
        const stated = /\*\*Go (\d+\.\d+(?:\.\d+)?) or later\*\*/.exec(section("docs/development/testing.md", "## Commands"));
        assert.ok(stated, "docs/development/testing.md#commands: \"**Go X.Y.Z or later**\"");
        assert.strictEqual(stated[1], `${major}.${minor}.${patch}`);
    });

    describe("the code map", () => {
        const row = (folder: string) => {
            const line = read("docs/development/code-map.md").split("\n").find((l) => l.startsWith(`| \`${folder}\` |`));
            assert.ok(line !== undefined, `docs/development/code-map.md has no row for ${folder}`);
            return line;
        };

        it("names every tfs command in the cli/ row", () => {
            const commands = tfsProgram(() => undefined).commands.map((c) => c.name());
            assert.ok(commands.length >= 7, commands.join());
            assert.deepStrictEqual(commands.filter((c) => !row("cli/").includes(`\`${c}\``)), []);
        });

        it("names in the lib/ row each file there, each entry point, and the folders the package ships", () => {
            const pkg = JSON.parse(read("package.json")) as { exports: Record<string, unknown>; files: string[] };
            const lib = row("lib/");
            const files = fs.readdirSync(path.join(ROOT, "lib")).filter((f) => f.endsWith(".ts"));
            // `command.ts` is the command's entry, which only the packed library's manifest exports.
            assert.ok(files.includes(path.basename(COMMAND_SOURCE)), files.join());
            const entries = [...Object.keys(pkg.exports).filter((e) => e !== "./package.json").map((e) => `tf-serving/${e.slice(2)}`), `tf-serving/${COMMAND_SUBPATH}`];
            const shipped = pkg.files.map((f) => /^dist\/([\w-]+)\/$/.exec(f)?.[1]).filter((f): f is string => f !== undefined && f !== "lib").map((f) => `${f}/`);
            assert.ok(files.length >= 7 && entries.length === files.length && shipped.length >= 4, `${files} / ${entries} / ${shipped}`);
            assert.deepStrictEqual([...files, ...entries, ...shipped].filter((name) => !lib.includes(`\`${name}\``)), []);
        });
    });

    it("the benchmarks page has one current table, after one line naming the machine and Node.js", () => {
        const current = section("docs/development/benchmarks.md", "## Current figures");
        const tables = current.split("\n").filter((l, i, all) => l.startsWith("| ") && !(all[i - 1] ?? "").startsWith("|"));
        assert.strictEqual(tables.length, 1, "one table of current figures, overwritten at each run");
        assert.strictEqual(current.split("\n").filter((l) => l.startsWith("Machine: ") && l.includes("Node.js")).length, 1);
        assert.strictEqual(read("docs/development/benchmarks.md").split("\n").filter((l) => l.startsWith("| figure |")).length, 1, "no older table of figures");
    });
});
