/**
 * TF Serving for tests: the e2e environment's `tensorflow_model_server` stand-in
 * (tools/e2e-env/go/tfserving-standin, the server baked into its tensorflow/serving image), built
 * once and run as a child process on loopback ports against the shipped fixtures. Tests talk to
 * the same server the loopback cluster runs, so there is one TF Serving fake, not two.
 *
 * The binary is built with the machine's Go and cached under `$TFS_E2E_CACHE/bin` (default
 * `~/.cache/tf-serving-e2e/bin`), keyed by a hash of the stand-in's sources and the Go version.
 */
import { execFileSync, spawn } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { ownChild } from "./children";
import { fixtureModelDir } from "./fixtures";

const SOURCE = path.resolve(__dirname, "../../tools/e2e-env/go/tfserving-standin");

let binary: string | undefined;

/** Time a suite's `before` hook allows for building the stand-in. */
export const BUILD_TIMEOUT_MS = 600_000;

/**
 * The stand-in's binary, built on first use (a second test run finds it cached). A cold build takes
 * minutes on a busy machine and blocks the event loop: suites call it from a `before` hook with a
 * long timeout (`BUILD_TIMEOUT_MS`), not from inside a test.
 */
export function standinBinary(): string {
    if (binary !== undefined) {
        return binary;
    }
    const goVersion = execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8" }).trim();
    const hash = crypto.createHash("sha256").update(goVersion);
    for (const file of fs.readdirSync(SOURCE).filter((f) => (f.endsWith(".go") && !f.endsWith("_test.go")) || f === "go.mod").sort()) {
        hash.update(`${file}\0`).update(fs.readFileSync(path.join(SOURCE, file)));
    }
    const cache = process.env.TFS_E2E_CACHE ?? path.join(os.homedir(), ".cache", "tf-serving-e2e");
    const dir = path.join(cache, "bin", `tfserving-standin-test-${hash.digest("hex").slice(0, 16)}`);
    const target = path.join(dir, "tensorflow_model_server");
    if (!fs.existsSync(target)) {
        fs.mkdirSync(dir, { recursive: true });
        const tmp = `${target}.tmp.${process.pid}`;
        execFileSync("go", ["build", "-trimpath", "-o", tmp, "."], {
            cwd: SOURCE,
            env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" },
            stdio: ["ignore", "ignore", "pipe"],
        });
        fs.renameSync(tmp, target);
    }
    binary = target;
    return binary;
}

export interface TfServing {
    /** REST base URL, e.g. http://127.0.0.1:41234 */
    url: string;
    port: number;
    /** gRPC endpoint, host:port (opens with the REST port). */
    grpcEndpoint: string;
    /** The server's log (stderr) so far. */
    log(): string;
    /** Kills the server and waits for it to exit. */
    close(): Promise<void>;
}

export interface TfServingOptions {
    /** Server flags; the gRPC and REST ports are added. */
    args: string[];
    /** REST port; default a free one. */
    port?: number;
    /** How long to wait for the REST port to open, in milliseconds; default 20000. */
    startTimeoutMs?: number;
}

/** The flags that serve one shipped fixture under a name, looking at the folder once (as the product's images do). */
export function fixtureArgs(fixture: string, name = fixture): string[] {
    return [`--model_name=${name}`, `--model_base_path=${fixtureModelDir(fixture)}`, "--file_system_poll_wait_seconds=0"];
}

/** Starts the server and resolves once its REST port accepts connections (it opens once the models are AVAILABLE). */
export async function startTfServing(options: TfServingOptions): Promise<TfServing> {
    const port = options.port ?? await unusedPort();
    const grpcPort = await unusedPort();
    const child = ownChild(spawn(standinBinary(), [`--port=${grpcPort}`, `--rest_api_port=${port}`, ...options.args], { stdio: ["ignore", "pipe", "pipe"] }));
    let log = "";
    child.stdout?.on("data", (chunk: Buffer) => { log += chunk.toString(); });
    child.stderr?.on("data", (chunk: Buffer) => { log += chunk.toString(); });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const close = async () => {
        if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGKILL");
        }
        await exited;
    };
    const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
    while (!await accepts(port)) {
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
            await close();
            throw new Error(`tensorflow_model_server stand-in did not open port ${port}:\n${log}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { url: `http://127.0.0.1:${port}`, port, grpcEndpoint: `127.0.0.1:${grpcPort}`, log: () => log, close };
}

function accepts(port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const socket = net.connect(port, "127.0.0.1");
        socket.once("connect", () => { socket.destroy(); resolve(true); });
        socket.once("error", () => resolve(false));
    });
}

