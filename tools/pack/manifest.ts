/**
 * What each installable package is, from the repository's package.json and the compiled files it
 * holds (pure: text in, objects out). `tools/pack/main.ts` does the compiling, writing and packing.
 *
 * - The library (`tf-serving`): its entry points (`lib/`) and the facade, compiled with declarations,
 *   and exactly the modules they import; the `@pulumi/*` SDKs and `@kubernetes/client-node` (the
 *   canary's) are peers, and its dependencies are exactly the packages its compiled files require.
 *   It is also the multi-language component package (`PulumiPlugin.yaml`, `main` the facade): `pulumi
 *   package add` runs `npm install` in it, which installs the SDKs and TypeScript it runs with as its
 *   devDependencies (a program that installs the library never does).
 * - The command (`tf-serving-cli`, bin `tfs`): `cli/`, `ops/`, `stacks/` compiled with what they
 *   import that the library does not hold (the config layer and each cloud's rules). Every require of
 *   a library module goes through the library's `tf-serving/command` entry (`lib/command.ts`) at the
 *   library's exact version, so one copy of the components exists in an install; the cloud SDKs are
 *   optional peers, loaded only by a stack on that cloud.
 * - Their version (`packedVersion`): package.json's while CHANGELOG.md has no unreleased entries, else
 *   a prerelease of the next version named after the package's content, so two different tarballs
 *   never share a name.
 */
import { createHash } from "crypto";
import { builtinModules } from "module";

/** The folders the library is compiled from: its entry points and the facade; it holds what they import. */
export const LIBRARY_ENTRY_FOLDERS = ["lib", "facade"] as const;
/** The folders the command is compiled from; it holds what they import that the library does not. */
export const CLI_FOLDERS = ["cli", "ops", "stacks"] as const;
/** Folders the library never holds: the command's, and the config layer that only the command's program reads. */
export const COMMAND_ONLY_FOLDERS = [...CLI_FOLDERS, "config"] as const;
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
/** The library's entry point for the command (`lib/command.ts`), and the table of modules it exports. */
export const COMMAND_SUBPATH = "command";
export const COMMAND_TABLE = "COMMAND_MODULES";
/** The file that holds that table, in the repository and compiled. */
export const COMMAND_SOURCE = "lib/command.ts";

/**
 * Packages a compiled file names that are not its runtime dependencies. `ts-node`: the canary
 * runner (`components/canary/canaryRelease.ts`) registers it only when it runs from `.ts` sources.
 */
const SOURCE_ONLY = new Set(["ts-node"]);

/** What both packages say of where they come from, as package.json has it. */
export interface ProjectLinks {
    keywords?: string[];
    homepage?: string;
    repository?: string | { type: string; url: string; directory?: string };
    bugs?: string | { url: string };
}

export interface RootManifest extends ProjectLinks {
    name: string;
    version: string;
    description?: string;
    license?: string;
    engines?: Record<string, string>;
    types?: string;
    exports: Record<string, unknown>;
    typesVersions?: Record<string, unknown>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface PackageManifest extends ProjectLinks {
    name: string;
    version: string;
    description?: string;
    license?: string;
    engines?: Record<string, string>;
    main?: string;
    types?: string;
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

function links(root: RootManifest, keywords: string[] = []): ProjectLinks {
    return { keywords: [...(root.keywords ?? []), ...keywords], homepage: root.homepage, repository: root.repository, bugs: root.bugs };
}

/**
 * The library's manifest at `version`: the root's entry points and the command's (`./command`, no
 * types: not for programs), its peers, and as dependencies the packages the compiled files require
 * that are not peers. The peers are also devDependencies at the versions the tests run with: a
 * consumer never installs those, `pulumi package add` (which runs `npm install` in the package)
 * does, with TypeScript for the schema analyzer.
 */
export function libraryManifest(root: RootManifest, required: string[], version = root.version): PackageManifest {
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
        version,
        description: root.description,
        license: root.license,
        ...links(root),
        engines: root.engines,
        main: FACADE_MAIN,
        types: root.types,
        exports: { ...root.exports, [`./${COMMAND_SUBPATH}`]: `./dist/${COMMAND_SOURCE.replace(/\.ts$/, ".js")}` },
        typesVersions: root.typesVersions,
        files: ["dist/", "PulumiPlugin.yaml", "tsconfig.json", "CHANGELOG.md", "LICENSE"],
        dependencies: sorted(dependencies),
        peerDependencies: peers,
        peerDependenciesMeta: root.peerDependenciesMeta,
        devDependencies: sorted(devDependencies),
    };
}

/** The command's manifest: its own version, the library's (which it pins exactly), and the SDKs only one cloud's stack loads. */
export interface CliVersions {
    version: string;
    libraryVersion: string;
    /** Packages a stack loads only on its cloud (`@pulumi/gcp`, `@pulumi/aws`): optional peers, not dependencies. */
    cloudSdks: readonly string[];
}

/**
 * The command's manifest: the library at its exact version, every package the command's compiled
 * files require, and the library's peers the program loads on any cloud (`tfs plan` runs it), at the
 * versions the tests run with. A cloud's SDK is an optional peer at the library's range: a user of an
 * existing cluster installs neither, and a stack on GKE or EKS names the one it needs when it is missing.
 */
export function cliManifest(root: RootManifest, required: string[], versions: CliVersions): PackageManifest {
    const rootPeers = root.peerDependencies ?? {};
    const dependencies: Record<string, string> = { [root.name]: versions.libraryVersion };
    const peerDependencies: Record<string, string> = {};
    for (const name of versions.cloudSdks) {
        if (rootPeers[name] === undefined) {
            throw new Error(`${CLI_PACKAGE}: the cloud SDK ${name} is not one of the library's peers in package.json`);
        }
        peerDependencies[name] = rootPeers[name];
    }
    for (const name of [...required, ...Object.keys(rootPeers)]) {
        if (name !== root.name && peerDependencies[name] === undefined) {
            dependencies[name] = pinned(root, name, CLI_PACKAGE);
        }
    }
    const optional = Object.keys(peerDependencies);
    return {
        name: CLI_PACKAGE,
        version: versions.version,
        description: `The tfs command of ${root.name}: preflight, build-context, plan, deploy, smoke and doctor`,
        license: root.license,
        ...links(root, ["cli"]),
        engines: root.engines,
        bin: { tfs: "bin/tfs.js" },
        files: ["bin/", "dist/", "LICENSE"],
        dependencies: sorted(dependencies),
        ...(optional.length === 0 ? {} : {
            peerDependencies: sorted(peerDependencies),
            peerDependenciesMeta: Object.fromEntries(optional.sort().map((name) => [name, { optional: true }])),
        }),
    };
}

/**
 * A compiled command file with every relative require of a library module (one of `libraryModules`,
 * paths under the compiled root without extension) sent through the library's command entry
 * (`../components/x` → `require("tf-serving/command").COMMAND_MODULES["components/x"]()`); requires of
 * the command's own files stay. `file` is the file's path under the compiled root, e.g. `cli/plan.js`.
 * Returns the text and the library modules it now requires.
 */
export function pointAtLibrary(js: string, file: string, libraryName: string, libraryModules: ReadonlySet<string>): { text: string; libraryModules: string[] } {
    const used: string[] = [];
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
        const target = parts.join("/").replace(/\.js$/, "");
        const module = libraryModules.has(target) ? target : libraryModules.has(`${target}/index`) ? `${target}/index` : undefined;
        if (module === undefined) {
            return whole;
        }
        used.push(module);
        return `require("${libraryName}/${COMMAND_SUBPATH}").${COMMAND_TABLE}[${JSON.stringify(module)}]()`;
    });
    return { text, libraryModules: used };
}

