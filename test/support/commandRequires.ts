/**
 * The library modules the command requires at run time, read from the sources the way the packing
 * reads the compiled files (tools/pack/main.ts): the library is what its entry points (`lib/`, the
 * command's table aside) and the facade import, however deep; the command is what `cli/`, `ops/` and
 * `stacks/` import that the library does not hold; and its requires are what each of its files still
 * requires once compiled (`ts.transpileModule` drops an import used only as a type, as the compiler does).
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { COMMAND_SOURCE, requiredSpecifiers } from "../../tools/pack/manifest";
import { productFiles, readProductGraph, resolveSpecifier } from "./importCycles";

/** The files `starts` import, however deep, themselves included. */
function closure(graph: ReadonlyMap<string, readonly string[]>, starts: readonly string[]): Set<string> {
    const seen = new Set<string>();
    const queue = [...starts];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
        if (!seen.has(file)) {
            seen.add(file);
            queue.push(...(graph.get(file) ?? []));
        }
    }
    return seen;
}

/** What the library and the command hold, as repository paths to TypeScript; `withTable`: the library's entries with the command's table. */
export function packageSplit(root: string, withTable = false): { library: Set<string>; command: Set<string> } {
    const graph = readProductGraph(root);
    const files = [...graph.keys()];
    const entries = files.filter((f) => /^(lib|facade)\//.test(f) && (withTable || f !== COMMAND_SOURCE));
    const library = closure(graph, entries);
    const command = new Set([...closure(graph, files.filter((f) => /^(cli|ops|stacks)\//.test(f)))].filter((f) => !library.has(f)));
    return { library, command };
}

/** The library modules (paths without `.ts`, e.g. `serving/images`) the command's files require once compiled, sorted. */
export function commandRequires(root: string): string[] {
    const { library, command } = packageSplit(root);
    const files = new Set(productFiles(root));
    const required = new Set<string>();
    for (const file of command) {
        const js = ts.transpileModule(fs.readFileSync(path.join(root, file), "utf8"), {
            compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
        }).outputText;
        for (const specifier of requiredSpecifiers(js)) {
            const target = resolveSpecifier(file, specifier, files);
            if (target !== undefined && library.has(target)) {
                required.add(target.replace(/\.ts$/, ""));
            }
        }
    }
    return [...required].sort();
}
