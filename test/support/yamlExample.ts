/**
 * The worked YAML program of docs/guides/other-languages.md: the first `yaml` block under its
 * `## YAML` heading. The end-to-end test runs exactly that text, so the page and the test cannot
 * drift apart.
 */
import * as fs from "fs";
import * as path from "path";

export const OTHER_LANGUAGES_PAGE = path.join("docs", "guides", "other-languages.md");

/** The first fenced `yaml` block of the section `heading` in `markdown`; an error naming what is missing. */
export function yamlBlockOfSection(markdown: string, heading: string): string {
    const lines = markdown.split("\n");
    const start = lines.indexOf(heading);
    if (start < 0) {
        throw new Error(`no heading ${JSON.stringify(heading)}`);
    }
    const end = lines.findIndex((l, i) => i > start && /^#{1,2} /.test(l));
    const section = lines.slice(start + 1, end < 0 ? undefined : end);
    const open = section.indexOf("```yaml");
    const close = section.findIndex((l, i) => i > open && l === "```");
    if (open < 0 || close < 0) {
        throw new Error(`no \`\`\`yaml block under ${JSON.stringify(heading)}`);
    }
    return `${section.slice(open + 1, close).join("\n")}\n`;
}

/** The documented YAML program (its `Pulumi.yaml`), read from the repository at `root`. */
export function documentedYamlProgram(root: string): string {
    return yamlBlockOfSection(fs.readFileSync(path.join(root, OTHER_LANGUAGES_PAGE), "utf8"), "## YAML");
}
