import * as assert from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

const REPO = path.resolve(__dirname, "../../..");

function running(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

describe("test children (test/support/children.ts)", function () {
    this.timeout(120_000);

    it("kills the child of a test that timed out, so mocha exits", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-children-"));
        const pidFile = path.join(dir, "pid");
        try {
            const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
                execFile(process.execPath, [
                    path.join(REPO, "node_modules", "mocha", "bin", "mocha.js"), "--no-config",
                    "--require", "ts-node/register/transpile-only", "--require", "test/support/children.ts",
                    "--extension", "ts", "test/fixtures/mocha/timedOutChild.spec.ts",
                ], { cwd: REPO, env: { ...process.env, TFS_CHILD_PID_FILE: pidFile }, timeout: 90_000 }, (err, stdout, stderr) => {
                    resolve({ code: err === null ? 0 : typeof err.code === "number" ? err.code : null, out: stdout + stderr });
                });
            });
            // Without the root hooks the sleep keeps mocha's event loop busy: killed at 90 s, code null.
            assert.strictEqual(run.code, 1, `mocha should exit with the one failure:\n${run.out}`);
            assert.match(run.out, /Timeout of 300ms exceeded/);
            assert.match(run.out, /1 passing/);
            const pid = Number(fs.readFileSync(pidFile, "utf8"));
            assert.ok(pid > 0 && !running(pid), `child ${pid} still running`);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
