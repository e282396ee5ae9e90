import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { CLOUDS } from "../../../../config/config";
import { cloudAbout, cloudRules } from "../../../../components/clouds/registry";

/**
 * The folder rules of docs/development/adding-a-cloud.md, read from the sources' import statements
 * (static imports, `import()` and `require()`, type-only ones too): a cloud is one folder under
 * components/clouds/, reached from outside only through the registries beside the folders.
 */
const ROOT = path.resolve(__dirname, "../../../..");
const PRODUCT = ["index.ts", "cli", "components", "config", "contract", "lib", "model", "observability", "ops", "serving", "stacks"];
const CLOUD_DIR = "components/clouds";
/** Each cloud's provider SDK, which only its folder and its composition in stacks/ may load. */
const SDKS: Record<string, string> = { "@pulumi/gcp": "gcp", "@pulumi/aws": "aws" };
/** Files outside the folders that belong to one cloud: its composition, and its public entry point. */
const CLOUD_FILES: Record<string, string> = {
    "stacks/local.ts": "local", "stacks/gcp.ts": "gcp", "stacks/aws.ts": "aws", "stacks/eksNodeGroupSizes.ts": "aws",
    "lib/gke.ts": "gcp", "lib/eks.ts": "aws",
};
/**
 * The packed command's table of the library modules it requires (lib/command.ts): it names every
 * module the command's files import, each cloud's among them, and loads each only when asked.
 */
const COMMAND_TABLE = "lib/command.ts";

function sources(rel: string): string[] {
    const full = path.join(ROOT, rel);
    if (fs.statSync(full).isFile()) {
        return rel.endsWith(".ts") && !rel.endsWith(".d.ts") ? [rel] : [];
    }
    return fs.readdirSync(full).flatMap((entry) => sources(path.posix.join(rel, entry)));
}

/** What `file` imports: package names as written, our modules as repository paths without `.ts`. */
function importsOf(file: string): string[] {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["']([^"']+)["']/gm)].map((m) => m[1]);
    return specs.map((s) => (s.startsWith(".") ? path.posix.normalize(path.posix.join(path.posix.dirname(file), s)) : s));
}

/**
 * The modules beside the folders through which the rest reaches a cloud: `registry` (the config layer
 * and the program), `cloud` (the interface), `gateways` and `collectors` (what the cloud-agnostic
 * components render for a cloud's Gateway controller and managed collector, pure).
 */
const REGISTRIES = ["registry", "cloud", "gateways", "collectors"];
/** The registries the cloud-agnostic components import: they may load no SDK at all, however deep. */
const PURE_REGISTRIES = ["components/clouds/gateways", "components/clouds/collectors"];
/** Where no cloud may be named in code (comments aside): what a cloud needs there, its folder supplies. */
const CLOUD_FREE = ["config", "serving", "observability", "model"];
const ADDING_A_CLOUD = "docs/development/adding-a-cloud.md";

/**
 * The places in `text` (TypeScript, comments blanked) that name a cloud or its platform: a string that
 * is one (`"gke"`, `'aws'`), a section read by name (`config.gke`), or an identifier that starts with one
 * (`GKE_DEFAULT_GATEWAY_CLASS`, `EksDeployed`, `gmpRules`), each as `line: text`.
 */
