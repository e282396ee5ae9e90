/**
 * Every process a test starts ends when the test ends, pass, fail or time out. A test that times
 * out keeps running in the background (mocha cannot stop a promise), so its cleanup may never run:
 * a stand-in it started would keep mocha from exiting. Children registered here are killed by the
 * root hooks (loaded by .mocharc as a root hook plugin): those started inside a test after it,
 * those started in a suite's `before` when the run ends, and all of them if the process exits.
 */
import { ChildProcess } from "child_process";

interface Owned {
    exited: Promise<void>;
    /** Started while a test ran (between the root beforeEach and afterEach), else by a suite hook. */
    inTest: boolean;
}

const owned = new Map<ChildProcess, Owned>();
let testRunning = false;

function alive(child: ChildProcess): boolean {
    return child.exitCode === null && child.signalCode === null;
}

/** Registers a child to be killed with the test (or the run) that started it; returns it. */
export function ownChild<T extends ChildProcess>(child: T): T {
    const exited = new Promise<void>((resolve) => {
        if (!alive(child)) {
            resolve();
            return;
        }
        child.once("exit", () => resolve());
        child.once("error", () => resolve());
    });
    owned.set(child, { exited, inTest: testRunning });
    void exited.then(() => owned.delete(child));
    return child;
}

/** Kills the children (SIGKILL: the stand-ins do not need a graceful end) and waits, boundedly, for them to exit. */
export async function killChildren(which: (o: Owned) => boolean = () => true): Promise<void> {
    const ending = [...owned].filter(([, o]) => which(o));
    for (const [child] of ending) {
        if (alive(child)) {
            child.kill("SIGKILL");
        }
    }
    await Promise.race([
        Promise.all(ending.map(([, o]) => o.exited)),
        new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
    ]);
}

/** How many registered children are still running (for the tests of this module). */
export function liveChildren(): number {
    return [...owned.keys()].filter(alive).length;
}

process.on("exit", () => {
    for (const child of owned.keys()) {
        if (alive(child)) {
            child.kill("SIGKILL");
        }
    }
});

export const mochaHooks = {
    beforeEach(): void {
        testRunning = true;
    },
    async afterEach(): Promise<void> {
        testRunning = false;
        await killChildren((o) => o.inTest);
    },
    async afterAll(): Promise<void> {
        await killChildren();
    },
};
