/**
 * A throwaway image registry for tests: Debian's `docker-registry` (the distribution project's
 * registry) on a free loopback port, with its config and storage in a temporary folder that
 * `stop()` removes. Plain HTTP: push with `--tls-verify=false` (buildah, podman, skopeo). No auth,
 * or with `login` the registry's htpasswd auth: every request needs `TEST_LOGIN` (basic auth).
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { Parser } from "tar";
import * as YAML from "yaml";
import { ownChild } from "./children";

/** The registry binary the Debian package `docker-registry` installs. */
export const REGISTRY_BINARY = "/usr/bin/docker-registry";

/** Media types a pull accepts for a single-platform image manifest (OCI and Docker schema 2). */
export const MANIFEST_MEDIA_TYPES = [
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
];

/** The one user of a registry started with `login`. */
export const TEST_LOGIN = { username: "tfs-e2e", password: "tfs-e2e-pull" };
/**
 * `TEST_LOGIN`'s htpasswd line. The registry reads bcrypt hashes only; this one was made with
 * `python3 -c "import crypt; print(crypt.crypt('tfs-e2e-pull', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=32)))"`
 * (cost 5: a test registry need not be slow to check). The registry test checks that it admits `TEST_LOGIN`.
 */
const TEST_HTPASSWD = `${TEST_LOGIN.username}:$2b$05$PjK1QaDrKhbZJHv3I0HmLOZu/LcI.n9MmWDT6kuCRu5MfXEq1Q9va\n`;

export interface Descriptor { mediaType: string; digest: string; size: number }
export interface ImageManifest { schemaVersion: number; mediaType?: string; config: Descriptor; layers: Descriptor[] }

export interface LocalRegistry {
    /** `127.0.0.1:PORT`: the registry part of an image reference. */
    readonly host: string;
    /** `http://127.0.0.1:PORT`. */
    readonly url: string;
    /** The image manifest of `repository:reference` (a tag or a digest). */
    manifest(repository: string, reference: string): Promise<ImageManifest>;
    /** The bytes of a blob (a config or a compressed layer), checked against its digest by the registry. */
    blob(repository: string, digest: string): Promise<Buffer>;
    /** Stops the registry and deletes its storage. Safe to call twice. */
    stop(): Promise<void>;
}

export interface StartOptions {
    /** Path of the registry binary; default `REGISTRY_BINARY`. */
    binary?: string;
    /** How long to wait for the registry to answer, in milliseconds; default 15000. */
    readyTimeoutMs?: number;
    /** Loopback port to listen on; default one free now. */
    port?: number;
    /** Require `TEST_LOGIN` on every request (htpasswd auth); default false. */
    login?: boolean;
}

const POLL_INTERVAL_MS = 100;
const STOP_TIMEOUT_MS = 5000;

