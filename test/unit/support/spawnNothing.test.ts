import * as assert from "assert";
import { execFile, execFileSync, fork, spawn, spawnSync } from "child_process";
import { takeSpawnAttempts } from "../../support/spawnNothing";

describe("unit tier guard", () => {
    it("refuses every way of starting a process, and records each attempt even when caught", () => {
        const starts: Array<[string, () => unknown]> = [
            ["spawn", () => spawn("true")],
            ["spawnSync", () => spawnSync("true")],
            ["execFile", () => execFile("true")],
            ["execFileSync", () => execFileSync("true")],
            ["fork", () => fork("nothing.js")],
        ];
        for (const [name, start] of starts) {
            assert.throws(start, /unit tests spawn nothing: move this test to test\/integration/, name);
        }
        // Taken here so that this test's own attempts do not fail it in the root afterEach hook.
        const attempts = takeSpawnAttempts();
        assert.deepStrictEqual(
            attempts.map((a) => a.replace(/\(.*\)$/, "")),
            starts.map(([name]) => `child_process.${name}`),
        );
    });
});
