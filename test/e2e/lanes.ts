/**
 * `npm run test:e2e`: starts the suite's loopback environment once, runs the end-to-end files in
 * two lanes side by side against it (each lane a mocha process running its files one after the
 * other), stops the environment. Most of a file's time is waiting on states (a progress deadline,
 * a canary's holds, an HPA's stabilisation window, a pod's grace period), so a second lane uses the
 * time the first spends waiting.
 *
 * What decides the lanes: every file that deploys a Gateway of the environment's class runs in lane
 * 1, one after the other (all such Gateways share one Traefik address, 127.0.111.1:8500/8501, so two
 * at once would take each other's traffic; the checkouts' Gateway names a class no controller
 * serves, so it takes no address and runs in lane 2), and so do the two files that start a registry on the login
 * registry's port (`privateRegistry`, `transitions`); and the node's CPU: a test pod asks for 250m,
 * the least the program accepts, and both lanes' pods must fit the node's 2 cores (8 such pods).
 * Lane 2 starts with the failure scenarios (five pods at once) while lane 1 runs the Gateway file
 * (three) and the autoscaling file (three at most); the canary (four pods) meets the stack file or
 * day 2 (three at most each), and so does the image-volume file (four at most: two serving pods, a
 * surge pod, a canary pod), the transitions (three at most) whatever lane 2 has left. Lane 1 is
 * the longer: the transitions walk one stack through every feature, which no second lane can share.
 * The YAML consumer (one pod, and the package's schema analysis, CPU-bound) runs in lane 2 after
 * the checkouts (two pods at most: the model's and a canary's).
 * A file in neither list goes to
 * the end of lane 2, so a new file is never skipped. A run starts by removing what an interrupted one left (`removeLeftovers`).
 * `TFS_E2E_LANES=1` runs every file in one lane, one after the other;
 * `npm run test:e2e -- FILE...` runs only those files, in one lane. Each line of a lane's output
 * starts with its name; `TFS_TEST_TIMES` gets every file's time (fileTimes.ts) and the
 * environment's start and stop, as `.ci/run` prints them.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as readline from "readline";
import { ROOT, removeLeftovers, startEnvironment, suiteEnvironmentCommand } from "../support/e2eProject";
import { descendants, signalAll } from "../support/processTree";

/** The files of each lane, in their order (see above). */
export const LANES = [
    ["gateway", "callers", "autoscaling", "canary", "imageVolume", "privateRegistry", "transitions"],
    ["failures", "stack", "doctor", "operate", "day2", "checkouts", "yamlConsumer", "nodeLifecycle"],
];

const E2E = path.join(ROOT, "test", "e2e");
const fileOf = (name: string) => path.join(E2E, `${name}.test.ts`);

export function lanes(all: string[], requested: string[], laneCount: number): string[][] {
    if (requested.length > 0) {
        return [requested];
    }
    if (laneCount <= 1) {
        return [all];
    }
    const planned = LANES.map((names) => names.map(fileOf).filter((f) => all.includes(f)));
    planned[planned.length - 1].push(...all.filter((f) => !planned.flat().includes(f)));
    return planned.filter((l) => l.length > 0);
}

function timed(what: string, run: () => void): void {
    const started = Date.now();
    try {
        run();
    } finally {
        if (process.env.TFS_TEST_TIMES) {
            fs.appendFileSync(process.env.TFS_TEST_TIMES, `${JSON.stringify({ file: what, seconds: (Date.now() - started) / 1000, passed: 0, failed: 0 })}\n`);
        }
    }
}

const running = new Set<ChildProcess>();

function runLane(name: string, files: string[]): Promise<number> {
    const mocha = path.join(ROOT, "node_modules", "mocha", "bin", "mocha.js");
    const child = spawn(process.execPath, [mocha, "--no-config", "--require", "ts-node/register/transpile-only", "--extension", "ts",
        "--timeout", "900000", "--reporter", "./test/support/fileTimes.ts", ...files], {
        cwd: ROOT, env: { ...process.env, TFS_E2E_LANE: name }, stdio: ["ignore", "pipe", "pipe"], detached: true,
    });
    running.add(child);
    console.log(`[${name}] ${files.map((f) => path.relative(ROOT, f)).join(" ")}`);
    for (const stream of [child.stdout, child.stderr]) {
        readline.createInterface({ input: stream }).on("line", (line) => console.log(`[${name}] ${line}`));
    }
    return new Promise((resolve) => {
        child.once("exit", (code, signal) => {
            running.delete(child);
            resolve(code ?? (signal ? 1 : 0));
        });
        child.once("error", (err) => {
            running.delete(child);
            console.error(`[${name}] ${err.message}`);
            resolve(1);
        });
    });
}

