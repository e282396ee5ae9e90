/**
 * The docs pages (or parts of pages) generated from the code, and where they go. A part of a
 * hand-written page sits between `<!-- BEGIN GENERATED: NAME -->` and `<!-- END GENERATED: NAME -->`.
 */
import * as fs from "fs";
import * as path from "path";
import { packageVersion, renderEntryPointTable } from "../api/libraryPage";
import { LIBRARY_PAGE, readSurface } from "../api/surface";
import { tfsProgram } from "../../cli/main";
import { renderAlertsPage } from "./alertsPage";
import { renderCliUsage } from "./cliUsage";
import { renderConfigurationTable } from "./configurationPage";

export const REGENERATE = "npm run docs";

/** A generated file: its path from the project root and its text as the code renders it. */
export interface GeneratedFile {
    file: string;
    render: (current: string) => string;
}

/** `page` with the text between NAME's markers replaced by `content`. */
export function inject(page: string, name: string, content: string): string {
    const begin = `<!-- BEGIN GENERATED: ${name} (${REGENERATE}) -->`;
    const end = `<!-- END GENERATED: ${name} -->`;
    const from = page.indexOf(begin);
    const to = page.indexOf(end);
    if (from < 0 || to < from) {
        throw new Error(`the page has no "${begin}" ... "${end}" markers to put ${name} between`);
    }
    return `${page.slice(0, from + begin.length)}\n${content}\n${page.slice(to)}`;
}

export function generatedFiles(root: string): GeneratedFile[] {
    return [
        { file: "docs/reference/alerts.md", render: () => renderAlertsPage(root) },
        {
            file: "docs/reference/configuration.md",
            render: (current) => inject(current, "Pulumi.yaml", renderConfigurationTable(fs.readFileSync(path.join(root, "Pulumi.yaml"), "utf8"))),
        },
        {
            file: "docs/reference/cli.md",
            render: (current) => inject(current, "usage", renderCliUsage(tfsProgram(() => undefined))),
        },
        {
            file: LIBRARY_PAGE,
            render: (current) => inject(current, "entry points", renderEntryPointTable(readSurface(root).entries, packageVersion(root))),
        },
    ];
}
