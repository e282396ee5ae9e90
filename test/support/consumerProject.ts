/**
 * A consumer project in a temporary folder, installed from packed packages (the library, the
 * command) the way a project with a lockfile installs: `npm ci`. Its lockfile is cut from this
 * repository's (the same versions of `@pulumi/*` and of every package under them), so the install
 * needs nothing that `npm ci` here did not already put in npm's cache: it works offline. (`npm
 * install TARBALL` would not: npm resolves the new package's peers from full registry documents,
 * which `npm ci` never fetches.)
 */
import * as fs from "fs";
import * as path from "path";

interface LockEntry {
    version?: string;
    resolved?: string;
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    [key: string]: unknown;
}

export interface PackageLock {
    name?: string;
    version?: string;
    lockfileVersion: number;
    requires?: boolean;
    packages: Record<string, LockEntry>;
}

export interface PackageJson extends LockEntry {
    name: string;
    bin?: Record<string, string>;
    license?: string;
    devDependencies?: Record<string, string>;
}

/** Where Node finds `name` from the package installed at `from` (a lockfile path; "" is the root). */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
        const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
        if (packages[candidate] !== undefined) {
            return candidate;
        }
        if (!dir) {
            return undefined;
        }
    }
}

/** The names a package needs installed: dependencies, optional ones, and its required peers. */
function needs(entry: LockEntry): { name: string; optional: boolean }[] {
    const optionalPeer = (name: string) => entry.peerDependenciesMeta?.[name]?.optional === true;
    return [
        ...Object.keys({ ...entry.dependencies }).map((name) => ({ name, optional: false })),
        ...Object.keys({ ...entry.optionalDependencies }).map((name) => ({ name, optional: true })),
        ...Object.keys({ ...entry.peerDependencies }).filter((name) => !optionalPeer(name)).map((name) => ({ name, optional: false })),
    ];
}

/** A packed package and its tarball's path relative to the consumer. */
export interface LocalPackage {
    manifest: PackageJson;
    tarball: string;
}

/**
 * The consumer's lockfile: its root, the local packages from their tarballs, and every package they
 * need, where and at the version the repository's lockfile has it.
 */
export function consumerLock(repoLock: PackageLock, consumer: PackageJson, locals: LocalPackage[]): PackageLock {
    const source: Record<string, LockEntry> = { ...repoLock.packages };
    for (const { manifest, tarball } of locals) {
        source[`node_modules/${manifest.name}`] = {
            version: manifest.version,
            resolved: `file:${tarball}`,
            license: manifest.license,
            dependencies: manifest.dependencies,
            peerDependencies: manifest.peerDependencies,
            peerDependenciesMeta: manifest.peerDependenciesMeta,
            ...(manifest.bin === undefined ? {} : { bin: manifest.bin }),
        };
    }
    const root: LockEntry = {
        name: consumer.name,
        version: consumer.version,
        dependencies: consumer.dependencies,
        devDependencies: consumer.devDependencies,
    };
    const kept: Record<string, LockEntry> = {};
    const queue: [string, LockEntry][] = [["", { ...root, dependencies: { ...consumer.dependencies, ...consumer.devDependencies } }]];
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        const [from, entry] = item;
        for (const { name, optional } of needs(entry)) {
            const at = locate(source, from, name);
            if (at === undefined) {
                if (optional) {
                    continue;
                }
                throw new Error(`${from || "the consumer"} needs ${name}, which the repository's lockfile does not have`);
            }
            if (kept[at] === undefined) {
                // The repository's dev and peer marks say nothing about the consumer's tree.
                kept[at] = Object.fromEntries(Object.entries(source[at]).filter(([key]) => !["dev", "peer", "devOptional"].includes(key)));
                queue.push([at, source[at]]);
            }
        }
    }
    const sorted = Object.fromEntries(Object.keys(kept).sort().map((key) => [key, kept[key]]));
    return { name: consumer.name, version: consumer.version, lockfileVersion: repoLock.lockfileVersion, requires: true, packages: { "": root, ...sorted } };
}

/**
 * Writes the consumer's files, the packed packages and its lockfile into `dir`. `packed` maps each
 * package's name to its staged folder (its generated package.json) and tarball; the consumer's
 * package.json depends on each as `file:TARBALL`.
 */
export function writeConsumer(dir: string, sourceDir: string, repoRoot: string, packed: Record<string, { dir: string; tarball: string }>): void {
    for (const file of fs.readdirSync(sourceDir)) {
        fs.copyFileSync(path.join(sourceDir, file), path.join(dir, file));
    }
    const consumer = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as PackageJson;
    const locals = Object.entries(packed).map(([name, { dir: packageDir, tarball: packedTarball }]) => {
        const spec = consumer.dependencies?.[name] ?? "";
        const tarball = spec.replace(/^file:/, "");
        if (!spec.startsWith("file:") || tarball === "") {
            throw new Error(`the consumer must depend on ${name} as file:TARBALL, not ${JSON.stringify(spec)}`);
        }
        fs.copyFileSync(packedTarball, path.join(dir, tarball));
        return { manifest: JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as PackageJson, tarball };
    });
    const repoLock = JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as PackageLock;
    fs.writeFileSync(path.join(dir, "package-lock.json"), `${JSON.stringify(consumerLock(repoLock, consumer, locals), null, 2)}\n`);
}
