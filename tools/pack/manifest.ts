/**
 * What each installable package is, from the repository's package.json and the compiled files it
 * holds (pure: text in, objects out). `tools/pack/main.ts` does the compiling, writing and packing.
 *
 * - The library (`tf-serving`): the folders below the program (`LIBRARY_FOLDERS`), compiled with
 *   declarations; the `@pulumi/*` SDKs are peers, and its dependencies are exactly the packages its
 *   compiled files require. It is also the multi-language component package (`PulumiPlugin.yaml`,
 *   `main` the facade): `pulumi package add` runs `npm install` in it, which installs the SDKs and
 *   TypeScript it runs with as its devDependencies (a program that installs the library never does).
 * - The command (`tf-serving-cli`, bin `tfs`): `cli/`, `ops/`, `stacks/` compiled; every
 *   require of a library folder goes to the library package at the same version, so one copy of the
 *   components exists in an install.
 */
import { builtinModules } from "module";

/** The folders the library ships, compiled: components and the pure modules under them. */
export const LIBRARY_FOLDERS = ["lib", "facade", "components", "config", "contract", "model", "observability", "serving"] as const;
/** The folders the command ships, compiled: above the library, never in it. */
export const CLI_FOLDERS = ["cli", "ops", "stacks"] as const;
/**
 * The multi-language component package's entry: the facade, compiled. Pulumi's plugin host loads it
 * (`require` of the package folder); its schema analyzer reads the `.ts` beside it, which the
 * package ships for that reason only (with `tsconfig.json`).
 */
export const FACADE_MAIN = "dist/facade/index.js";
/** The multi-language component package's marker: a Node.js plugin whose schema Pulumi infers. */
export const PULUMI_PLUGIN_YAML = "runtime: nodejs\n";
/** The command's package name; its bin is `tfs`. */
export const CLI_PACKAGE = "tf-serving-cli";
/**
 * The library's path into its own compiled folders, for the command package only (not an API: the
 * command pins the library's exact version).
 */
export const INTERNAL_SUBPATH = "internal";

/**
 * Packages a compiled file names that are not its runtime dependencies. `ts-node`: the canary
 * runner (`components/canary/canaryRelease.ts`) registers it only when it runs from `.ts` sources.
 */
const SOURCE_ONLY = new Set(["ts-node"]);

export interface RootManifest {
    name: string;
    version: string;
    description?: string;
    license?: string;
    engines?: Record<string, string>;
    exports: Record<string, unknown>;
    typesVersions?: Record<string, unknown>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface PackageManifest {
    name: string;
    version: string;
    description?: string;
    license?: string;
    engines?: Record<string, string>;
    main?: string;
    bin?: Record<string, string>;
    exports?: Record<string, unknown>;
    typesVersions?: Record<string, unknown>;
    files: string[];
    dependencies: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    devDependencies?: Record<string, string>;
}

/** The package a module specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a relative path or a Node builtin. */
export function packageOf(specifier: string): string | undefined {
    if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) {
        return undefined;
    }
    const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
    return builtinModules.includes(name) ? undefined : name;
}

/** The string-literal `require("...")` specifiers of a compiled CommonJS file (imports and dynamic imports compile to these). */
export function requiredSpecifiers(js: string): string[] {
    return [...js.matchAll(/\brequire\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]);
}

/** The packages a set of compiled files require at run time, sorted. */
export function requiredPackages(files: Iterable<string>): string[] {
    const names = new Set<string>();
    for (const js of files) {
        for (const specifier of requiredSpecifiers(js)) {
            const name = packageOf(specifier);
            if (name !== undefined && !SOURCE_ONLY.has(name)) {
                names.add(name);
            }
        }
    }
    return [...names].sort();
}