function stopEnvironment(): void {
    if (process.env.TFS_E2E_KEEP !== "1") {
        timed("(environment stop)", () => suiteEnvironmentCommand("stop", 5 * 60 * 1000));
    }
}

/**
 * Ctrl-C or CI's timeout: the lanes' process groups end, with every process they started outside
 * them (the plugins of a Pulumi update in progress: the CLI puts them in groups of their own), then
 * the environment stops.
 */
function onSignal(signal: NodeJS.Signals): void {
    // Found now: once a lane's mocha and pulumi are gone, their plugins' parent is no longer theirs.
    const started = [...running].flatMap((child) => descendants(child.pid!));
    signalAll([...running].map((child) => -child.pid!), "SIGTERM");
    signalAll(started, "SIGTERM");
    setTimeout(() => {
        signalAll([...running].map((child) => -child.pid!), "SIGKILL");
        signalAll(started, "SIGKILL");
        try {
            stopEnvironment();
        } finally {
            process.exit(signal === "SIGINT" ? 130 : 143);
        }
    }, 10_000);
}

async function main(): Promise<number> {
    const all = fs.readdirSync(E2E).filter((f) => f.endsWith(".test.ts")).sort().map((f) => path.join(E2E, f));
    const requested = process.argv.slice(2).map((f) => path.resolve(f));
    const missing = requested.filter((f) => !fs.existsSync(f));
    if (missing.length > 0) {
        console.error(`no such test file: ${missing.join(", ")}`);
        return 2;
    }
    const laneCount = Number(process.env.TFS_E2E_LANES ?? "2");
    const planned = lanes(all, requested, laneCount);
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
        timed("(environment start)", startEnvironment);
        await removeLeftovers();
        const codes = await Promise.all(planned.map((files, i) => runLane(planned.length > 1 ? `lane ${i + 1}` : "e2e", files)));
        return Math.max(...codes);
    } finally {
        stopEnvironment();
    }
}

/**
 * The oldest Node.js the suite runs on, [major, minor], from scripts/lib/node.sh (TFS_NODE_MIN, which
 * the version pins test holds equal to package.json's engines.node): under an older node,
 * `npm run test:e2e` runs itself again on the node that script leaves first on PATH (the pinned build,
 * installed once), so the lanes and every Pulumi program they deploy run on it.
 */
export function minNode(): [number, number] {
    const m = /^TFS_NODE_MIN=(\d+)\.(\d+)$/m.exec(fs.readFileSync(path.join(ROOT, "scripts", "lib", "node.sh"), "utf8"));
    if (!m) {
        throw new Error("scripts/lib/node.sh sets no TFS_NODE_MIN=MAJOR.MINOR");
    }
    return [Number(m[1]), Number(m[2])];
}

/** Whether `version` ("24.22.3") is `min` or later. */
export function isAtLeast(version: string, min: [number, number]): boolean {
    const [major, minor] = version.split(".").map(Number);
    return major > min[0] || (major === min[0] && minor >= min[1]);
}

function onSupportedNode(): Promise<number> | undefined {
    if (isAtLeast(process.versions.node, minNode())) {
        return undefined;
    }
    const child = spawn("bash", ["-c", 'source scripts/lib/node.sh && tfs_node_ensure && exec node "$@"', "bash",
        ...process.execArgv, __filename, ...process.argv.slice(2)], { cwd: ROOT, stdio: "inherit" });
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
        process.on(signal, () => child.kill(signal));
    }
    return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

if (require.main === module) {
    (onSupportedNode() ?? main()).then((code) => process.exit(code), (err: Error) => {
        console.error(err.message);
        process.exit(1);
    });
}
