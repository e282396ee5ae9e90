/**
 * The library's public surface, read with the TypeScript compiler API: what each entry point of
 * package.json's `exports` exports (name, kind, declared signature) as one stable text report, and
 * what is wrong with it: a public declaration that names a type of ours no entry point exports, a
 * component (a `pulumi.ComponentResource` under `components/`) in no entry point, a doc comment that
 * names a constant that does not exist or is not exported, and a name the entry-point table of the
 * library page lists that its entry point does not export.
 *
 * Only our own sources are read: imports of packages stay unresolved (their types print as written),
 * so the program is small, fast to build, and the report does not move when an SDK does.
 */
import * as fs from "fs";
import { builtinModules } from "module";
import * as path from "path";
import * as ts from "typescript";

export const REPORT_FILE = "docs/reference/api-report.md";
export const REGENERATE_REPORT = "npx ts-node -T tools/api/report.ts --write";
export const LIBRARY_PAGE = "docs/reference/library.md";

export interface EntryPoint {
    /** The import specifier, e.g. `tf-serving/gke`. */
    specifier: string;
    /** Its source, relative to the root, e.g. `lib/gke.ts`. */
    source: string;
}

/** One exported name of an entry point. */
export interface ExportedName {
    name: string;
    /** `class`, `interface`, `type`, `function`, `const`, `enum`. */
    kind: string;
    /** A `pulumi.ComponentResource`. */
    component: boolean;
}

/** What an entry point exports and the packages its module loads when imported. */
export interface EntryExports extends EntryPoint {
    /** What the entry's source says it is: its doc comment's first sentence, after "Entry point `...`:". */
    summary: string;
    exports: ExportedName[];
    /** The packages (not Node's own modules) the entry's modules import for their values, sorted. */
    needs: string[];
}

export interface Surface {
    report: string;
    problems: string[];
    entries: EntryExports[];
}

