/**
 * The label matchers of a PromQL expression's selectors (`metric{name op "value", ...}`), enough to
 * state a controller's rules about them. Not a PromQL parser: it finds every `{...}` outside string
 * literals, which in PromQL is always a selector's matcher list; promtool checks the expression parses.
 */

export interface LabelMatcher {
    name: string;
    op: "=" | "!=" | "=~" | "!~";
    value: string;
}

/** Index just past the string literal that opens at `start` (`"`, `'` or a backtick). */
function skipString(expr: string, start: number): number {
    const quote = expr[start];
    let i = start + 1;
    while (i < expr.length && expr[i] !== quote) {
        i += quote !== "`" && expr[i] === "\\" ? 2 : 1;
    }
    return i + 1;
}

/** A double-quoted literal's escapes are Go's, which JSON's cover for the matchers rendered here. */
function unquote(literal: string): string {
    return literal[0] === "\"" ? JSON.parse(literal) as string : literal.slice(1, -1);
}

function parseMatcher(text: string): LabelMatcher {
    const m = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)\s*$/.exec(text);
    if (!m) {
        throw new Error(`not a label matcher: ${text}`);
    }
    return { name: m[1], op: m[2] as LabelMatcher["op"], value: unquote(m[3]) };
}

/** Every selector's matchers, in the order they appear. */
export function selectorMatchers(expr: string): LabelMatcher[][] {
    const selectors: LabelMatcher[][] = [];
    let i = 0;
    while (i < expr.length) {
        const c = expr[i];
        if (c === "\"" || c === "'" || c === "`") {
            i = skipString(expr, i);
        } else if (c === "{") {
            const matchers: LabelMatcher[] = [];
            let j = i + 1;
            let from = j;
            for (; expr[j] !== "}"; ) {
                if (j >= expr.length) {
                    throw new Error(`unclosed selector in ${expr}`);
                }
                if (expr[j] === "\"" || expr[j] === "'" || expr[j] === "`") {
                    j = skipString(expr, j);
                } else if (expr[j] === ",") {
                    matchers.push(parseMatcher(expr.slice(from, j)));
                    from = ++j;
                } else {
                    j++;
                }
            }
            if (expr.slice(from, j).trim() !== "") {
                matchers.push(parseMatcher(expr.slice(from, j)));
            }
            selectors.push(matchers);
            i = j + 1;
        } else {
            i++;
        }
    }
    return selectors;
}
