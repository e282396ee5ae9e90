/**
 * Resolves the relative links of the project's Markdown and the docs pages its sources cite, so a
 * renamed page or heading fails a test instead of leaving a message that points nowhere.
 */
import * as fs from "fs";
import * as path from "path";
import { LinkAt, anchorsOf, docCitationsOf, linksOf } from "./markdown";

/** A link that does not resolve: where it is written, what it says, and why it fails. */
export interface BrokenLink {
    file: string;
    line: number;
    link: string;
    problem: string;
}

/** `file:line: link: problem`, the form editors and terminals turn into a jump. */
export function formatBroken(b: BrokenLink): string {
    return `${b.file}:${b.line}: ${b.link}: ${b.problem}`;
}

function isExternal(target: string): boolean {
    return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");
}

/**
 * Checks each link of `files` (paths relative to `root`). Markdown files are read for their links,
 * resolved from their own folder; other files for the docs pages they cite (`markdown.docCitationsOf`),
 * resolved from `root`. An anchor must be a heading (or `<a id>`) of the Markdown page it names.
 */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
    const anchorCache = new Map<string, Set<string>>();
    const anchors = (absolute: string) => {
        let a = anchorCache.get(absolute);
        if (a === undefined) {
            a = anchorsOf(fs.readFileSync(absolute, "utf8"));
            anchorCache.set(absolute, a);
        }
        return a;
    };
    const broken: BrokenLink[] = [];
    for (const file of files) {
        const absolute = path.join(root, file);
        const text = fs.readFileSync(absolute, "utf8");
        const markdown = file.endsWith(".md");
        const links: LinkAt[] = markdown ? linksOf(text) : docCitationsOf(text);
        for (const { line, target } of links) {
            if (isExternal(target)) {
                continue;
            }
            const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
            const resolved = pathPart === ""
                ? absolute
                : path.resolve(markdown ? path.dirname(absolute) : root, decodeURI(pathPart));
            const report = (problem: string) => broken.push({ file, line, link: target, problem });
            if (!fs.existsSync(resolved)) {
                report(`no such file ${path.relative(root, resolved)}`);
                continue;
            }
            if (anchor === undefined || anchor === "") {
                continue;
            }
            if (!resolved.endsWith(".md") || fs.statSync(resolved).isDirectory()) {
                report("an anchor on a file that is not a Markdown page");
                continue;
            }
            if (!anchors(resolved).has(anchor)) {
                report(`no heading with anchor #${anchor} in ${path.relative(root, resolved)}`);
            }
        }
    }
    return broken;
}