/** The entry points of package.json's `exports` (their `types` condition, mapped back to the source). */
export function entryPoints(root: string): EntryPoint[] {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { name: string; exports: Record<string, unknown> };
    return Object.entries(pkg.exports)
        .filter(([, target]) => typeof target === "object" && target !== null && typeof (target as { types?: unknown }).types === "string")
        .map(([key, target]) => ({
            specifier: key === "." ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, "")}`,
            source: (target as { types: string }).types.replace(/^\.\//, "").replace(/^dist\//, "").replace(/\.d\.ts$/, ".ts"),
        }));
}

/** The component sources: every `.ts` file under `components/`. */
function componentSources(root: string): string[] {
    const walk = (dir: string): string[] => fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [`${dir}/${e.name}`] : []);
    return walk("components");
}

/** One program over the entry points and the components, resolving only relative imports. */
function createProgram(root: string, files: string[]): ts.Program {
    // No default library and no packages: the checker is used for our own symbols only.
    const options: ts.CompilerOptions = {
        target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, noLib: true, types: [], noEmit: true, strict: true,
        resolveJsonModule: true,
    };
    const host = ts.createCompilerHost(options, true);
    host.resolveModuleNames = (names, containing) => names.map((name) =>
        name.startsWith(".") ? ts.resolveModuleName(name, containing, options, host).resolvedModule : undefined);
    return ts.createProgram(files.map((f) => path.join(root, f)), options, host);
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** A node as source text without comments, on one line. */
function print(node: ts.Node, sf: ts.SourceFile): string {
    return printer.printNode(ts.EmitHint.Unspecified, node, sf).replace(/\s+/g, " ").replace(/ ;/g, ";").trim();
}

function isPrivate(member: ts.ClassElement): boolean {
    const flags = ts.getCombinedModifierFlags(member as ts.Declaration);
    return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0
        || (member.name !== undefined && ts.isPrivateIdentifier(member.name));
}

function kindOf(decl: ts.Declaration): string {
    if (ts.isClassDeclaration(decl)) return "class";
    if (ts.isInterfaceDeclaration(decl)) return "interface";
    if (ts.isTypeAliasDeclaration(decl)) return "type";
    if (ts.isFunctionDeclaration(decl)) return "function";
    if (ts.isEnumDeclaration(decl)) return "enum";
    if (ts.isVariableDeclaration(decl)) return "const";
    return ts.SyntaxKind[decl.kind];
}

export function readSurface(root: string): Surface {
    const entries = entryPoints(root);
    const components = componentSources(root);
    const program = createProgram(root, [...entries.map((e) => e.source), ...components]);
    const checker = program.getTypeChecker();
    const problems: string[] = [];
    const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");
    const isOurs = (sf: ts.SourceFile) => !sf.isDeclarationFile && !relative(sf.fileName).startsWith("..") && !sf.fileName.includes("/node_modules/");
    const resolve = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
    const ownDeclaration = (symbol: ts.Symbol | undefined): ts.Declaration | undefined => {
        const decl = symbol === undefined ? undefined : resolve(symbol).declarations?.[0];
        return decl !== undefined && isOurs(decl.getSourceFile()) ? decl : undefined;
    };

    // What each entry point exports, and who exports each symbol.
    const exportsOf = new Map<string, Map<string, ts.Symbol>>();
    const exported = new Map<ts.Symbol, string>();
    for (const entry of entries) {
        const sf = program.getSourceFile(path.join(root, entry.source));
        const moduleSymbol = sf === undefined ? undefined : checker.getSymbolAtLocation(sf);
        if (moduleSymbol === undefined) {
            problems.push(`${entry.specifier}: its source ${entry.source} is missing or exports nothing`);
            continue;
        }
        const names = new Map<string, ts.Symbol>();
        for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
            const target = resolve(symbol);
            names.set(symbol.name, target);
            if (!exported.has(target)) {
                exported.set(target, symbol.name);
            }
        }
        exportsOf.set(entry.specifier, names);
    }
    const isExported = (symbol: ts.Symbol) => exported.has(resolve(symbol));

    // The types of ours a declaration names: in its type nodes and, where it has none, its inferred type.
    const namedTypes = (nodes: ts.Node[], inferred: ts.Type[]): ts.Symbol[] => {
        const found: ts.Symbol[] = [];
        const visit = (node: ts.Node): void => {
            let name: ts.Node | undefined;
            if (ts.isTypeReferenceNode(node)) name = node.typeName;
            else if (ts.isExpressionWithTypeArguments(node)) name = node.expression;
            else if (ts.isTypeQueryNode(node)) name = node.exprName;
            if (name !== undefined) {
                const symbol = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.right : ts.isPropertyAccessExpression(name) ? name.name : name);
                if (symbol !== undefined && ownDeclaration(symbol) !== undefined && !ts.isTypeParameterDeclaration(ownDeclaration(symbol)!)) {
                    found.push(resolve(symbol));
                }
            }
            ts.forEachChild(node, visit);
        };
        nodes.forEach(visit);
        const seenTypes = new Set<ts.Type>();
        const visitType = (type: ts.Type, depth: number): void => {
            if (depth > 3 || seenTypes.has(type)) return;
            seenTypes.add(type);
            for (const symbol of [type.aliasSymbol, type.getSymbol()]) {
                const decl = ownDeclaration(symbol);
                if (symbol !== undefined && decl !== undefined && !ts.isTypeLiteralNode(decl) && !ts.isObjectLiteralExpression(decl)) {
                    found.push(resolve(symbol));
                }
            }
            if (type.isUnionOrIntersection()) type.types.forEach((t) => visitType(t, depth + 1));
            (type.aliasTypeArguments ?? []).forEach((t) => visitType(t, depth + 1));
        };
        inferred.forEach((t) => visitType(t, 0));
        return found;
    };

    /** A declaration's report lines and the nodes and inferred types its signature names. */
    const render = (name: string, decl: ts.Declaration): { lines: string[]; nodes: ts.Node[]; inferred: ts.Type[] } => {
        const sf = decl.getSourceFile();
        const nodes: ts.Node[] = [];
        const inferred: ts.Type[] = [];
        const typeText = (node: ts.TypeNode | undefined, at: ts.Node): string => {
            if (node !== undefined) {
                nodes.push(node);
                return print(node, sf);
            }
            const type = checker.getTypeAtLocation(at);
            inferred.push(type);
            return checker.typeToString(type, at, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType);
        };
        const params = (list: ts.NodeArray<ts.ParameterDeclaration>) => list.map((p) =>
            `${p.dotDotDotToken ? "..." : ""}${print(p.name, sf)}${p.questionToken || p.initializer ? "?" : ""}: ${typeText(p.type, p)}`).join(", ");
        const typeParams = (list: ts.NodeArray<ts.TypeParameterDeclaration> | undefined) => {
            list?.forEach((p) => nodes.push(p));
            return list === undefined ? "" : `<${list.map((p) => print(p, sf)).join(", ")}>`;
        };
        if (ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl) || ts.isEnumDeclaration(decl)) {
            nodes.push(decl);
            const text = printer.printNode(ts.EmitHint.Unspecified, decl, sf).replace(/^export (declare )?/, "");
            return { lines: text.split("\n"), nodes, inferred };
        }
        if (ts.isFunctionDeclaration(decl)) {
            const signatures = resolve(checker.getSymbolAtLocation(decl.name!)!).declarations!.filter(ts.isFunctionDeclaration);
            const overloads = signatures.length > 1 ? signatures.filter((s) => s.body === undefined) : signatures;
            return {
                lines: overloads.map((s) => {
                    const returns = s.type !== undefined ? typeText(s.type, s)
                        : checker.typeToString(checker.getSignatureFromDeclaration(s)!.getReturnType(), s, ts.TypeFormatFlags.NoTruncation);
                    return `function ${name}${typeParams(s.typeParameters)}(${params(s.parameters)}): ${returns};`;
                }),
                nodes, inferred,
            };
        }
        if (ts.isVariableDeclaration(decl)) {
            return { lines: [`const ${name}: ${typeText(decl.type, decl.name)};`], nodes, inferred };
        }
        if (ts.isClassDeclaration(decl)) {
            const heritage = (decl.heritageClauses ?? []).map((h) => {
                nodes.push(h);
                return ` ${print(h, sf)}`;
            }).join("");
            const lines = [`class ${name}${typeParams(decl.typeParameters)}${heritage} {`];
            for (const member of decl.members) {
                if (isPrivate(member)) continue;
                const modifiers = (ts.canHaveModifiers(member) ? ts.getModifiers(member) ?? [] : [])
                    .filter((m) => m.kind !== ts.SyntaxKind.PublicKeyword).map((m) => `${ts.tokenToString(m.kind)} `).join("");
                if (ts.isConstructorDeclaration(member)) {
                    lines.push(`    constructor(${params(member.parameters)});`);
                } else if (ts.isPropertyDeclaration(member)) {
                    lines.push(`    ${modifiers}${print(member.name, sf)}${member.questionToken ? "?" : ""}: ${typeText(member.type, member.name)};`);
                } else if (ts.isMethodDeclaration(member)) {
                    const returns = member.type !== undefined ? typeText(member.type, member)
                        : checker.typeToString(checker.getSignatureFromDeclaration(member)!.getReturnType(), member, ts.TypeFormatFlags.NoTruncation);
                    lines.push(`    ${modifiers}${print(member.name, sf)}${typeParams(member.typeParameters)}(${params(member.parameters)}): ${returns};`);
                } else if (ts.isGetAccessorDeclaration(member)) {
                    lines.push(`    ${modifiers}get ${print(member.name, sf)}(): ${typeText(member.type, member.name)};`);
                }
            }
            lines.push("}");
            return { lines, nodes, inferred };
        }
        return { lines: [`${kindOf(decl)} ${name}`], nodes, inferred };
    };

    // Every exported declaration, then every unexported type of ours they name, transitively.
    const rendered = new Map<ts.Symbol, { file: string; lines: string[] }>();
    const queue: { symbol: ts.Symbol; name: string; namedBy?: string }[] = [...exported].map(([symbol, name]) => ({ symbol, name }));
    const visited = new Set<ts.Symbol>();
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        if (visited.has(item.symbol)) continue;
        visited.add(item.symbol);
        const decl = ownDeclaration(item.symbol);
        if (decl === undefined) continue;
        const file = relative(decl.getSourceFile().fileName);
        if (item.namedBy !== undefined) {
            problems.push(`${item.namedBy} names ${item.name} (${file}), which no entry point exports`);
        }
        const { lines, nodes, inferred } = render(item.name, decl);
        if (item.namedBy === undefined) {
            rendered.set(item.symbol, { file, lines });
        }
        for (const named of namedTypes(nodes, inferred)) {
            if (!isExported(named) && !visited.has(named)) {
                queue.push({ symbol: named, name: named.name, namedBy: item.name });
            }
        }
        for (const cited of docCitations(decl)) {
            problems.push(...citationProblem(item.name, cited, root, checker, program, isExported, isOurs));
        }
    }

    // Every component is public.
    for (const file of components) {
        const sf = program.getSourceFile(path.join(root, file))!;
        for (const statement of sf.statements) {
            if (ts.isClassDeclaration(statement) && statement.name !== undefined && extendsComponentResource(statement, sf)) {
                const symbol = checker.getSymbolAtLocation(statement.name);
                if (symbol !== undefined && !isExported(symbol)) {
                    problems.push(`${statement.name.text} (${file}) is a component, which no entry point exports`);
                }
            }
        }
    }

    // The library page's entry-point table lists names each entry point exports.
    problems.push(...libraryTableProblems(root, exportsOf));

    const entryExports = entries.map((entry): EntryExports => {
        const names = [...(exportsOf.get(entry.specifier) ?? new Map<string, ts.Symbol>())].sort(([a], [b]) => byText(a, b));
        const sf = program.getSourceFile(path.join(root, entry.source));
        return {
            ...entry,
            summary: sf === undefined ? "" : entrySummary(sf),
            needs: sf === undefined ? [] : valueImports(program, sf),
            exports: names.map(([name, symbol]) => {
                const decl = ownDeclaration(symbol);
                return {
                    name, kind: decl === undefined ? "unknown" : kindOf(decl),
                    component: decl !== undefined && ts.isClassDeclaration(decl) && extendsComponentResource(decl, decl.getSourceFile()),
                };
            }),
        };
    });
    return {
        report: formatReport(entries, exportsOf, rendered, (s) => kindOf(ownDeclaration(s)!)), problems: [...new Set(problems)].sort(),
        entries: entryExports,
    };
}

/** The first sentence of a file's leading doc comment, after its "Entry point `...`:" lead. */
function entrySummary(sf: ts.SourceFile): string {
    const comment = /^\/\*\*([\s\S]*?)\*\//.exec(sf.getFullText().trimStart())?.[1] ?? "";
    const text = comment.split("\n").map((line) => line.replace(/^\s*\*\s?/, "")).join(" ").replace(/\s+/g, " ").trim();
    const note = /^Entry point `[^`]+` \(([^)]*)\):/.exec(text)?.[1];
    const body = text.replace(/^Entry point `[^`]+`(?: \([^)]*\))?:\s*/, "");
    const sentence = /^(.*?)\.(\s|$)/.exec(body)?.[1] ?? body;
    return note === undefined ? `${sentence}.` : `${sentence} (${note}).`;
}

/**
 * The packages a module and the modules of ours it imports load for their values (type-only imports
 * and exports left out), sorted; Node's own modules left out.
 */
function valueImports(program: ts.Program, from: ts.SourceFile): string[] {
    const found = new Set<string>();
    const seen = new Set<string>();
    const visit = (sf: ts.SourceFile): void => {
        if (seen.has(sf.fileName)) return;
        seen.add(sf.fileName);
        for (const statement of sf.statements) {
            let specifier: ts.Expression | undefined;
            if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) specifier = statement.moduleSpecifier;
            else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
            if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
            const name = specifier.text;
            if (name.startsWith(".")) {
                const resolved = ts.resolveModuleName(name, sf.fileName, program.getCompilerOptions(), ts.sys).resolvedModule;
                const target = resolved === undefined ? undefined : program.getSourceFile(resolved.resolvedFileName);
                if (target !== undefined) visit(target);
            } else {
                const pkg = name.startsWith("@") ? name.split("/").slice(0, 2).join("/") : name.split("/")[0];
                if (!builtinModules.includes(pkg) && !pkg.startsWith("node:")) found.add(pkg);
            }
        }
    };
    visit(from);
    return [...found].sort(byText);
}

function extendsComponentResource(decl: ts.ClassDeclaration, sf: ts.SourceFile): boolean {
    return (decl.heritageClauses ?? []).some((h) => h.types.some((t) => /(^|\.)ComponentResource$/.test(t.expression.getText(sf))));
}

interface Citation {
    name: string;
    /** The file the doc says it is in (\`NAME\` in \`file.ts\`), if it says. */
    file?: string;
}

/** Backticked constant-like names (`UPPER_CASE`) in the doc comments of a declaration and its members. */
function docCitations(decl: ts.Declaration): Citation[] {
    const found: Citation[] = [];
    const visit = (node: ts.Node): void => {
        for (const doc of ts.getJSDocCommentsAndTags(node)) {
            // `NAME` in `file.ts`, `file.ts`' `NAME`, or `NAME` alone.
            const text = doc.getText();
            for (const match of text.matchAll(/(?:`([\w./-]+\.ts)`'\s+)?`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`(?:\s+in\s+`([\w./-]+\.ts)`)?/g)) {
                found.push({ name: match[2], file: match[1] ?? match[3] });
            }
        }
        // Members and nested type literals, not code.
        if (!ts.isBlock(node) && !ts.isExpression(node)) {
            ts.forEachChild(node, visit);
        }
    };
    visit(decl);
    return found;
}

/**
 * A doc citing a constant it places in a file (`NAME` in `file.ts`: a pointer for contributors) that
 * does not declare it, or one it does not place that is ours but that no entry point exports. A name
 * the doc does not place and we do not declare is a value of someone else's (`ON_DEMAND`).
 */
function citationProblem(owner: string, cited: Citation, root: string, checker: ts.TypeChecker, program: ts.Program,
    isExported: (s: ts.Symbol) => boolean, isOurs: (sf: ts.SourceFile) => boolean): string[] {
    const declaredIn = (sf: ts.SourceFile) => {
        const moduleSymbol = checker.getSymbolAtLocation(sf);
        return moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol).filter((s) => s.name === cited.name);
    };
    if (cited.file !== undefined) {
        const text = fs.existsSync(path.join(root, cited.file)) ? fs.readFileSync(path.join(root, cited.file), "utf8") : "";
        const sf = program.getSourceFile(path.join(root, cited.file)) ?? ts.createSourceFile(cited.file, text, ts.ScriptTarget.ES2022);
        const declares = sf.statements.some((st) => ts.isVariableStatement(st) && st.declarationList.declarations.some((d) => d.name.getText(sf) === cited.name)
            || (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name?.text === cited.name);
        return declares ? [] : [`${owner}'s doc names \`${cited.name}\` in \`${cited.file}\`, which does not declare it`];
    }
    const candidates = program.getSourceFiles().filter(isOurs).flatMap(declaredIn);
    return candidates.length === 0 || candidates.some(isExported) ? [] : [`${owner}'s doc names \`${cited.name}\`, which no entry point exports`];
}

/**
 * Names the library page's entry-point table lists that the entry point does not export: in its
 * "components" and "other values" columns where it has them, else in its "what" column.
 */
function libraryTableProblems(root: string, exportsOf: Map<string, Map<string, ts.Symbol>>): string[] {
    const page = path.join(root, LIBRARY_PAGE);
    if (!fs.existsSync(page)) return [];
    const problems: string[] = [];
    let columns = [2];
    for (const line of fs.readFileSync(page, "utf8").split("\n")) {
        const cells = line.split("|").map((c) => c.trim());
        if (cells[1] === "import from") {
            const named = ["components", "other values"].map((h) => cells.indexOf(h)).filter((i) => i > 0);
            columns = named.length > 0 ? named : [cells.indexOf("what")];
            continue;
        }
        const specifier = /^`([^`]+)`$/.exec(cells[1] ?? "")?.[1];
        const names = specifier === undefined ? undefined : exportsOf.get(specifier);
        if (names === undefined) continue;
        for (const match of columns.map((i) => cells[i] ?? "").join(" ").matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)) {
            if (!names.has(match[1])) {
                problems.push(`${LIBRARY_PAGE} lists \`${match[1]}\` under ${specifier}, which does not export it`);
            }
        }
    }
    return problems;
}

