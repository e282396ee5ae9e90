/**
 * No import circle in the product's sources (the program, the library, the CLI: `PRODUCT` in
 * test/support/importCycles.ts). A circle means no file in it can be read, moved, tested or
 * published without all the others; the one between the config layer and the cloud folders (21
 * files) is why the cloud interface takes each cloud's own types and only the registry and the
 * config readers above it know every cloud (docs/development/adding-a-cloud.md, "Layers").
 *
 * Type-only imports count: they are erased at run time, so they cannot leave a module half
 * initialised, but a type names the module that declares it as surely as a value does, and a circle
 * of types ties the files together as tightly (the library's declarations, the API report and a
 * reader all follow them). Lazy `require()`s count for the same reason: the registry's are lazy so a
 * stack loads only its cloud's SDK, not so that a cloud may import back.
 */
import * as assert from "assert";
import * as path from "path";
import { circlePath, importCircles, importGraph, importsIn, productFiles, readProductGraph, resolveSpecifier } from "../../support/importCycles";

const ROOT = path.resolve(__dirname, "../../..");

describe("import circles (the detector)", () => {
    it("reads every way a file names a module, and which are types only", () => {
        const text = [
            "import * as fs from \"fs\";",
            "import type { A } from \"./a\";",
            "import { type B, type C } from \"./b\";",
            "import { D, type E } from \"./d\";",
            "export { F } from \"./f\";",
            "export type { G } from \"./g\";",
            "export * from \"./star\";",
            "import H = require(\"./h\");",
            "const i = require(\"./i\") as typeof import(\"./j\");",
            "async function k() { return import(\"./k\"); }",
            "// import { no } from \"./comment\";",
            "const s = \"from './string'\";",
        ].join("\n");
        assert.deepStrictEqual(importsIn("x.ts", text), [
            { specifier: "fs", typeOnly: false },
            { specifier: "./a", typeOnly: true },
            { specifier: "./b", typeOnly: true },
            { specifier: "./d", typeOnly: false },
            { specifier: "./f", typeOnly: false },
            { specifier: "./g", typeOnly: true },
            { specifier: "./star", typeOnly: false },
            { specifier: "./h", typeOnly: false },
            { specifier: "./i", typeOnly: false },
            { specifier: "./j", typeOnly: true },
            { specifier: "./k", typeOnly: false },
        ]);
    });

    it("resolves a relative name as Node does, to our TypeScript files only", () => {
        const files = new Set(["config/config.ts", "components/clouds/registry.ts", "lib/index.ts"]);
        assert.strictEqual(resolveSpecifier("config/config.ts", "../components/clouds/registry", files), "components/clouds/registry.ts");
        assert.strictEqual(resolveSpecifier("index.ts", "./lib", files), "lib/index.ts");
        assert.strictEqual(resolveSpecifier("config/config.ts", "./config.ts", files), "config/config.ts");
        assert.strictEqual(resolveSpecifier("config/config.ts", "../package.json", files), undefined);
        assert.strictEqual(resolveSpecifier("config/config.ts", "@pulumi/pulumi", files), undefined);
    });

    it("finds each circle of a small graph, and nothing in a graph without one", () => {
        const graph = importGraph(new Map([
            ["a.ts", "import { b } from \"./b\";"],
            ["b.ts", "import type { C } from \"./c\"; import { d } from \"./d\";"],
            ["c.ts", "export const c = require(\"./a\");"],
            ["d.ts", "import { e } from \"./e\";"],
            ["e.ts", "import { d } from \"./d\";"],
            ["f.ts", "import { f } from \"./f\";"],
            ["g.ts", "import { a } from \"./a\"; import * as fs from \"fs\";"],
        ]));
        assert.deepStrictEqual(importCircles(graph), [["a.ts", "b.ts", "c.ts"], ["d.ts", "e.ts"], ["f.ts"]]);
        assert.deepStrictEqual(circlePath(graph, ["a.ts", "b.ts", "c.ts"]), ["a.ts", "b.ts", "c.ts", "a.ts"]);
        const cut = new Map(graph);
        cut.set("c.ts", []);
        cut.set("e.ts", []);
        cut.set("f.ts", []);
        assert.deepStrictEqual(importCircles(cut), []);
    });

    it("walks a long chain without running out of stack", () => {
        const graph = new Map(Array.from({ length: 20000 }, (_, i) => [`m${i}.ts`, [`m${(i + 1) % 20000}.ts`]] as [string, string[]]));
        assert.strictEqual(importCircles(graph)[0].length, 20000);
    });
});

describe("import circles (the product)", () => {
    const graph = readProductGraph(ROOT);

    it("reads the product's sources and their imports", () => {
        const files = productFiles(ROOT);
        assert.ok(files.length > 150 && files.includes("index.ts") && files.includes("lib/components.ts") && files.includes("facade/modelGateway.ts"), `${files.length} files`);
        assert.ok((graph.get("config/config.ts") ?? []).includes("components/clouds/registry.ts"), "config/config.ts imports the registry");
        assert.ok((graph.get("components/clouds/registry.ts") ?? []).includes("components/clouds/gcp/cloud.ts"), "the registry's lazy require of a cloud is an edge");
    });

    it("has no import circle", () => {
        const circles = importCircles(graph);
        const shown = circles.map((circle) => `${circle.length} files: ${circle.join(", ")}\n    e.g. ${circlePath(graph, circle).join(" -> ")}`);
        assert.deepStrictEqual(shown, [], "cut each circle where a lower layer imports a higher one (docs/development/adding-a-cloud.md, \"Layers\"); " +
            "`npx ts-node -T test/support/importCycles.ts` lists them");
    });
});

describe("the layers around the cloud registry", () => {
    const graph = readProductGraph(ROOT);
    const REGISTRY = "components/clouds/registry.ts";
    /** Every file `from` imports, directly or not. */
    const reach = (from: string): Set<string> => {
        const seen = new Set<string>();
        const pending = [...(graph.get(from) ?? [])];
        while (pending.length > 0) {
            const next = pending.pop() as string;
            if (!seen.has(next)) {
                seen.add(next);
                pending.push(...(graph.get(next) ?? []));
            }
        }
        return seen;
    };

    it("the registry reaches every cloud's rules, and the config readers reach the registry", () => {
        const below = reach(REGISTRY);
        for (const file of ["components/clouds/cloud.ts", "components/clouds/gcp/cloud.ts", "components/clouds/aws/cloud.ts", "components/clouds/local/cloud.ts", "config/settings.ts", "config/configReader.ts"]) {
            assert.ok(below.has(file), file);
        }
        for (const file of ["config/config.ts", "config/credentials.ts", "config/liveChanges.ts", "config/poolNodes.ts"]) {
            assert.ok(reach(file).has(REGISTRY), file);
        }
    });

    it("no file of the cloud folders or the interface reaches the registry, however deep (nor the config modules they import)", () => {
        const folders = productFiles(ROOT, ["components/clouds"]).filter((file) => file !== REGISTRY && reach(file).has(REGISTRY));
        assert.deepStrictEqual(folders, [], "a cloud's folder imports the config layer's modules that know no cloud (docs/development/adding-a-cloud.md, \"Layers\")");
    });
});
