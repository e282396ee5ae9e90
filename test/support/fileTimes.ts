/**
 * Mocha's spec reporter, plus the wall time of each test file (its hooks included: the stacks a
 * file brings up and destroys are most of its cost) as a table at the end. With `TFS_TEST_TIMES`
 * set, the same figures are written there as JSON lines (`{"file", "seconds", "passed", "failed"}`),
 * which `.ci/run` prints in its budget table (with the `lane`, when test/e2e/lanes.ts ran the file
 * beside others). For a mocha process that runs its files one by one (each lane): in parallel
 * mode a worker's events arrive together when its file ends, so no wall time can be read from them.
 */
import * as fs from "fs";
import * as path from "path";
import * as Mocha from "mocha";

const ROOT = path.resolve(__dirname, "../..");

interface FileTime {
    file: string;
    started: number;
    ended?: number;
    passed: number;
    failed: number;
}

class FileTimes extends Mocha.reporters.Spec {
    constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
        super(runner, options);
        const files = new Map<string, FileTime>();
        const of = (r: Mocha.Runnable | Mocha.Suite) => (r.file ? files.get(r.file) : undefined);
        runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
            if (suite.file && !files.has(suite.file)) {
                files.set(suite.file, { file: path.relative(ROOT, suite.file), started: Date.now(), passed: 0, failed: 0 });
            }
        });
        runner.on(Mocha.Runner.constants.EVENT_SUITE_END, (suite: Mocha.Suite) => {
            const t = of(suite);
            if (t && suite.parent?.root) {
                t.ended = Date.now();
            }
        });
        runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, (test: Mocha.Test) => {
            const t = of(test);
            if (t) {
                t.passed++;
            }
        });
        runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test: Mocha.Runnable) => {
            const t = of(test);
            if (t) {
                t.failed++;
            }
        });
        runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
            const lane = process.env.TFS_E2E_LANE; // test/e2e/lanes.ts runs files side by side
            const rows = [...files.values()].map((t) => ({ file: t.file, seconds: ((t.ended ?? Date.now()) - t.started) / 1000, passed: t.passed, failed: t.failed, ...(lane ? { lane } : {}) }));
            console.log("\n  wall time per file (hooks included)");
            for (const r of rows) {
                console.log(`  ${r.seconds.toFixed(0).padStart(6)} s  ${String(r.passed).padStart(3)} passed ${String(r.failed).padStart(2)} failed  ${r.file}`);
            }
            if (process.env.TFS_TEST_TIMES) {
                fs.appendFileSync(process.env.TFS_TEST_TIMES, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
            }
        });
    }
}

export = FileTimes;
