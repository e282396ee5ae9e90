/**
 * A throwaway Pulumi project for the end-to-end suite and the benchmarks: a folder inside the
 * repository (so Node finds node_modules) whose program is the repository's, a copy of a fixture
 * model the run may change, and a stack file written as a user writes one.
 */
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import * as YAML from "yaml";
import { SAVED_MODELS } from "./fixtures";
import { PulumiCli, pulumiCli } from "./cli";

export const ROOT = path.resolve(__dirname, "../..");
export const FIXTURES = SAVED_MODELS;
export const MODEL = "half-plus-two";

export function env(name: string): string {
    const v = process.env[name];
    if (!v) {
        throw new Error(`${name} is not set: start the environment (scripts/e2e-env start) and load its env file`);
    }
    return v;
}

/**
 * The test suite's own loopback environment: a state folder, ports, bridge, pod subnet, cgroup and
 * load-balancer range of its own, so it runs beside the user's (whose dev stack, deployed by
 * `scripts/up-local`, holds CPU on that environment's node: the suite's surge pods would stay
 * Pending) without touching it, and the suite's stacks never land in the user's Pulumi backend. The
 * program keeps two environments apart by exactly these settings (`nodeLifecycle.test.ts` runs a
 * third one beside it). The build cache (`TFS_E2E_CACHE`) is shared.
 */
export function suiteEnvironment(cache = process.env.TFS_E2E_CACHE || path.join(os.homedir(), ".cache", "tf-serving-e2e")): Record<string, string> {
    return {
        TFS_E2E_STATE: path.join(cache, "suite-state"),
        TFS_E2E_API_PORT: "17443", TFS_E2E_ETCD_PORT: "13379", TFS_E2E_REGISTRY_PORT: "15001", TFS_E2E_LOGIN_REGISTRY_PORT: "15002",
        TFS_E2E_KCM_PORT: "11257", TFS_E2E_SCHEDULER_PORT: "11259", TFS_E2E_KWOK_PORT: "11247", TFS_E2E_KUBELET_PORT: "11350",
        TFS_E2E_POD_SUBNET: "10.213.1.0/24", TFS_E2E_NODE_BRIDGE: "tfse2e1", TFS_E2E_NODE_CGROUP: "/tfs-e2e-suite",
        TFS_E2E_LB_IP_RANGE: "127.0.101.0/24", TFS_E2E_PROMETHEUS_PORT: "19190",
        TFS_E2E_GATEWAY_ADDRESS: "127.0.111.1", TFS_E2E_GATEWAY_ADMIN_PORT: "19192",
        TFS_E2E_METRICS_PORT: "19193", // and 19194 (prometheus-adapter)
    };
}

/** Runs `scripts/e2e-env COMMAND` for the suite's environment. */
export function suiteEnvironmentCommand(command: "start" | "stop", timeoutMs: number): void {
    execFileSync(path.join(ROOT, "scripts", "e2e-env"), [command], {
        env: { ...process.env, ...suiteEnvironment() }, stdio: ["ignore", "inherit", "inherit"], timeout: timeoutMs,
    });
}

/** Whether every component of the suite's environment runs now (`scripts/e2e-env status`). */
export function environmentRunning(): boolean {
    try {
        execFileSync(path.join(ROOT, "scripts", "e2e-env"), ["status"], { env: { ...process.env, ...suiteEnvironment() }, stdio: "ignore", timeout: 60_000 });
        return true;
    } catch {
        return false;
    }
}

/** Starts the suite's environment (building what is missing) and loads its variables into this process. */
export function startEnvironment(): void {
    suiteEnvironmentCommand("start", 60 * 60 * 1000);
    const vars = execFileSync(path.join(ROOT, "scripts", "e2e-env"), ["env", "--json"], { encoding: "utf8", env: { ...process.env, ...suiteEnvironment() } });
    Object.assign(process.env, suiteEnvironment(), JSON.parse(vars) as Record<string, string>);
}

