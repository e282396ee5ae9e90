/**
 * `npm run pack`: the installable packages, built from the repository into `dist/packages/`:
 *
 *     dist/packages/tf-serving/            the library, staged (package.json generated)
 *     dist/packages/tf-serving-cli/        the tfs command, staged
 *     dist/packages/tf-serving-X.Y.Z.tgz   and their tarballs (`npm pack` of each)
 *     dist/packages/tf-serving-cli-X.Y.Z.tgz
 *
 * Prints one JSON line per package (name, tarball, size, file count). The repository's own
 * package.json stays the program's and the tests'; what each package holds is `manifest.ts`.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import {
    CLI_FOLDERS, CLI_PACKAGE, LIBRARY_FOLDERS, PULUMI_PLUGIN_YAML, RootManifest, cliManifest, libraryManifest, pointAtLibrary, requiredPackages,
} from "./manifest";

export interface PackedPackage {
    name: string;
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
    })) as { name: string; filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
    return {
        name: packed.name, dir, tarball: path.join(destination, packed.filename), size: packed.size, unpackedSize: packed.unpackedSize,
        files: packed.files.map((f) => f.path).sort(),
    };
}

const LIBRARY_README = (name: string) => `# ${name}

Pulumi components that take a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes
(\`ModelImage\`, \`ModelServer\`, \`ModelGateway\`, \`ModelMonitoring\`, \`GkeCluster\`, \`EksCluster\`), and
the pure modules under them (\`preflight\`, \`sizing\`). Built from the tf-serving repository by
\`npm run pack\`; its docs/reference/library.md says how to use it and CHANGELOG.md what changed.
`;

const CLI_README = (name: string) => `# ${CLI_PACKAGE}

The \`tfs\` command of ${name} (preflight, build-context, plan, deploy, smoke, doctor), built from the
tf-serving repository by \`npm run pack\`; docs/reference/cli.md in the repository documents it.
`;

/** Builds and packs both packages into `out` (default `dist/packages`). */
export function pack(root: string, out = path.join(root, "dist", "packages")): PackedPackage[] {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as RootManifest;
    fs.rmSync(out, { recursive: true, force: true });
    const libraryDir = path.join(out, manifest.name);
    const cliDir = path.join(out, CLI_PACKAGE);

    // The library: its folders compiled with declarations.
    const libraryFiles = compile(root, sources(root, LIBRARY_FOLDERS), path.join(libraryDir, "dist"), true, () => true);
    const outside = libraryFiles.filter((f) => !(LIBRARY_FOLDERS as readonly string[]).includes(f.split("/")[0]));
    if (outside.length > 0) {
        throw new Error(`the library's folders import files outside them: ${outside.join(", ")}`);
    }
    const libraryJs = libraryFiles.filter((f) => f.endsWith(".js")).map((f) => fs.readFileSync(path.join(libraryDir, "dist", f), "utf8"));
    writeJson(path.join(libraryDir, "package.json"), libraryManifest(manifest, requiredPackages(libraryJs)));
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

    // The command: its folders compiled, every library module it needs taken from the library package.
    const isCli = (f: string) => (CLI_FOLDERS as readonly string[]).includes(f.split("/")[0]);
    const cliFiles = compile(root, sources(root, CLI_FOLDERS), path.join(cliDir, "dist"), false, isCli);
    const cliJs: string[] = [];
    for (const file of cliFiles) {
        const full = path.join(cliDir, "dist", file);
        const { text, libraryModules } = pointAtLibrary(fs.readFileSync(full, "utf8"), file, manifest.name);
        for (const module of libraryModules) {
            if (!libraryFiles.includes(`${module}.js`)) {
                throw new Error(`${file} requires ${module}, which the library package does not hold`);
            }
        }
        fs.writeFileSync(full, text);
        cliJs.push(text);
    }
    fs.mkdirSync(path.join(cliDir, "bin"));
    fs.copyFileSync(path.join(root, "bin", "tfs.js"), path.join(cliDir, "bin", "tfs.js"));
    fs.chmodSync(path.join(cliDir, "bin", "tfs.js"), 0o755);
    writeJson(path.join(cliDir, "package.json"), cliManifest(manifest, requiredPackages(cliJs)));
    fs.writeFileSync(path.join(cliDir, "README.md"), CLI_README(manifest.name));

    return [npmPack(libraryDir, out), npmPack(cliDir, out)];
}

if (require.main === module) {
    for (const packed of pack(path.resolve(__dirname, "../.."))) {
        console.log(JSON.stringify({
            name: packed.name, tarball: path.relative(process.cwd(), packed.tarball), size: packed.size,
            unpackedSize: packed.unpackedSize, files: packed.files.length,
        }));
    }
}