/**
 * What is wrong with the command table (`lib/command.ts`) for the library modules the command
 * requires: one it requires that the table does not list, one the table lists that it never requires.
 */
export function commandTableProblems(listed: Iterable<string>, required: Iterable<string>): string[] {
    const inTable = new Set(listed);
    const needed = new Set(required);
    return [
        ...[...needed].filter((m) => !inTable.has(m)).sort().map((m) => `the command requires ${m}, which ${COMMAND_SOURCE} does not list: add it`),
        ...[...inTable].filter((m) => !needed.has(m)).sort().map((m) => `${COMMAND_SOURCE} lists ${m}, which the command does not require: remove it`),
    ];
}

/**
 * The entries of CHANGELOG.md's `## Unreleased` section: its lines that are neither blank nor
 * headings. None when there is no such section.
 */
export function unreleasedEntries(changelog: string): string[] {
    const sections = changelog.split(/^(?=## )/m);
    const unreleased = sections.find((s) => /^## Unreleased[ \t]*(\r?\n|$)/.test(s));
    if (unreleased === undefined) {
        return [];
    }
    return unreleased.split(/\r?\n/).slice(1).map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#") && !/^<!--.*-->$/.test(line));
}

/**
 * A hash of a staged package's content: SHA-256 over each file's path and bytes, in path order,
 * as lowercase hex. `files` are paths relative to the package folder.
 */
export function contentHash(files: Iterable<{ path: string; bytes: Uint8Array }>): string {
    const hash = createHash("sha256");
    for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
        hash.update(`${file.path}\0${file.bytes.length}\0`);
        hash.update(file.bytes);
    }
    return hash.digest("hex");
}

/** How many hex digits of the content hash a prerelease version carries. */
export const VERSION_HASH_DIGITS = 8;

/**
 * The version a package is packed as. Without unreleased changelog entries, `version` (a release,
 * `X.Y.Z`, or a prerelease `X.Y.Z-rc.1`) as it is. With some, a prerelease named after the content:
 * `X.Y.(Z+1)-dev.<hash>` for a release (above `X.Y.Z`, below any next release, whatever its number)
 * and `X.Y.Z-rc.1.dev.<hash>` for a prerelease; `<hash>` is the first digits of `hash` (hex), and
 * starts with `h` when those are all decimal digits (semver reads an identifier of digits as a number,
 * and forbids its leading zero).
 */
export function packedVersion(version: string, changelog: string, hash: string): string {
    const parsed = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/.exec(version);
    if (parsed === null) {
        throw new Error(`package.json's version ${JSON.stringify(version)} is not X.Y.Z or X.Y.Z-PRERELEASE`);
    }
    if (!/^[0-9a-f]+$/.test(hash) || hash.length < VERSION_HASH_DIGITS) {
        throw new Error(`a content hash is ${VERSION_HASH_DIGITS} or more lowercase hex digits, not ${JSON.stringify(hash)}`);
    }
    if (unreleasedEntries(changelog).length === 0) {
        return version;
    }
    const short = hash.slice(0, VERSION_HASH_DIGITS);
    const id = /^\d+$/.test(short) ? `h${short}` : short;
    const [, major, minor, patch, prerelease] = parsed;
    return prerelease === undefined ? `${major}.${minor}.${Number(patch) + 1}-dev.${id}` : `${major}.${minor}.${patch}-${prerelease}.dev.${id}`;
}