/** Starts a registry on a free loopback port and resolves once `GET /v2/` answers 200. */
export async function startRegistry(options: StartOptions = {}): Promise<LocalRegistry> {
    const binary = options.binary ?? REGISTRY_BINARY;
    if (!fs.existsSync(binary)) {
        throw new Error(`${binary} not found: install the registry with \`apt-get install -y docker-registry\``);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-registry-"));
    const port = options.port ?? await freeLoopbackPort();
    const host = `127.0.0.1:${port}`;
    const configFile = path.join(dir, "config.yml");
    const htpasswd = path.join(dir, "htpasswd");
    if (options.login) {
        fs.writeFileSync(htpasswd, TEST_HTPASSWD);
    }
    fs.writeFileSync(configFile, YAML.stringify({
        version: 0.1,
        log: { level: "warn", accesslog: { disabled: true } },
        storage: { filesystem: { rootdirectory: path.join(dir, "data") }, delete: { enabled: true } },
        http: { addr: host, secret: "tfs-test-registry" },
        ...(options.login ? { auth: { htpasswd: { realm: "tfs-test-registry", path: htpasswd } } } : {}),
    }));
    const child = ownChild(spawn(binary, ["serve", configFile], { stdio: ["ignore", "ignore", "pipe"] }));
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
    const exited = new Promise<number | null>((resolve) => {
        child.once("exit", (code) => resolve(code));
        child.once("error", (err) => { stderr += String(err); resolve(null); });
    });
    let stopped = false;
    const stop = async (): Promise<void> => {
        if (!stopped) {
            stopped = true;
            await terminate(child, exited);
            fs.rmSync(dir, { recursive: true, force: true });
        }
    };
    const url = `http://${host}`;
    const headers: Record<string, string> = options.login
        ? { Authorization: `Basic ${Buffer.from(`${TEST_LOGIN.username}:${TEST_LOGIN.password}`).toString("base64")}` } : {};
    try {
        await waitUntilReady(url, headers, exited, options.readyTimeoutMs ?? 15000, () => stderr);
    } catch (err) {
        await stop();
        throw err;
    }
    return {
        host,
        url,
        stop,
        async manifest(repository, reference) {
            const res = await fetch(`${url}/v2/${repository}/manifests/${reference}`, {
                headers: { ...headers, Accept: MANIFEST_MEDIA_TYPES.join(", ") },
            });
            if (!res.ok) {
                throw new Error(`GET manifest ${repository}:${reference} answered ${res.status}: ${await res.text()}`);
            }
            return (await res.json()) as ImageManifest;
        },
        async blob(repository, digest) {
            const res = await fetch(`${url}/v2/${repository}/blobs/${digest}`, { headers });
            if (!res.ok) {
                throw new Error(`GET blob ${repository}@${digest} answered ${res.status}: ${await res.text()}`);
            }
            return Buffer.from(await res.arrayBuffer());
        },
    };
}

/** A port free on 127.0.0.1 right now (the OS picks it; the registry binds it a moment later). */
function freeLoopbackPort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = net.createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as net.AddressInfo;
            server.close(() => resolve(port));
        });
    });
}

async function waitUntilReady(url: string, headers: Record<string, string>, exited: Promise<number | null>, timeoutMs: number, stderr: () => string): Promise<void> {
    let exitCode: number | null | undefined;
    void exited.then((code) => { exitCode = code; });
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; Date.now() < deadline && attempt < timeoutMs / POLL_INTERVAL_MS; attempt++) {
        if (exitCode !== undefined) {
            throw new Error(`docker-registry exited (code ${exitCode}) before answering:\n${stderr()}`);
        }
        try {
            const res = await fetch(`${url}/v2/`, { headers, signal: AbortSignal.timeout(1000) });
            if (res.status === 200) {
                return;
            }
        } catch {
            // Not listening yet.
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
    throw new Error(`docker-registry did not answer on ${url}/v2/ within ${timeoutMs} ms:\n${stderr()}`);
}

/** SIGTERM, then SIGKILL if the process is still there after STOP_TIMEOUT_MS. */
async function terminate(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) {
        return;
    }
    child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => { timer = setTimeout(() => resolve("timeout"), STOP_TIMEOUT_MS); });
    const outcome = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (outcome === "timeout") {
        child.kill("SIGKILL");
        await exited;
    }
}

/** One entry of a layer tarball. */
export interface LayerEntry {
    /** Path inside the image, without a leading "/" or "./" or a trailing "/" (e.g. `models/m/1`). */
    path: string;
    /** Tar entry type: "File", "Directory", "SymbolicLink", ... */
    type: string;
    /** Permission bits (e.g. 0o755). */
    mode: number;
    uid: number;
    gid: number;
    content: Buffer;
}

/** Reads a layer blob (gzip-compressed or plain tar) into its entries, in tar order. */
export async function readLayer(blob: Buffer): Promise<LayerEntry[]> {
    const entries: LayerEntry[] = [];
    const parser = new Parser({
        onReadEntry: (entry) => {
            const chunks: Buffer[] = [];
            entry.on("data", (chunk: Buffer) => chunks.push(chunk));
            entry.on("end", () => entries.push({
                path: entry.path.replace(/^\.?\/+/, "").replace(/\/+$/, ""),
                type: entry.type,
                mode: (entry.mode ?? 0) & 0o7777,
                uid: entry.uid ?? -1,
                gid: entry.gid ?? -1,
                content: Buffer.concat(chunks),
            }));
        },
    });
    await new Promise<void>((resolve, reject) => {
        parser.on("end", () => resolve());
        parser.on("error", reject);
        parser.end(blob);
    });
    return entries;
}
