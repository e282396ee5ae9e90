/**
 * What the docs tooling needs to know about Markdown: GitHub's heading anchors and the relative
 * links of a page. Pure: text in, facts out.
 */

/** A line of a Markdown file, 1-based, with whether it sits inside a fenced code block. */
interface MarkdownLine {
    line: number;
    text: string;
    fenced: boolean;
}

function markdownLines(markdown: string): MarkdownLine[] {
    const lines: MarkdownLine[] = [];
    let fence: string | undefined;
    markdown.split("\n").forEach((text, i) => {
        const opener = /^ {0,3}(`{3,}|~{3,})/.exec(text);
        if (fence === undefined && opener) {
            fence = opener[1];
            lines.push({ line: i + 1, text, fenced: true });
            return;
        }
        if (fence !== undefined) {
            if (text.trim().startsWith(fence) && text.trim().replace(/[`~]/g, "") === "") {
                fence = undefined;
            }
            lines.push({ line: i + 1, text, fenced: true });
            return;
        }
        lines.push({ line: i + 1, text, fenced: false });
    });
    return lines;
}

/**
 * GitHub's anchor for a heading: the heading's rendered text lowercased, every character that is not
 * a letter, digit, space, `-` or `_` dropped, and spaces turned into `-` (github/cmark-gfm's
 * anchor filter, as html-pipeline's TableOfContentsFilter applies it).
 */
export function githubSlug(heading: string): string {
    const rendered = heading
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")   // links and images: their text
        .replace(/<[^>]+>/g, "")                      // inline HTML tags
        .replace(/[`*]/g, "")                         // code spans and emphasis markers (`_` stays: GitHub keeps it)
        .trim();
    return rendered.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\- _]/gu, "").replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' slugs (a repeated one gets `-1`, `-2`, …) and `<a id|name>` targets. */
export function anchorsOf(markdown: string): Set<string> {
    const anchors = new Set<string>();
    const seen = new Map<string, number>();
    for (const { text, fenced } of markdownLines(markdown)) {
        if (fenced) {
            continue;
        }
        const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
        if (heading) {
            const base = githubSlug(heading[1]);
            const n = seen.get(base) ?? 0;
            seen.set(base, n + 1);
            anchors.add(n === 0 ? base : `${base}-${n}`);
        }
        for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) {
            anchors.add(m[1]);
        }
    }
    return anchors;
}

/** A link target written in a file, with its line. */
export interface LinkAt {
    line: number;
    target: string;
}

/** The targets of a page's inline links and link reference definitions, outside code. */
export function linksOf(markdown: string): LinkAt[] {
    const links: LinkAt[] = [];
    for (const { line, text, fenced } of markdownLines(markdown)) {
        if (fenced) {
            continue;
        }
        const prose = text.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
        for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
            links.push({ line, target: m[1] });
        }
        const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+".*")?\s*$/.exec(prose);
        if (definition) {
            links.push({ line, target: definition[1] });
        }
    }
    return links;
}

/**
 * The docs pages a source file cites (`docs/guides/canary.md#what-it-is-not`), with their lines: a
 * `docs/` path not preceded by another path segment (so another project's `x/docs/config.md` is not ours).
 */
export function docCitationsOf(source: string): LinkAt[] {
    const citations: LinkAt[] = [];
    source.split("\n").forEach((text, i) => {
        for (const m of text.matchAll(/(?<![\w./-])docs\/[\w./-]*?\.md(?:#[\w-]+)?/g)) {
            citations.push({ line: i + 1, target: m[0] });
        }
    });
    return citations;
}
