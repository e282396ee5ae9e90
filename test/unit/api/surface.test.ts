/*
 * The library's public surface: the committed API report is what the entry points export, and
 * nothing public names a type, component or constant of ours that no entry point exports.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { renderEntryPointTable } from "../../../tools/api/libraryPage";
import { REGENERATE_REPORT, REPORT_FILE, Surface, entryPoints, readSurface } from "../../../tools/api/surface";

const ROOT = path.resolve(__dirname, "../../..");

/** A small library in a temporary folder: package.json's exports, one entry point, its sources. */
function withLibrary(files: Record<string, string>, check: (surface: Surface) => void): void {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-api-"));
    try {
        const all: Record<string, string> = {
            "package.json": JSON.stringify({ name: "lib", exports: { "./a": { types: "./dist/lib/a.d.ts", default: "./dist/lib/a.js" }, "./package.json": "./package.json" } }),
            "components/.keep.ts": "",
            ...files,
        };
        for (const [file, text] of Object.entries(all)) {
            fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
            fs.writeFileSync(path.join(dir, file), text);
        }
        check(readSurface(dir));
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

describe("the library's public surface", () => {
    let surface: Surface;
    before(() => {
        surface = readSurface(ROOT);
    });

    it("reads the entry points from package.json's exports, mapped to their sources", () => {
        const entries = entryPoints(ROOT);
        assert.ok(entries.some((e) => e.specifier === "tf-serving/gke" && e.source === "lib/gke.ts"), JSON.stringify(entries));
        assert.ok(entries.every((e) => fs.existsSync(path.join(ROOT, e.source))), JSON.stringify(entries));
    });

    it("names nothing of ours that no entry point exports", () => {
        assert.deepStrictEqual(surface.problems, [], `export these from an entry point (lib/*.ts) or stop naming them:\n${surface.problems.join("\n")}`);
    });

    it(`matches the committed report (${REPORT_FILE})`, () => {
        const committed = fs.readFileSync(path.join(ROOT, REPORT_FILE), "utf8");
        if (committed !== surface.report) {
            const [a, b] = [committed.split("\n"), surface.report.split("\n")];
            const at = a.findIndex((line, i) => line !== b[i]);
            assert.fail(`${REPORT_FILE} is not what the entry points export (first difference at line ${at + 1}: `
                + `committed ${JSON.stringify(a[at])}, rendered ${JSON.stringify(b[at])}): run \`${REGENERATE_REPORT}\` and review the change`);
        }
    });

    it("finds an Args type, a component and a constant that no entry point exports, and a doc that cites a missing name", () => {
        withLibrary({
            "lib/a.ts": 'export { Widget } from "../components/widget";\nexport type { WidgetArgs } from "../components/widget";\n',
            "components/widget.ts": [
                'import * as pulumi from "@pulumi/pulumi";',
                'import { Size } from "./size";',
                "export const WIDGET_SHAPES = [\"round\", \"square\"] as const;",
                "export interface WidgetArgs {",
                "    /** One of `WIDGET_SHAPES`; see `MAX_WIDGETS` in `components/size.ts` and `ON_DEMAND`. */",
                "    shape: (typeof WIDGET_SHAPES)[number];",
                "    size?: Size;",
                "    count: pulumi.Input<number>;",
                "}",
                "export class Widget extends pulumi.ComponentResource {",
                "    readonly area: Area;",
                "    private readonly secret: Hidden;",
                "    constructor(name: string, args: WidgetArgs) { super(\"x:y:Widget\", name, {}); this.area = { m2: 1 }; this.secret = {}; }",
                "}",
                "export interface Area { m2: number }",
                "interface Hidden { x?: number }",
                "export class Gadget extends pulumi.ComponentResource {}",
            ].join("\n"),
            "components/size.ts": "export interface Size { unit: Unit }\nexport type Unit = \"cm\" | \"in\";\n",
        }, (s) => {
            assert.deepStrictEqual(s.problems, [
                "Gadget (components/widget.ts) is a component, which no entry point exports",
                "Size names Unit (components/size.ts), which no entry point exports",
                "Widget names Area (components/widget.ts), which no entry point exports",
                "WidgetArgs names Size (components/size.ts), which no entry point exports",
                "WidgetArgs names WIDGET_SHAPES (components/widget.ts), which no entry point exports",
                "WidgetArgs's doc names `MAX_WIDGETS` in `components/size.ts`, which does not declare it",
                "WidgetArgs's doc names `WIDGET_SHAPES`, which no entry point exports",
            ]);
            assert.match(s.report, /### lib\/a\n\nFrom `lib\/a.ts`: 2 exports\.\n\n- class `Widget` \(components\/widget.ts\)\n- interface `WidgetArgs`/);
            assert.match(s.report, /class Widget extends pulumi.ComponentResource \{\n {4}readonly area: Area;\n {4}constructor\(name: string, args: WidgetArgs\);\n\}/);
            assert.doesNotMatch(s.report, /secret|Hidden/, "private members are not the surface");
        });
    });

    it("finds a name the library page's entry-point table lists that its entry point does not export", () => {
        withLibrary({
            "lib/a.ts": "export const ONE = 1;\n",
            "docs/reference/library.md": "| import from | what |\n| --- | --- |\n| `lib/a` | `ONE`, `TWO` |\n",
        }, (s) => {
            assert.deepStrictEqual(s.problems, ["docs/reference/library.md lists `TWO` under lib/a, which does not export it"]);
        });
    });

    it("reads each entry point's summary, components, values and the packages it loads for their values", () => {
        withLibrary({
            "lib/a.ts": "/**\n * Entry point `lib/a`: the thing. More words.\n */\nexport { Thing, HELPER } from \"../components/thing\";\nexport type { ThingArgs } from \"../components/thing\";\n",
            "components/thing.ts": [
                "import * as pulumi from \"@pulumi/pulumi\";",
                "import type * as docker from \"@pulumi/docker\";",
                "import * as fs from \"fs\";",
                "export const HELPER = fs.sep;",
                "export interface ThingArgs { image?: docker.Image }",
                "export class Thing extends pulumi.ComponentResource { constructor(name: string, args: ThingArgs) { super(\"t\", name, {}); } }",
            ].join("\n"),
        }, (s) => {
            const [entry] = s.entries;
            assert.deepStrictEqual([entry.specifier, entry.summary, entry.needs], ["lib/a", "the thing.", ["@pulumi/pulumi"]]);
            assert.deepStrictEqual(entry.exports, [
                { name: "HELPER", kind: "const", component: false },
                { name: "Thing", kind: "class", component: true },
                { name: "ThingArgs", kind: "interface", component: false },
            ]);
            assert.deepStrictEqual(renderEntryPointTable(s.entries, "1.2.3").split("\n").slice(-1),
                ["| `lib/a` | The thing. | `Thing` | `HELPER` | 1 | `@pulumi/pulumi` |"]);
        });
    });
});
