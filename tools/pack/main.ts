/**
 * `npm run packages`: the installable packages, built from the repository into `dist/packages/`:
 *
 *     dist/packages/tf-serving/                the library, staged (package.json generated)
 *     dist/packages/tf-serving-cli/            the tfs command, staged
 *     dist/packages/tf-serving-VERSION.tgz     and their tarballs (`npm pack` of each)
 *     dist/packages/tf-serving-cli-VERSION.tgz
 *
 * VERSION is package.json's, or while CHANGELOG.md has unreleased entries a prerelease named after
 * the package's content (`manifest.ts`, `packedVersion`). Prints one JSON line per package (name,
 * version, tarball, size, file count). The repository's own package.json stays the program's and the
 * tests'; what each package holds is `manifest.ts`.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { CLOUDS, cloudAbout } from "../../components/clouds/registry";
import {
    CLI_FOLDERS, CLI_PACKAGE, COMMAND_ONLY_FOLDERS, COMMAND_SOURCE, COMMAND_TABLE, LIBRARY_ENTRY_FOLDERS, PULUMI_PLUGIN_YAML, PackageManifest, RootManifest,
    cliManifest, commandTableProblems, contentHash, libraryManifest, packedVersion, pointAtLibrary, requiredPackages,
} from "./manifest";

export interface PackedPackage {
    name: string;
    version: string;
    dir: string;
    tarball: string;
    size: number;
    unpackedSize: number;
    files: string[];
}

/** Every `.ts` source (not a declaration) under the given folders, relative to `root`. */
function sources(root: string, folders: readonly string[]): string[] {
    const walk = (dir: string): string[] => fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [`${dir}/${e.name}`] : []);
    return folders.flatMap((folder) => walk(folder));
}

/** Compiles `files` with the repository's compiler options; writes only what `keep` accepts (paths relative to `outDir`). */
function compile(root: string, files: string[], outDir: string, declaration: boolean, keep: (file: string) => boolean): string[] {
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), {}, {
        ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n")); },
    });
    if (parsed === undefined) {
        throw new Error("tsconfig.json: cannot be read");
    }
    const options: ts.CompilerOptions = {
        ...parsed.options, noCheck: false, noEmit: false, declaration, sourceMap: false, rootDir: root, outDir, types: ["node"],
    };
    const program = ts.createProgram(files.map((f) => path.join(root, f)), options);
    const written: string[] = [];
    const result = program.emit(undefined, (fileName, text) => {
        const relative = path.relative(outDir, fileName).split(path.sep).join("/");
        if (keep(relative)) {
            fs.mkdirSync(path.dirname(fileName), { recursive: true });
            fs.writeFileSync(fileName, text);
            written.push(relative);
        }
    });
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
    if (diagnostics.length > 0) {
        throw new Error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" }));
    }
    return written.sort();
}

function writeJson(file: string, value: unknown): void {
    fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function npmPack(dir: string, destination: string): PackedPackage {
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
        cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"],
    })) as { name: string; version: string; filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
    return {
        name: packed.name, version: packed.version, dir, tarball: path.join(destination, packed.filename), size: packed.size,
        unpackedSize: packed.unpackedSize, files: packed.files.map((f) => f.path).sort(),
    };
}

/** Every file under `dir` with its bytes, paths relative to it. */
function stagedFiles(dir: string, at = ""): { path: string; bytes: Buffer }[] {
    return fs.readdirSync(path.join(dir, at), { withFileTypes: true }).flatMap((e) => {
        const rel = at === "" ? e.name : `${at}/${e.name}`;
        return e.isDirectory() ? stagedFiles(dir, rel) : [{ path: rel, bytes: fs.readFileSync(path.join(dir, rel)) }];
    });
}

/**
 * Writes the package.json `manifest(version)` gives into `dir`, at the version its content names:
 * the content is hashed with package.json written at the root's version, so the version it ends up
 * with does not hash itself.
 */
function writeVersioned(dir: string, root: RootManifest, changelog: string, manifest: (version: string) => PackageManifest): string {
    writeJson(path.join(dir, "package.json"), manifest(root.version));
    const version = packedVersion(root.version, changelog, contentHash(stagedFiles(dir)));
    writeJson(path.join(dir, "package.json"), manifest(version));
    return version;
}

const LIBRARY_README = (name: string) => `# ${name}

Pulumi components that take a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes
(\`ModelImage\`, \`ModelServer\`, \`ModelGateway\`, \`ModelMonitoring\`, \`GkeCluster\`, \`EksCluster\`), and
the pure modules under them (\`preflight\`, \`sizing\`). \`import { ModelServer, preflight } from "${name}"\`
needs only \`@pulumi/pulumi\` and \`@pulumi/kubernetes\`; \`${name}/model-image\`, \`${name}/gke\` and
\`${name}/eks\` need \`@pulumi/docker\`, \`@pulumi/gcp\` and \`@pulumi/aws\`, and a canary
\`@kubernetes/client-node\`. This package holds no command line: that is the ${CLI_PACKAGE} package.

Built from the tf-serving repository by \`npm run packages\`; its docs/reference/library.md says how to
use it and CHANGELOG.md what changed.
`;

