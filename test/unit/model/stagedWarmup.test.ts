import * as assert from "assert";
import * as path from "path";
import { preflight } from "../../../model/savedModel";
import { warmupFilesFor, warmupSourcesOf } from "../../../model/stagedWarmup";
import { readWarmupFile } from "../../../model/warmup";
import { fixtureModelDir } from "../../support/fixtures";

describe("stagedWarmup", () => {
    describe("warmupSourcesOf", () => {
        it("names each case by its file and line and keeps its expected outputs", () => {
            const sources = warmupSourcesOf([
                { line: 1, request: { instances: [[1.0]] }, expected: { y: [[2.5]] } },
                { line: 3, request: { instances: [[2.0]] } },
            ], "golden.jsonl");
            assert.deepStrictEqual(sources, [
                { name: "golden.jsonl:1", body: { instances: [[1.0]] }, expected: { y: [[2.5]] } },
                { name: "golden.jsonl:3", body: { instances: [[2.0]] } },
            ]);
        });
    });

    describe("warmupFilesFor", () => {
        const report = preflight(fixtureModelDir("half_plus_two_2_versions"), { versions: [123, 124] });

        it("writes one file per served version, checked against that version's signatures", () => {
            const { files, problems } = warmupFilesFor(report, [{ name: "a.json", body: { instances: [[1.0]] } }], "m");
            assert.deepStrictEqual(problems, []);
            assert.deepStrictEqual(Object.keys(files), ["123", "124"]);
            assert.strictEqual(readWarmupFile(files[124]).records.length, 1);
        });

        it("names the version and the source of each problem", () => {
            const { files, problems } = warmupFilesFor(report, [{ name: path.join("x", "a.json"), body: { signature_name: "nope", instances: [[1.0]] } }]);
            assert.deepStrictEqual(files, {});
            assert.deepStrictEqual(problems.map((p) => p.split(": signature")[0]), ["version 123: x/a.json", "version 124: x/a.json"]);
        });
    });
});
