/**
 * The multi-language facade's arguments compared with the library's, through the TypeScript compiler's
 * own reading of both (the type checker: fields, their doc comments, their literal types). A facade
 * field keeps the library field's name unless a rename table says where it goes and why; every
 * library field is reached by a facade field or listed as left out with the reason; a default the
 * facade documents is the library's (its defaults constant, else its doc comment); the facade's enums
 * spell the library's literal unions; a default the facade's code applies is the library's constant
 * or listed as the facade's own. Pure: the caller builds the program.
 */
import * as path from "path";
import * as ts from "typescript";

/** Where a facade field goes in the library's arguments (a dot path from the Args), and why it is not the same name. */
export interface Rename {
    to: string;
    why: string;
}

/** The explicit exceptions, each keyed `Component.field.path` and given its reason. */
export interface DriftTables {
    /** A facade field named otherwise than its library field. */
    renamed: Record<string, Rename>;
    /** A library field (its library path) no facade field reaches. */
    omitted: Record<string, string>;
    /** A facade field whose default the facade's code supplies itself (no library constant). */
    facadeDefaults: Record<string, string>;
}

/** One disagreement: the component, the facade's field (or the library's, for a field left out), and what is wrong. */
export interface Drift {
    component: string;
    field: string;
    problem: string;
}

/** A program over `files` only (`noResolve`): the package SDKs' declarations stay out, so it builds in about 2 s. */
export function ownProgram(files: readonly string[], host?: ts.CompilerHost): ts.Program {
    const options: ts.CompilerOptions = {
        strict: true, noEmit: true, noResolve: true, types: [], skipLibCheck: true,
        target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    };
    return ts.createProgram({ rootNames: [...files], options, host });
}

const docOf = (checker: ts.TypeChecker, symbol: ts.Symbol) => ts.displayPartsToString(symbol.getDocumentationComment(checker)).replace(/\s+/g, " ");

