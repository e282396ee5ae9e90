/**
 * The unit tier's guard (loaded by .mocharc.unit.json before any test file): unit tests run
 * nothing outside this process. Every way `child_process` starts a program is replaced by one that
 * throws; a call is also recorded, so a test that catches the error (and would treat it as "tool
 * not installed") still fails in the root afterEach hook, and a call made while a test file loads
 * fails the run in the root afterAll hook. A test that needs a process belongs in
 * test/integration (same relative path), which runs without this guard.
 */
// The default import is the module itself; `import * as` would hand back a copy (esModuleInterop)
// whose getters cannot be replaced.
import childProcess from "child_process";

const MESSAGE = "unit tests spawn nothing: move this test to test/integration";

const STARTERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

const attempts: string[] = [];

function refuse(name: string) {
    return (...args: unknown[]): never => {
        const what = `child_process.${name}(${typeof args[0] === "string" ? JSON.stringify(args[0]) : ""})`;
        attempts.push(what);
        throw new Error(`${MESSAGE} (${what})`);
    };
}

// With --parallel, mocha's main process (which loads this file too, and runs no test) forks its
// workers: that one fork, of mocha's own worker script, passes.
const mochaWorker = require.resolve("mocha/lib/nodejs/worker.cjs");
const realFork = childProcess.fork;

const mutable = childProcess as unknown as Record<string, unknown>;
for (const name of STARTERS) {
    const refused = refuse(name);
    mutable[name] =
        name === "fork"
            ? (...args: unknown[]) => (args[0] === mochaWorker ? Reflect.apply(realFork, childProcess, args) : refused(...args))
            : refused;
}

/** The attempts recorded so far, emptied (for the guard's own test and the hooks). */
export function takeSpawnAttempts(): string[] {
    return attempts.splice(0, attempts.length);
}

function failOnAttempts(when: string): void {
    const made = takeSpawnAttempts();
    if (made.length > 0) {
        throw new Error(`${MESSAGE}: ${made.join(", ")} ${when}`);
    }
}

export const mochaHooks = {
    beforeEach(): void {
        failOnAttempts("while test files loaded or in a suite hook");
    },
    afterEach(): void {
        failOnAttempts("in this test");
    },
    afterAll(): void {
        failOnAttempts("in a suite hook or while test files loaded");
    },
};