function cloudNames(text: string): string[] {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
    const named = /["'`](gke|eks|gcp|aws)["'`]|\.(gke|eks)\b|\b(gke|eks|gcp|aws|gmp|alb)(?=[A-Z_]|\b)|\b(GKE|EKS|GCP|AWS|GMP|ALB|Gke|Eks|Gcp|Aws|Gmp|Alb)(?=[A-Z_a-z]|\b)/;
    return code.split("\n").flatMap((line, i) => (named.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
}

const cloudOf = (module: string): string | undefined => (module.startsWith(`${CLOUD_DIR}/`) ? module.slice(CLOUD_DIR.length + 1).split("/")[0] : undefined);
const FILES = PRODUCT.flatMap(sources);

describe("one folder per cloud (the imports)", () => {
    it("reads the product's sources (the walk finds the folders and the imports)", () => {
        assert.ok(FILES.includes("components/clouds/gcp/cluster.ts") && FILES.includes("config/config.ts"), FILES.slice(0, 5).join(", "));
        assert.ok(importsOf("config/config.ts").includes("components/clouds/registry"));
    });

    it("a cloud's SDK is imported only in its folder and its composition", () => {
        const wrong = FILES.flatMap((file) => importsOf(file).filter((m) => m in SDKS)
            .filter((m) => cloudOf(file) !== SDKS[m] && CLOUD_FILES[file] !== SDKS[m]).map((m) => `${file} imports ${m}`));
        assert.deepStrictEqual(wrong, []);
    });

    it("a cloud's folder imports no other cloud's folder", () => {
        const wrong = FILES.filter((file) => cloudOf(file) !== undefined && !REGISTRIES.map((r) => `${r}.ts`).includes(cloudOf(file) as string))
            .flatMap((file) => importsOf(file).filter((m) => cloudOf(m) !== undefined && cloudOf(m) !== cloudOf(file) && !REGISTRIES.includes(cloudOf(m) as string))
                .map((m) => `${file} imports ${m}`));
        assert.deepStrictEqual(wrong, []);
    });

    it("outside the folders a cloud is reached through the registries, but for its own composition and entry point", () => {
        const found: Record<string, string[]> = {};
        for (const file of FILES.filter((f) => cloudOf(f) === undefined && f !== COMMAND_TABLE)) {
            const direct = importsOf(file).filter((m) => {
                const cloud = cloudOf(m);
                return cloud !== undefined && !REGISTRIES.includes(cloud) && CLOUD_FILES[file] !== cloud;
            });
            if (direct.length > 0) {
                found[file] = direct;
            }
        }
        assert.deepStrictEqual(found, {}, "import a registry (components/clouds/registry.ts, gateways.ts, collectors.ts) instead, or give the cloud's rules the function (docs/development/adding-a-cloud.md)");
    });

    it("the registries the cloud-agnostic components import load no Pulumi SDK, however deep their imports go", () => {
        const seen = new Set<string>();
        const packages = new Set<string>();
        const visit = (module: string): void => {
            if (seen.has(module)) {
                return;
            }
            seen.add(module);
            for (const m of importsOf(`${module}.ts`)) {
                if (m.startsWith("@") || !m.includes("/") || !fs.existsSync(path.join(ROOT, `${m}.ts`))) {
                    packages.add(m);
                } else {
                    visit(m);
                }
            }
        };
        PURE_REGISTRIES.forEach(visit);
        assert.ok(seen.has("components/clouds/gcp/gateway") && seen.has("components/clouds/aws/gateway") && seen.has("components/clouds/gcp/collector"), [...seen].join(", "));
        assert.deepStrictEqual([...packages].filter((p) => p.startsWith("@pulumi/")), []);
    });

    it("names no cloud in the code of the config layer, serving, observability and the model (its folder supplies what it needs)", () => {
        const found = Object.fromEntries(FILES.filter((f) => CLOUD_FREE.some((dir) => f.startsWith(`${dir}/`)))
            .map((f) => [f, cloudNames(fs.readFileSync(path.join(ROOT, f), "utf8"))]).filter(([, lines]) => lines.length > 0));
        assert.deepStrictEqual(found, {}, "move the branch into the cloud's folder behind its CloudRules, GatewaySection or the gateways/collectors registries (docs/development/adding-a-cloud.md)");
    });

    it("the scan finds a cloud however the code names it, and not in comments or in names that merely contain one", () => {
        const caught = [
            "const fallback = cloud === \"gcp\" ? \"gke\" : \"annotations\";",
            "if (platform === 'eks') {",
            "return config.gke.region;",
            "export const GKE_DEFAULT_GATEWAY_CLASS = \"gke-l7-global-external-managed\";",
            "import type { EksDeployed } from \"x\";",
            "return gmpRules(model);",
            "const x = `${aws}`;",
        ];
        for (const line of caught) {
            assert.strictEqual(cloudNames(line).length, 1, line);
        }
        const passed = ["// on gke the class defaults", "/** GKE's Gateway (`platform: \"gke\"`) */", "const awsome = peaks.length;", "const escalate = gcpu;", "const ekstra = 1; // gke"];
        assert.deepStrictEqual(passed.flatMap(cloudNames), []);
    });

    it("adding-a-cloud.md lists every file outside the folders that names a cloud in its code, and only files that exist", () => {
        const page = fs.readFileSync(path.join(ROOT, ADDING_A_CLOUD), "utf8");
        const from = page.indexOf("## What stays outside the folders");
        assert.ok(from >= 0, `${ADDING_A_CLOUD}: no "What stays outside the folders"`);
        const end = page.indexOf("\n## ", from + 1);
        const section = page.slice(from, end < 0 ? undefined : end);
        const listed = [...section.matchAll(/`((?:[a-z]+\/)+(?:[\w.]+\.ts)?)`/g)].map((m) => m[1]);
        assert.deepStrictEqual(listed.filter((p) => !fs.existsSync(path.join(ROOT, p))), [], `${ADDING_A_CLOUD} lists paths that are gone`);
        const naming = [...FILES, ...sources("facade")].filter((f) => cloudOf(f) === undefined)
            .filter((f) => cloudNames(fs.readFileSync(path.join(ROOT, f), "utf8")).length > 0);
        assert.ok(naming.includes("stacks/gcp.ts") && naming.includes("facade/modelGateway.ts"), naming.join(", "));
        const unlisted = naming.filter((f) => !listed.some((p) => p === f || (p.endsWith("/") && f.startsWith(p))));
        assert.deepStrictEqual(unlisted, [], `name these in ${ADDING_A_CLOUD}#what-stays-outside-the-folders, or move what they know of a cloud into its folder`);
    });

    it("the model, serving and observability code imports no cloud, not even the registry", () => {
        const wrong = FILES.filter((f) => /^(model|serving|observability)\//.test(f))
            .flatMap((file) => importsOf(file).filter((m) => m.startsWith(`${CLOUD_DIR}/`)).map((m) => `${file} imports ${m}`));
        assert.deepStrictEqual(wrong, []);
    });

    it("the registry has every cloud of the `cloud` key, each a folder with its about.ts and cloud.ts", () => {
        for (const cloud of CLOUDS) {
            assert.ok(fs.existsSync(path.join(ROOT, CLOUD_DIR, cloud, "about.ts")) && fs.existsSync(path.join(ROOT, CLOUD_DIR, cloud, "cloud.ts")), cloud);
            assert.ok(cloudAbout(cloud).ownKeys.length > 0, `${cloud}: its own keys`);
            assert.strictEqual(typeof cloudRules(cloud).readSection, "function", cloud);
        }
        const keys = CLOUDS.flatMap((c) => cloudAbout(c).ownKeys);
        assert.strictEqual(new Set(keys).size, keys.length, `a key belongs to one cloud: ${keys.join(", ")}`);
    });
});