/** A default's clause of a doc comment (`Default 2; with ...` gives `2`), or undefined. */
export function defaultClause(doc: string): string | undefined {
    const marked = /`([^`]+)`\s*\(default\)/.exec(doc);
    if (marked !== null) {
        return `\`${marked[1]}\``;
    }
    // "Default ..." states the field's own default; "`x` defaults to 300" before it may name a nested field's.
    return /(?:^|[\s(;,.])Default\b:?\s*(.*?)(?:[.:](?:\s|$)|;|$)/.exec(doc)?.[1]
        ?? /(?:^|[\s(;,.])defaults?(?:\s+to)?\b:?\s*(.*?)(?:[.:](?:\s|$)|;|$)/.exec(doc)?.[1];
}

/** An example's clause (`e.g. \`1.35\``), or undefined. */
export function exampleClause(doc: string): string | undefined {
    return /\be\.g\.,?\s*(.*?)(?:[.:](?:\s|$)|;|$)/.exec(doc)?.[1];
}

/**
 * The literal values a clause names: backticked text (its quotes dropped), bare numbers, `true`, and
 * `none` (also for `false` and `off`: a boolean's off is an object's absence). Prose (`the library's`,
 * `derived from the model`) names none: such a default is not compared.
 */
export function literals(clause: string | undefined): string[] {
    if (clause === undefined) {
        return [];
    }
    const found: string[] = [];
    const prose = clause.replace(/`([^`]+)`/g, (_, text: string) => {
        found.push(text.replace(/^"(.*)"$/, "$1"));
        return " ";
    });
    for (const word of prose.match(/(?<![\w.-])(?:\d+(?:\.\d+)?|true|false|none|off|on)(?![\w.-])/g) ?? []) {
        found.push(word === "off" || word === "false" ? "none" : word === "on" ? "true" : word);
    }
    return [...new Set(found)].sort();
}

/** A constant's value as the literals a doc comment would write it with. */
function constantLiterals(value: unknown): string[] {
    return typeof value === "string" ? [value] : value === false ? ["none"] : [JSON.stringify(value)];
}

/** Compares one facade component's Args type with the library Args type its conversion returns. */
export class ArgsComparer {
    private readonly drifts: Drift[] = [];
    /** Library paths some facade field reaches (and every prefix of them). */
    private readonly reached = new Set<string>();
    /** Library paths whose fields were walked: their own fields must each be reached or left out. */
    private readonly walked = new Set<string>([""]);

    constructor(
        private readonly checker: ts.TypeChecker,
        private readonly component: string,
        private readonly tables: DriftTables,
        /** The library's defaults constants, by library path (`""` for the Args, `autoscaling` for a nested type). */
        private readonly constants: Record<string, Record<string, unknown>>,
        /** Whether a type is one of the facade's own (its interfaces are walked field by field). */
        private readonly isFacadeType: (type: ts.Type) => boolean,
        /** The table entries that matched, as `table:key` (`staleEntries` reads it). */
        private readonly used: Set<string>,
    ) {}

    /** Every disagreement between `facade` and `library`. */
    compare(facade: ts.Type, library: ts.Type): Drift[] {
        this.walk(facade, library, "", "");
        for (const libPath of this.walked) {
            for (const name of this.fieldNames(this.resolve(library, libPath))) {
                const full = libPath === "" ? name : `${libPath}.${name}`;
                const key = `${this.component}.${full}`;
                if (this.tables.omitted[key] !== undefined) {
                    this.used.add(`omitted:${key}`);
                } else if (!this.reached.has(full)) {
                    this.drift(full, `the library's field has no facade field: add one of the same name, or list it as omitted with the reason`);
                }
            }
        }
        return this.drifts;
    }

    /** The facade's fields of `facade` (at `facadePath`) against the library's at `libPath`. */
    private walk(facade: ts.Type, library: ts.Type, facadePath: string, libPath: string): void {
        for (const field of this.checker.getPropertiesOfType(facade)) {
            const fPath = facadePath === "" ? field.name : `${facadePath}.${field.name}`;
            const key = `${this.component}.${fPath}`;
            const rename = this.tables.renamed[key];
            if (rename !== undefined) {
                this.used.add(`renamed:${key}`);
            }
            const lPath = rename?.to ?? (libPath === "" ? field.name : `${libPath}.${field.name}`);
            const target = this.resolveSymbols(library, lPath);
            if (target.length === 0) {
                this.drift(fPath, rename === undefined
                    ? `has no library field ${lPath}: name it as the library does, or list it as renamed with the reason`
                    : `is renamed to ${lPath}, which the library does not have`);
                continue;
            }
            lPath.split(".").forEach((_, i, parts) => this.reached.add(parts.slice(0, i + 1).join(".")));
            if (target.every((s) => s.getJsDocTags(this.checker).some((t) => t.name === "deprecated"))) {
                this.drift(fPath, `maps to the library's deprecated ${lPath}: map it to the field that replaces it`);
            }
            if (this.tables.facadeDefaults[key] === undefined) {
                this.compareDefault(field, target, fPath, lPath, library);
            }
            this.compareExample(field, target, fPath, lPath);
            const type = this.checker.getNonNullableType(this.checker.getTypeOfSymbol(field));
            this.compareEnum(type, target, fPath, lPath);
            if (this.isFacadeType(type) && type.isClassOrInterface()) {
                this.walked.add(lPath);
                this.walk(type, library, fPath, lPath);
            }
        }
    }

    private compareDefault(field: ts.Symbol, target: ts.Symbol[], fPath: string, lPath: string, library: ts.Type): void {
        const facadeClause = defaultClause(docOf(this.checker, field));
        const facadeDefault = literals(facadeClause);
        if (facadeDefault.length === 0) {
            return;
        }
        const dot = lPath.lastIndexOf(".");
        const [parent, leaf] = dot < 0 ? ["", lPath] : [lPath.slice(0, dot), lPath.slice(dot + 1)];
        const constant = this.constants[parent];
        const union = this.unionDefault(target);
        let libraryDefault: { values: string[]; said: string; source: string };
        if (constant !== undefined && leaf in constant) {
            libraryDefault = { values: constantLiterals(constant[leaf]), said: JSON.stringify(constant[leaf]), source: "its defaults constant" };
        } else if (union !== undefined) {
            libraryDefault = { values: [union], said: JSON.stringify(union), source: "the one member of its union that may leave it out" };
        } else {
            // A field with no default of its own takes its object's ("Default off" on `batching` for `batching.enabled`).
            const clause = [target, ...parentPaths(lPath).map((p) => this.resolveSymbols(library, p))]
                .map((symbols) => symbols.map((s) => defaultClause(docOf(this.checker, s))).find((c) => c !== undefined))
                .find((c) => c !== undefined);
            libraryDefault = { values: literals(clause), said: clause === undefined ? "none" : `"${clause}"`, source: "its doc comment" };
        }
        if (libraryDefault.values.join(" ") !== facadeDefault.join(" ")) {
            this.drift(fPath, `documents the default "${facadeClause}"; the library's ${lPath} has ${libraryDefault.said} (${libraryDefault.source})`);
        }
    }

    /**
     * A discriminated union's default: the literal of the one member whose discriminant is optional
     * (`platform?: "generic"` beside `platform: "gke"` and `platform: "eks"`), or undefined.
     */
    private unionDefault(target: ts.Symbol[]): string | undefined {
        if (target.length < 2) {
            return undefined;
        }
        const optional = target.filter((s) => (s.flags & ts.SymbolFlags.Optional) !== 0);
        const type = optional.length === 1 ? this.checker.getNonNullableType(this.checker.getTypeOfSymbol(optional[0])) : undefined;
        return type?.isStringLiteral() ? type.value : undefined;
    }

    private compareExample(field: ts.Symbol, target: ts.Symbol[], fPath: string, lPath: string): void {
        const facadeExample = literals(exampleClause(docOf(this.checker, field)));
        const libraryExample = new Set(target.flatMap((s) => literals(exampleClause(docOf(this.checker, s)))));
        const stray = facadeExample.filter((e) => !libraryExample.has(e));
        if (libraryExample.size > 0 && stray.length > 0) {
            this.drift(fPath, `gives the example ${stray.join(", ")}; the library's ${lPath} gives ${[...libraryExample].join(", ")}`);
        }
    }

    /** A facade enum's values against the library field's literal union, when it is one. */
    private compareEnum(type: ts.Type, target: ts.Symbol[], fPath: string, lPath: string): void {
        const values = (t: ts.Type) => (t.isUnion() ? t.types : [t]).map((m) => (m.isStringLiteral() ? m.value : undefined));
        const facadeValues = values(type);
        if (!(type.flags & ts.TypeFlags.EnumLike) || facadeValues.includes(undefined)) {
            return;
        }
        const libraryValues = target.flatMap((s) => values(this.checker.getNonNullableType(this.checker.getTypeOfSymbol(s))));
        if (libraryValues.length === 0 || libraryValues.includes(undefined)) {
            return;
        }
        const [f, l] = [[...new Set(facadeValues)].sort(), [...new Set(libraryValues)].sort()];
        if (f.join(" ") !== l.join(" ")) {
            this.drift(fPath, `is the enum ${f.join(", ")}; the library's ${lPath} takes ${l.join(", ")}`);
        }
    }

    /** The symbols `libPath` names in `root`: in any member of a union (a discriminated union's fields live in one member each). */
    private resolveSymbols(root: ts.Type, libPath: string): ts.Symbol[] {
        let types = [root];
        let symbols: ts.Symbol[] = [];
        for (const part of libPath.split(".")) {
            symbols = types.flatMap((t) => this.members(t)).flatMap((m) => {
                const s = this.checker.getPropertyOfType(m, part);
                return s === undefined ? [] : [s];
            });
            types = symbols.map((s) => this.checker.getTypeOfSymbol(s));
        }
        return symbols;
    }

    private resolve(root: ts.Type, libPath: string): ts.Type[] {
        return libPath === "" ? [root] : this.resolveSymbols(root, libPath).map((s) => this.checker.getTypeOfSymbol(s));
    }

    private members(type: ts.Type): ts.Type[] {
        const t = this.checker.getNonNullableType(type);
        return t.isUnion() ? t.types.flatMap((m) => this.members(m)) : [t];
    }

    private fieldNames(types: ts.Type[]): string[] {
        return [...new Set(types.flatMap((t) => this.members(t)).flatMap((m) => this.checker.getPropertiesOfType(m).map((p) => p.name)))];
    }

    private drift(field: string, problem: string): void {
        this.drifts.push({ component: this.component, field, problem });
    }
}