const CLI_README = (name: string) => `# ${CLI_PACKAGE}

The \`tfs\` command of ${name} (preflight, build-context, warmup, plan, deploy, smoke, doctor). Install it
beside the ${name} package of the same version (\`npm install ./${name}-VERSION.tgz ./${CLI_PACKAGE}-VERSION.tgz\`),
then run \`npx tfs --help\`. A stack on GKE or EKS also needs \`@pulumi/gcp\` or \`@pulumi/aws\`; a stack on
an existing cluster needs neither.

Built from the tf-serving repository by \`npm run packages\`; docs/reference/cli.md in the repository
documents it.
`;

/** The compiled files of one package that are not declarations, by path under its compiled root, without `.js`. */
const modulesOf = (files: string[]) => new Set(files.filter((f) => f.endsWith(".js")).map((f) => f.replace(/\.js$/, "")));

/** The SDKs only one cloud's stack loads: the command's optional peers. */
const cloudSdks = () => CLOUDS.flatMap((cloud) => cloudAbout(cloud).sdk ?? []);

/** Builds and packs both packages into `out` (default `dist/packages`). */
export function pack(root: string, out = path.join(root, "dist", "packages")): PackedPackage[] {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as RootManifest;
    const changelog = fs.readFileSync(path.join(root, "CHANGELOG.md"), "utf8");
    fs.rmSync(out, { recursive: true, force: true });
    const libraryDir = path.join(out, manifest.name);
    const cliDir = path.join(out, CLI_PACKAGE);

    // The library: its entry points and the facade compiled with declarations, and what they import.
    const libraryFiles = compile(root, sources(root, LIBRARY_ENTRY_FOLDERS), path.join(libraryDir, "dist"), true, () => true);
    const commandOnly = libraryFiles.filter((f) => (COMMAND_ONLY_FOLDERS as readonly string[]).includes(f.split("/")[0]));
    if (commandOnly.length > 0) {
        throw new Error(`the library's entry points import files only the command may hold: ${commandOnly.join(", ")}`);
    }
    const libraryJs = libraryFiles.filter((f) => f.endsWith(".js")).map((f) => fs.readFileSync(path.join(libraryDir, "dist", f), "utf8"));
    // The multi-language component package: the facade's sources beside its compiled files (they
    // import ../lib/*, the declarations there), for Pulumi's schema analyzer.
    for (const file of sources(root, ["facade"])) {
        fs.copyFileSync(path.join(root, file), path.join(libraryDir, "dist", file));
    }
    fs.writeFileSync(path.join(libraryDir, "PulumiPlugin.yaml"), PULUMI_PLUGIN_YAML);
    writeJson(path.join(libraryDir, "tsconfig.json"), {
        compilerOptions: { strict: true, target: "ES2022", module: "commonjs", moduleResolution: "node", skipLibCheck: true },
        include: ["dist/facade/*.ts"],
    });
    fs.writeFileSync(path.join(libraryDir, "README.md"), LIBRARY_README(manifest.name));
    fs.copyFileSync(path.join(root, "CHANGELOG.md"), path.join(libraryDir, "CHANGELOG.md"));
    fs.copyFileSync(path.join(root, "LICENSE"), path.join(libraryDir, "LICENSE"));
    const libraryRequires = requiredPackages(libraryJs);
    const libraryVersion = writeVersioned(libraryDir, manifest, changelog, (version) => libraryManifest(manifest, libraryRequires, version));

    // The command: its folders compiled with what they import that the library does not hold; every
    // library module it requires taken from the library package, through its command entry.
    const libraryModules = modulesOf(libraryFiles);
    const cliFiles = compile(root, sources(root, CLI_FOLDERS), path.join(cliDir, "dist"), false,
        (f) => f.endsWith(".js") && !libraryModules.has(f.replace(/\.js$/, "")));
    const cliJs: string[] = [];
    const required = new Set<string>();
    for (const file of cliFiles) {
        const full = path.join(cliDir, "dist", file);
        const { text, libraryModules: used } = pointAtLibrary(fs.readFileSync(full, "utf8"), file, manifest.name, libraryModules);
        used.forEach((m) => required.add(m));
        fs.writeFileSync(full, text);
        cliJs.push(text);
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the table as compiled: requiring it loads none of its modules
    const table = require(path.join(libraryDir, "dist", COMMAND_SOURCE.replace(/\.ts$/, ".js")))[COMMAND_TABLE] as Record<string, unknown>;
    const problems = commandTableProblems(Object.keys(table), required);
    if (problems.length > 0) {
        throw new Error(problems.join("\n"));
    }
    fs.mkdirSync(path.join(cliDir, "bin"));
    fs.copyFileSync(path.join(root, "bin", "tfs.js"), path.join(cliDir, "bin", "tfs.js"));
    fs.chmodSync(path.join(cliDir, "bin", "tfs.js"), 0o755);
    fs.writeFileSync(path.join(cliDir, "README.md"), CLI_README(manifest.name));
    fs.copyFileSync(path.join(root, "LICENSE"), path.join(cliDir, "LICENSE"));
    const cliRequires = requiredPackages(cliJs);
    writeVersioned(cliDir, manifest, changelog, (version) => cliManifest(manifest, cliRequires, { version, libraryVersion, cloudSdks: cloudSdks() }));

    return [npmPack(libraryDir, out), npmPack(cliDir, out)];
}

if (require.main === module) {
    for (const packed of pack(path.resolve(__dirname, "../.."))) {
        console.log(JSON.stringify({
            name: packed.name, version: packed.version, tarball: path.relative(process.cwd(), packed.tarball), size: packed.size,
            unpackedSize: packed.unpackedSize, files: packed.files.length,
        }));
    }
}