/** The namespaces the suite's tests create: `createProject`'s, the failure scenarios', the doctor's. */
export const SUITE_NAMESPACE = /^tfs-(e2e|fail|doctor)-/;

/**
 * Removes what an interrupted run left in the suite's environment (a killed mocha runs no `after`
 * hook): the tests' namespaces and every stack of the suite's backend. A run starts with it, so a
 * leftover Gateway cannot take this run's traffic (all of them share one address) nor its pods the
 * node's CPU. Waits, boundedly, for the namespaces to be gone; says what it removed.
 */
export async function removeLeftovers(log: (line: string) => void = console.log): Promise<void> {
    const namespaces = (kubectl("get", "namespaces").items as { metadata: { name: string } }[]).map((n) => n.metadata.name).filter((n) => SUITE_NAMESPACE.test(n));
    for (const ns of namespaces) {
        execFileSync("kubectl", ["delete", "namespace", ns, "--wait=false"], { stdio: "ignore", timeout: 30_000 });
    }
    // Outside any project folder every stack is listed by its full name, which `--stack` takes.
    const pulumi = (...args: string[]) => execFileSync("pulumi", args, { cwd: os.tmpdir(), encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"] });
    const stacks = (JSON.parse(pulumi("stack", "ls", "--all", "--json")) as { name: string }[]).map((st) => st.name);
    for (const name of stacks) {
        try {
            pulumi("cancel", "--yes", "--stack", name); // the lock a killed update left, if any
        } catch {
            // no update was running
        }
        pulumi("stack", "rm", "--force", "--yes", "--stack", name);
    }
    const deadline = Date.now() + 180_000;
    let left = namespaces;
    while (left.length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 2000));
        const now = new Set((kubectl("get", "namespaces").items as { metadata: { name: string } }[]).map((n) => n.metadata.name));
        left = left.filter((n) => now.has(n));
    }
    if (namespaces.length + stacks.length > 0) {
        log(`[e2e] removed what an earlier run left: ${namespaces.length} namespace(s), ${stacks.length} stack(s)`
            + (left.length ? `; still terminating after 180 s: ${left.join(", ")}` : ""));
    }
}

export function kubectl(...args: string[]): any { // eslint-disable-line @typescript-eslint/no-explicit-any
    return JSON.parse(execFileSync("kubectl", [...args, "-o", "json"], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] }));
}

/** `kubectl ... -o json` without blocking the event loop (for sampling while client traffic runs). */
export function kubectlAsync(...args: string[]): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return new Promise((resolve, reject) => {
        execFile("kubectl", [...args, "-o", "json"], { encoding: "utf8", timeout: 30_000, maxBuffer: 64 * 2 ** 20 }, (err, stdout) => {
            if (err) {
                reject(err);
            } else {
                resolve(JSON.parse(stdout));
            }
        });
    });
}

export interface E2eProject {
    run: string;
    namespace: string;
    stackName: string;
    projectDir: string;
    modelDir: string;
    stack: Stack;
    /** The `pulumi` CLI on this stack, in the project folder: the path a user takes (`pulumi up` previews first). */
    pulumi: PulumiCli;
    /** Rewrites the stack file: the defaults below, overridden by `extra`. */
    setConfig(extra?: Record<string, unknown>): void;
    /** Destroys the stack and removes every file the project wrote. */
    dispose(onOutput?: (line: string) => void): Promise<void>;
}