/** The tables' entries nothing matched: a table must not outlive the difference it explains. */
export function staleEntries(tables: DriftTables, used: Set<string>): Drift[] {
    return Object.entries(tables).flatMap(([table, entries]) => Object.keys(entries as object)
        .filter((key) => !used.has(`${table}:${key}`))
        .map((key) => {
            const dot = key.indexOf(".");
            return { component: key.slice(0, dot), field: key.slice(dot + 1), problem: `the ${table} table's entry matches nothing: remove it` };
        }));
}

function parentPaths(libPath: string): string[] {
    const parts = libPath.split(".");
    return parts.slice(1).map((_, i) => parts.slice(0, parts.length - 1 - i).join("."));
}

/**
 * The defaults a facade file's code applies (`args.contextDir ?? ...`) whose value is not a library
 * import: each must be listed as the facade's own, with the reason.
 */
export function appliedDefaults(source: ts.SourceFile, component: string, tables: DriftTables, used: Set<string>): Drift[] {
    const imported = new Set<string>();
    for (const statement of source.statements) {
        if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && !statement.moduleSpecifier.text.startsWith("./")) {
            const bindings = statement.importClause?.namedBindings;
            if (bindings !== undefined && ts.isNamespaceImport(bindings)) {
                imported.add(bindings.name.text);
            } else if (bindings !== undefined) {
                bindings.elements.forEach((e) => imported.add(e.name.text));
            }
        }
    }
    const drifts: Drift[] = [];
    const visit = (node: ts.Node): void => {
        if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) {
            const field = argsPath(node.left);
            if (field !== undefined && !imported.has(rootName(node.right) ?? "")) {
                const key = `${component}.${field}`;
                if (tables.facadeDefaults[key] !== undefined) {
                    used.add(`facadeDefaults:${key}`);
                } else {
                    drifts.push({ component, field, problem: `the facade applies its own default (${node.right.getText(source)}): ` +
                        `use the library's constant, or list it as the facade's own default with the reason` });
                }
            }
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
    return drifts;
}

/** `args.a.b` as `a.b`; undefined for anything else. */
function argsPath(node: ts.Expression): string | undefined {
    const parts: string[] = [];
    let at: ts.Expression = node;
    while (ts.isPropertyAccessExpression(at)) {
        parts.unshift(at.name.text);
        at = at.expression;
    }
    return ts.isIdentifier(at) && at.text === "args" && parts.length > 0 ? parts.join(".") : undefined;
}

function rootName(node: ts.Expression): string | undefined {
    let at: ts.Expression = node;
    while (ts.isPropertyAccessExpression(at) || ts.isCallExpression(at) || ts.isElementAccessExpression(at)) {
        at = at.expression;
    }
    return ts.isIdentifier(at) ? at.text : undefined;
}

/** Whether `fileName` lies under `dir`. */
export function under(dir: string, fileName: string): boolean {
    return path.resolve(fileName).startsWith(path.resolve(dir) + path.sep);
}
