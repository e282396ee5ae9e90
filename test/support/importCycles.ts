/**
 * The product's import graph and its circles, read with the TypeScript compiler's parser (no type
 * check, no new dependency). Pure but for `readProductGraph`, which reads the files: the edges come
 * from `importsIn`, the circles from `importCircles` (Tarjan's strongly connected components).
 *
 * Every way one of our modules names another is an edge: `import` and `export ... from` (type-only
 * ones too), `import x = require()`, `require()`, `import()` and `import("...")` types. A circle
 * through type-only or lazy (`require` inside a function) edges does no harm at run time, but it
 * still means neither side can be read, moved or published without the other, which is the layering
 * a circle breaks; so they count (test/unit/project/importCycles.test.ts).
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/** One module name written in a file, and how. */
export interface ImportRef {
    /** As written: `"./configReader"`, `"@pulumi/pulumi"`. */
    readonly specifier: string;
    /** `import type`, `export type`, an `import("...")` type: erased at run time. */
    readonly typeOnly: boolean;
}

/** The module names `text` (the TypeScript source of `fileName`) imports, in order of appearance. */
export function importsIn(fileName: string, text: string): ImportRef[] {
    const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const found: ImportRef[] = [];
    const add = (node: ts.Node | undefined, typeOnly: boolean): void => {
        if (node !== undefined && ts.isStringLiteralLike(node)) {
            found.push({ specifier: node.text, typeOnly });
        }
    };
    const visit = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node)) {
            const clause = node.importClause;
            const allTypes = clause !== undefined && (clause.isTypeOnly
                || (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings)
                    && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
            add(node.moduleSpecifier, allTypes);
        } else if (ts.isExportDeclaration(node)) {
            const allTypes = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause)
                && node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly));
            add(node.moduleSpecifier, allTypes);
        } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
            add(node.moduleReference.expression, node.isTypeOnly);
        } else if (ts.isCallExpression(node)
            && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"))) {
            add(node.arguments[0], false);
        } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
            add(node.argument.literal, true);
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
}

/**
 * The repository path (`config/configReader.ts`) a relative `specifier` written in `from` names, as
 * Node and the compiler resolve it (`x.ts`, then `x/index.ts`), among `files`; undefined for a
 * package or a file that is not one of ours (`.json`).
 */
export function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
    if (!specifier.startsWith(".")) {
        return undefined;
    }
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
    return [base, `${base}.ts`, `${base}/index.ts`].find((candidate) => candidate.endsWith(".ts") && files.has(candidate));
}

/** Each file's imports of the others, from their texts (repository paths to TypeScript). */
export function importGraph(texts: ReadonlyMap<string, string>): Map<string, string[]> {
    const files = new Set(texts.keys());
    const graph = new Map<string, string[]>();
    for (const [file, text] of texts) {
        const targets = importsIn(file, text).map((ref) => resolveSpecifier(file, ref.specifier, files));
        graph.set(file, [...new Set(targets.filter((t): t is string => t !== undefined))].sort());
    }
    return graph;
}

/**
 * The circles of `graph`: its strongly connected components of two files or more, and a file that
 * imports itself; each sorted, the largest first. Tarjan's algorithm, iterative (no recursion depth).
 */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    const circles: string[][] = [];
    let next = 0;
    for (const root of [...graph.keys()].sort()) {
        if (index.has(root)) {
            continue;
        }
        const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
        index.set(root, next);
        low.set(root, next++);
        stack.push(root);
        onStack.add(root);
        while (work.length > 0) {
            const frame = work[work.length - 1];
            const edges = graph.get(frame.node) ?? [];
            if (frame.edge < edges.length) {
                const target = edges[frame.edge++];
                if (!graph.has(target)) {
                    continue;
                }
                if (!index.has(target)) {
                    index.set(target, next);
                    low.set(target, next++);
                    stack.push(target);
                    onStack.add(target);
                    work.push({ node: target, edge: 0 });
                } else if (onStack.has(target)) {
                    low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(target) as number));
                }
                continue;
            }
            work.pop();
            if (work.length > 0) {
                const parent = work[work.length - 1].node;
                low.set(parent, Math.min(low.get(parent) as number, low.get(frame.node) as number));
            }
            if (low.get(frame.node) === index.get(frame.node)) {
                const component: string[] = [];
                let member: string;
                do {
                    member = stack.pop() as string;
                    onStack.delete(member);
                    component.push(member);
                } while (member !== frame.node);
                if (component.length > 1 || edges.includes(frame.node)) {
                    circles.push(component.sort());
                }
            }
        }
    }
    return circles.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

/** One path round a circle, from its first file back to it (`a.ts -> b.ts -> a.ts`), to show where to cut. */
export function circlePath(graph: ReadonlyMap<string, readonly string[]>, circle: readonly string[]): string[] {
    const members = new Set(circle);
    const start = circle[0];
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
        const node = queue.shift() as string;
        for (const target of graph.get(node) ?? []) {
            if (target === start) {
                const route = [start];
                for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) {
                    route.splice(1, 0, at);
                }
                return [...route, start];
            }
            if (members.has(target) && !previous.has(target) && target !== start) {
                previous.set(target, node);
                queue.push(target);
            }
        }
    }
    return [start];
}

/** The product's sources: where the program, the library and the CLI come from (tests, tools and benchmarks aside). */
export const PRODUCT = ["index.ts", "cli", "components", "config", "contract", "facade", "lib", "model", "observability", "ops", "policy", "serving", "stacks"];

/** The product's TypeScript files under `root` (declaration files aside), as repository paths. */
export function productFiles(root: string, roots: readonly string[] = PRODUCT): string[] {
    const walk = (rel: string): string[] => {
        const full = path.join(root, rel);
        if (!fs.existsSync(full)) {
            return [];
        }
        if (fs.statSync(full).isFile()) {
            return rel.endsWith(".ts") && !rel.endsWith(".d.ts") ? [rel] : [];
        }
        return fs.readdirSync(full).sort().flatMap((entry) => (entry === "node_modules" ? [] : walk(path.posix.join(rel, entry))));
    };
    return roots.flatMap(walk);
}

/** The import graph of the product's sources under `root`. */
export function readProductGraph(root: string): Map<string, string[]> {
    return importGraph(new Map(productFiles(root).map((file) => [file, fs.readFileSync(path.join(root, file), "utf8")])));
}

if (require.main === module) {
    const graph = readProductGraph(path.resolve(__dirname, "../.."));
    const circles = importCircles(graph);
    console.log(`${graph.size} files, ${circles.length} circle(s), ${circles.reduce((n, c) => n + c.length, 0)} file(s) in them`);
    for (const circle of circles) {
        console.log(`\n${circle.length} files: ${circle.join(" ")}\n  e.g. ${circlePath(graph, circle).join(" -> ")}`);
    }
}
