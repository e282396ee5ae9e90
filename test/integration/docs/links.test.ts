/*
 * Links that cannot rot: every relative link and anchor of the project's Markdown, and every docs
 * page a source file cites (`docs/<page>.md#<anchor>` in a message or comment), resolves. Anchors
 * follow GitHub's rules (github/cmark-gfm's anchors, as html-pipeline's TableOfContentsFilter
 * makes them: lowercase, punctuation but `-` and `_` dropped, spaces to `-`, repeats `-1`, `-2`).
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { anchorsOf, docCitationsOf, githubSlug, linksOf } from "../../../tools/docs/markdown";
import { brokenLinks, formatBroken } from "../../../tools/docs/links";

const ROOT = path.resolve(__dirname, "../../..");
// Written in pieces so that this file does not cite the pages itself.
const DOCS = "docs";

/** The project's files, tracked or new (not ignored): what a commit would hold. */
function projectFiles(): string[] {
    return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
        .split("\n").filter((f) => f !== "" && fs.existsSync(path.join(ROOT, f)));
}

/** The Markdown a user or contributor reads. */
function isUserMarkdown(f: string): boolean {
    return ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"].includes(f)
        || (f.startsWith(`${DOCS}/`) && f.endsWith(".md"))
        || f === "tools/e2e-env/README.md" || f === "policy/README.md";
}

/** Sources whose messages and comments may cite a docs page. */
function isSource(f: string): boolean {
    return /\.(ts|go|js|mjs|ya?ml)$/.test(f) || f.startsWith("scripts/") || f.startsWith(".ci/");
}

describe("docs links", () => {
    it("every relative link and anchor in README, CONTRIBUTING, CHANGELOG and docs resolves, and every docs page cited in a source", () => {
        const files = projectFiles().filter((f) => isUserMarkdown(f) || isSource(f));
        assert.ok(files.includes("README.md") && files.some((f) => f.startsWith(`${DOCS}/`)), "the docs are where the test looks");
        const broken = brokenLinks(ROOT, files);
        assert.deepStrictEqual(broken.map(formatBroken), [],
            `links that point nowhere (fix the link, or the heading it names):\n${broken.map(formatBroken).join("\n")}`);
    });

    it("finds a broken link, a broken anchor and a broken citation, each at its line", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-links-"));
        try {
            fs.mkdirSync(path.join(dir, DOCS, "guides"), { recursive: true });
            fs.writeFileSync(path.join(dir, DOCS, "guides", "canary.md"), "# Canary\n\n## What it is not\n\nSee [here](#what-it-is-not) and [there](../gone.md).\n");
            fs.writeFileSync(path.join(dir, "README.md"), `# T\n\n[ok](${DOCS}/guides/canary.md#what-it-is-not)\n[bad](${DOCS}/guides/canary.md#what-it-is)\n`);
            fs.writeFileSync(path.join(dir, "config.ts"), `// fine: ${DOCS}/guides/canary.md#what-it-is-not\nconst m = "see ${DOCS}/guides/canary.md#turning-it-off";\n`);
            const broken = brokenLinks(dir, ["README.md", `${DOCS}/guides/canary.md`, "config.ts"]).map(formatBroken);
            assert.deepStrictEqual(broken, [
                `README.md:4: ${DOCS}/guides/canary.md#what-it-is: no heading with anchor #what-it-is in ${DOCS}/guides/canary.md`,
                `${DOCS}/guides/canary.md:5: ../gone.md: no such file ${DOCS}/gone.md`,
                `config.ts:2: ${DOCS}/guides/canary.md#turning-it-off: no heading with anchor #turning-it-off in ${DOCS}/guides/canary.md`,
            ]);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe("GitHub anchors", () => {
    it("slugs headings as GitHub does", () => {
        assert.strictEqual(githubSlug("`tfs smoke`: is the endpoint serving?"), "tfs-smoke-is-the-endpoint-serving");
        assert.strictEqual(githubSlug("Benchmarks (`npm run bench -- --json`)"), "benchmarks-npm-run-bench------json");
        assert.strictEqual(githubSlug("`gke` (cloud: gcp)"), "gke-cloud-gcp");
        assert.strictEqual(githubSlug("GKE: why the Stackdriver adapter, and what the HPA reads"), "gke-why-the-stackdriver-adapter-and-what-the-hpa-reads");
        assert.strictEqual(githubSlug("snake_case and [a link](x.md)"), "snake_case-and-a-link");
    });

    it("numbers repeated headings, and skips headings inside code", () => {
        const anchors = anchorsOf("# Costs\n\n## Costs\n\n```bash\n# not a heading\n```\n\n## Costs\n<a id=\"kept\"></a>\n");
        assert.deepStrictEqual([...anchors].sort(), ["costs", "costs-1", "costs-2", "kept"]);
    });

    it("reads inline links and reference definitions, not code", () => {
        const links = linksOf("a [x](one.md#b) `[y](not.md)`\n\n```\n[z](nor.md)\n```\n[ref]: two.md\n");
        assert.deepStrictEqual(links, [{ line: 1, target: "one.md#b" }, { line: 6, target: "two.md" }]);
    });

    it("reads our docs citations, not another project's docs folder", () => {
        const cites = docCitationsOf(`see ${DOCS}/guides/canary.md#what-it-is-not.\nprometheus-adapter/${DOCS}/config.md`);
        assert.deepStrictEqual(cites, [{ line: 1, target: `${DOCS}/guides/canary.md#what-it-is-not` }]);
    });
});
