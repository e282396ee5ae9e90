/**
 * The library page's generated part (docs/reference/library.md, between its `entry points` markers):
 * the package's version and, for each entry point of the API report, what it is, the components and
 * the other values it exports, and the packages importing it loads. `npm run docs` writes it.
 */
import * as fs from "fs";
import * as path from "path";
import { EntryExports, REPORT_FILE } from "./surface";

const code = (names: string[]) => (names.length === 0 ? "none" : names.map((n) => `\`${n}\``).join(", "));

/** The table of entry points, from the surface the API report is made of. */
export function renderEntryPointTable(entries: EntryExports[], version: string): string {
    const report = path.basename(REPORT_FILE);
    const rows = entries.map((entry) => {
        const components = entry.exports.filter((e) => e.component).map((e) => e.name);
        const values = entry.exports.filter((e) => !e.component && ["class", "function", "const", "enum"].includes(e.kind)).map((e) => e.name);
        const types = entry.exports.filter((e) => ["interface", "type"].includes(e.kind)).length;
        const needs = entry.needs.filter((n) => n.startsWith("@pulumi/"));
        const what = entry.summary.charAt(0).toUpperCase() + entry.summary.slice(1);
        return `| \`${entry.specifier}\` | ${what} | ${code(components)} | ${code(values)} | ${types} | ${needs.length === 0 ? "no Pulumi SDK" : code(needs)} |`;
    });
    return [
        `Version ${version} ([changes](../../CHANGELOG.md#library)). Every name below, with its signature, is in [the API report](${report}).`,
        "",
        "| import from | what | components | other values | types | needs |",
        "| --- | --- | --- | --- | --- | --- |",
        ...rows,
    ].join("\n");
}

/** The package's version, from package.json. */
export function packageVersion(root: string): string {
    return (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
}