function formatReport(entries: EntryPoint[], exportsOf: Map<string, Map<string, ts.Symbol>>,
    rendered: Map<ts.Symbol, { file: string; lines: string[] }>, kind: (s: ts.Symbol) => string): string {
    const out = [
        "# API report",
        "",
        "<!-- Generated from the library's entry points by `" + REGENERATE_REPORT + "`; `npm test` fails when it differs. -->",
        "",
        "What each entry point of `package.json` `exports` exports, and the declared signature of each",
        "exported name (comments left out). A change here is a change for the library's users.",
        "",
        "## Entry points",
        "",
    ];
    for (const entry of entries) {
        const names = [...(exportsOf.get(entry.specifier) ?? new Map<string, ts.Symbol>())].sort(([a], [b]) => byText(a, b));
        out.push(`### ${entry.specifier}`, "", `From \`${entry.source}\`: ${names.length} exports.`, "");
        for (const [name, symbol] of names) {
            const declared = rendered.get(symbol);
            out.push(`- ${kind(symbol)} \`${name}\`${declared === undefined ? "" : ` (${declared.file})`}`);
        }
        out.push("");
    }
    out.push("## Declarations", "");
    const byFile = new Map<string, string[][]>();
    for (const { file, lines } of rendered.values()) {
        byFile.set(file, [...(byFile.get(file) ?? []), lines]);
    }
    for (const file of [...byFile.keys()].sort()) {
        const blocks = byFile.get(file)!.map((lines) => lines.join("\n")).sort((a, b) => byText(declName(a), declName(b)));
        out.push(`### ${file}`, "", "```ts", blocks.join("\n\n"), "```", "");
    }
    return `${out.join("\n").trimEnd()}\n`;
}

/** Code-point order: the same on every machine and locale. */
function byText(a: string, b: string): number {
    return a < b ? -1 : a > b ? 1 : 0;
}

/** The declared name of a rendered block (`class X`, `interface X<T>`, `function x(`...). */
function declName(block: string): string {
    return /^(?:class|interface|type|function|const|enum|declare enum|const enum)\s+([A-Za-z_$][\w$]*)/.exec(block)?.[1] ?? block;
}