/** The state of every version of a model, highest first, e.g. "124 LOADING, 123 AVAILABLE". */
export async function versionStates(server: TfServing, model: string): Promise<string> {
    const res = await fetch(`${server.url}/v1/models/${model}`, { signal: AbortSignal.timeout(5000) });
    const body = await res.json() as { model_version_status?: Array<{ version: string; state: string }> };
    return (body.model_version_status ?? []).map((s) => `${s.version} ${s.state}`).join(", ");
}

/** Polls until the model's version states read `want`. */
export async function untilVersionStates(server: TfServing, model: string, want: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let seen = "";
    while ((seen = await versionStates(server, model)) !== want) {
        if (Date.now() > deadline) {
            throw new Error(`model ${model}: waited ${timeoutMs} ms for "${want}", still "${seen}"`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
}

/**
 * A model base folder in a temporary directory that starts with version 123 of the two-version
 * fixture; versions added later are picked up by a server that polls it
 * (`--file_system_poll_wait_seconds=1`), while 123 keeps serving.
 */
export class ModelFolder {
    readonly basePath: string;
    private readonly root: string;

    constructor() {
        this.root = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-model-"));
        this.basePath = path.join(this.root, "model");
        fs.cpSync(path.join(fixtureModelDir("half_plus_two_2_versions"), "00000123"), path.join(this.basePath, "123"), { recursive: true });
    }

    /** Flags that serve this folder as `name`, polling every second and trying each load once. */
    args(name: string): string[] {
        return [`--model_name=${name}`, `--model_base_path=${this.basePath}`, "--file_system_poll_wait_seconds=1", "--max_num_load_retries=0"];
    }

    /**
     * Adds version 124 whose variables are a FIFO: its load blocks (LOADING) until `release()`
     * writes the real bytes into it.
     */
    addLoadingVersion(): { release(): Promise<void> } {
        const variables = path.join("variables", "variables.data-00000-of-00001");
        let content = Buffer.alloc(0);
        const dir = this.addVersion(124, (staging) => {
            content = fs.readFileSync(path.join(staging, variables));
            fs.rmSync(path.join(staging, variables));
            execFileSync("mkfifo", [path.join(staging, variables)]);
        });
        const shard = path.join(dir, variables);
        return {
            release: async () => {
                // Non-blocking: opening a FIFO for writing fails (ENXIO) until the server opens it for reading.
                for (let tries = 0; ; tries++) {
                    try {
                        const fd = fs.openSync(shard, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
                        fs.writeSync(fd, content);
                        fs.closeSync(fd);
                        return;
                    } catch (err) {
                        if ((err as NodeJS.ErrnoException).code !== "ENXIO" || tries > 200) {
                            throw err;
                        }
                        await new Promise((resolve) => setTimeout(resolve, 25));
                    }
                }
            },
        };
    }

    /** Adds version 124 with a saved_model.pb that is not a protobuf: its load fails (DATA_LOSS). */
    addUndecodableVersion(): void {
        this.addVersion(124, (staging) => fs.writeFileSync(path.join(staging, "saved_model.pb"), "not a SavedModel"));
    }

    dispose(): void {
        fs.rmSync(this.root, { recursive: true, force: true });
    }

    /** Copies the fixture's version 124 outside the base path, lets `prepare` change it, then renames it in: a poll never sees half a copy. */
    private addVersion(version: number, prepare: (dir: string) => void): string {
        const staging = path.join(this.root, `staging-${version}`);
        fs.cpSync(path.join(fixtureModelDir("half_plus_two_2_versions"), "00000124"), staging, { recursive: true });
        prepare(staging);
        const dir = path.join(this.basePath, String(version));
        fs.renameSync(staging, dir);
        return dir;
    }
}

/** A loopback port with nothing listening on it (bound, then closed): connecting to it is refused. */
export async function unusedPort(): Promise<number> {
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => {
        probe.once("error", reject);
        probe.listen(0, "127.0.0.1", () => resolve());
    });
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
}