/** The pinned version of a package in the root manifest (dependencies first, then devDependencies). */
function pinned(root: RootManifest, name: string, forPackage: string): string {
    const version = root.dependencies?.[name] ?? root.devDependencies?.[name];
    if (version === undefined) {
        throw new Error(`${forPackage} requires ${name}, which package.json neither depends on nor pins as a devDependency`);
    }
    return version;
}

function sorted(record: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]]));
}

/**
 * The library's manifest: the root's entry points, its peers, and as dependencies the packages the
 * compiled files require that are not peers. The peers are also devDependencies at the versions the
 * tests run with: a consumer never installs those, `pulumi package add` (which runs `npm install`
 * in the package) does, with TypeScript for the schema analyzer.
 */
export function libraryManifest(root: RootManifest, required: string[]): PackageManifest {
    const peers = root.peerDependencies ?? {};
    const dependencies: Record<string, string> = {};
    for (const name of required) {
        if (peers[name] === undefined) {
            dependencies[name] = pinned(root, name, root.name);
        }
    }
    const devDependencies: Record<string, string> = { typescript: pinned(root, "typescript", root.name) };
    for (const name of Object.keys(peers)) {
        devDependencies[name] = pinned(root, name, root.name);
    }
    return {
        name: root.name,
        version: root.version,
        description: root.description,
        license: root.license,
        engines: root.engines,
        main: FACADE_MAIN,
        exports: { ...root.exports, [`./${INTERNAL_SUBPATH}/*`]: "./dist/*.js" },
        typesVersions: root.typesVersions,
        files: ["dist/", "PulumiPlugin.yaml", "tsconfig.json", "CHANGELOG.md"],
        dependencies: sorted(dependencies),
        peerDependencies: peers,
        peerDependenciesMeta: root.peerDependenciesMeta,
        devDependencies: sorted(devDependencies),
    };
}

/**
 * The command's manifest: the library at its exact version, every package the command's compiled
 * files require, and the library's peers (optional ones included: `tfs plan` runs the program for
 * any cloud) at the versions the tests run with.
 */
export function cliManifest(root: RootManifest, required: string[]): PackageManifest {
    const dependencies: Record<string, string> = { [root.name]: root.version };
    for (const name of [...required, ...Object.keys(root.peerDependencies ?? {})]) {
        if (name !== root.name) {
            dependencies[name] = pinned(root, name, CLI_PACKAGE);
        }
    }
    return {
        name: CLI_PACKAGE,
        version: root.version,
        description: `The tfs command of ${root.name}: preflight, build-context, plan, deploy, smoke and doctor`,
        license: root.license,
        engines: root.engines,
        bin: { tfs: "bin/tfs.js" },
        files: ["bin/", "dist/"],
        dependencies: sorted(dependencies),
    };
}

/**
 * A compiled command file with every relative require that leaves the command's folders pointed at
 * the library package (`../components/x` → `tf-serving/internal/components/x`). `file` is the
 * file's path under the compiled root, e.g. `cli/plan.js`. Returns the text and the library modules
 * it now requires (as paths under the compiled root, without extension).
 */
export function pointAtLibrary(js: string, file: string, libraryName: string): { text: string; libraryModules: string[] } {
    const libraryModules: string[] = [];
    const dir = file.split("/").slice(0, -1);
    const text = js.replace(/\brequire\(\s*"(\.{1,2}\/[^"]*)"\s*\)/g, (whole, specifier: string) => {
        const parts = [...dir];
        for (const part of specifier.split("/")) {
            if (part === "..") {
                if (parts.length === 0) {
                    throw new Error(`${file}: require("${specifier}") leaves the compiled tree`);
                }
                parts.pop();
            } else if (part !== ".") {
                parts.push(part);
            }
        }
        if (!(CLI_FOLDERS as readonly string[]).includes(parts[0])) {
            const target = parts.join("/");
            libraryModules.push(target);
            return `require("${libraryName}/${INTERNAL_SUBPATH}/${target}")`;
        }
        return whole;
    });
    return { text, libraryModules };
}