export async function createProject(): Promise<E2eProject> {
    // Two lanes create projects side by side (test/e2e/lanes.ts): the pid keeps their names apart.
    const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
    const namespace = `tfs-e2e-${run}`;
    const stackName = `e2e-${run}`;
    fs.mkdirSync(path.join(ROOT, ".tfs"), { recursive: true });
    const projectDir = fs.mkdtempSync(path.join(ROOT, ".tfs", "e2e-project-"));
    fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(projectDir, "Pulumi.yaml"));
    fs.writeFileSync(path.join(projectDir, "index.ts"), `import program = require(${JSON.stringify(path.join(ROOT, "index"))});\nexport = program;\n`);
    fs.writeFileSync(path.join(projectDir, "tsconfig.json"), JSON.stringify(projectTsconfig()));
    const modelDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-model-"));
    fs.cpSync(path.join(FIXTURES, "half_plus_two_cpu", "00000123"), path.join(modelDir, "123"), { recursive: true });
    const setConfig = (extra: Record<string, unknown> = {}) => {
        const values: Record<string, unknown> = {
            cloud: "local",
            modelPath: modelDir,
            modelName: MODEL,
            replicas: 2,
            namespace,
            baseImage: env("TFS_E2E_BASE_IMAGE"),
            registry: { server: env("TFS_E2E_REGISTRY"), repositoryPrefix: `e2e-${run}` },
            loadBalancerSourceRanges: ["127.0.0.0/8"],
            // The least the program accepts: the real node's 2 cores hold the pods of both lanes
            // (test/e2e/lanes.ts), two of each stack and its rollout's surge pod.
            cpu: "250m",
            ...extra,
        };
        const config = Object.fromEntries(Object.entries(values).map(([k, v]) => [`tf-serving:${k}`, v]));
        fs.writeFileSync(path.join(projectDir, `Pulumi.${stackName}.yaml`), YAML.stringify({ config }));
    };
    setConfig();
    const stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir: projectDir });
    return {
        run, namespace, stackName, projectDir, modelDir, stack, setConfig, pulumi: pulumiCli(projectDir, stackName),
        async dispose(onOutput) {
            await stack.destroy({ onOutput }).catch(() => undefined);
            await stack.workspace.removeStack(stackName).catch(() => undefined);
            fs.rmSync(projectDir, { recursive: true, force: true });
            fs.rmSync(modelDir, { recursive: true, force: true });
        },
    };
}

/**
 * The repository's compiler options, as the program runs from the repository root. Pulumi's Node.js
 * runtime only transpiles when the project folder's own tsconfig.json sets `noCheck` (it reads that
 * file alone, not what it extends); without one it type-checks every file the program reaches,
 * the cloud SDKs' declarations included: seconds a user's `pulumi up` never pays.
 */
export function projectTsconfig(): { compilerOptions: Record<string, unknown>; "ts-node"?: Record<string, unknown> } {
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown>; "ts-node"?: Record<string, unknown> };
    // The project's own run settings too (ts-node's cached swc transpiler, bin/transpile.js), so a
    // throwaway project starts as the real one does. The transpiler's path is relative to the file
    // that names it: here it must name the repository's.
    const tsNode = root["ts-node"] ?? {};
    const transpiler = typeof tsNode.transpiler === "string" ? path.resolve(ROOT, tsNode.transpiler) : tsNode.transpiler;
    return { compilerOptions: { ...root.compilerOptions, noCheck: true }, "ts-node": { ...tsNode, ...(transpiler === undefined ? {} : { transpiler }) } };
}

const MANIFEST = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

/** The manifest of `REGISTRY/REPO@sha256:...` from the loopback registry. */
export async function manifestOf(imageRef: string): Promise<{ layers: { digest: string; size: number }[] }> {
    const [repo, digest] = imageRef.slice(env("TFS_E2E_REGISTRY").length + 1).split("@");
    const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/manifests/${digest}`, { headers: { Accept: MANIFEST } });
    if (res.status !== 200) {
        throw new Error(`manifest of ${imageRef}: HTTP ${res.status}`);
    }
    return await res.json() as { layers: { digest: string; size: number }[] };
}

/** Tags of a repository in the loopback registry. */
export async function tagsOf(repo: string): Promise<string[]> {
    const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/tags/list`);
    return res.status === 200 ? ((await res.json()) as { tags: string[] }).tags : [];
}
