import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { SAVED_MODELS } from "../../support/fixtures";
import { withRenamedInput } from "../../support/savedModelBytes";
import { runTfs } from "../../support/tfsCommand";

/** `tfs preflight NEW --against OLD`, as a CI job that builds models runs it before it publishes one. */
describe("tfs preflight --against (child process)", function () {
    this.timeout(120_000);
    let dir: string;
    const OLD = path.join(SAVED_MODELS, "half_plus_two_cpu");

    before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-against-"));
        const renamed = path.join(dir, "renamed", "124");
        fs.cpSync(path.join(OLD, "00000123"), renamed, { recursive: true });
        const pb = path.join(renamed, "saved_model.pb");
        fs.writeFileSync(pb, withRenamedInput(fs.readFileSync(pb), "serving_default", "x", "inputs"));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("a renamed input is BREAKING, named with both versions and the way out; exit 3", async () => {
        const run = await runTfs(["preflight", path.join(dir, "renamed"), "--against", OLD]);
        assert.strictEqual(run.code, 3, run.stdout + run.stderr);
        assert.match(run.stdout, /^OK: TF Serving would serve version 124/m, "the new folder itself is servable");
        assert.match(run.stdout, /signatures: version 124 against version 123 of .*half_plus_two_cpu:/);
        assert.match(run.stdout, /BREAKING signature "serving_default": input "x" is renamed to "inputs": requests that send "x" are refused/);
        assert.match(run.stdout, /keep the old signature beside the new one \(see docs\/guides\/model-contract.md#signatures-at-preview\)/);
    });

    it("an added signature is a note (exit 0); --json carries the comparison", async () => {
        const run = await runTfs(["preflight", path.join(SAVED_MODELS, "half_plus_two_2_versions"), "--against", OLD, "--json"]);
        assert.strictEqual(run.code, 0, run.stdout + run.stderr);
        const report = JSON.parse(run.stdout);
        assert.deepStrictEqual(report.against.servedVersions, [123]);
        assert.deepStrictEqual(report.against.changes.map((c: { changes: { kind: string; breaking: boolean }[] }) => c.changes.map((x) => [x.kind, x.breaking])),
            [[["signature-added", false]]]);
    });

    it("an --against folder TF Serving would not serve is one line naming it, exit 1, no stack trace", async () => {
        const run = await runTfs(["preflight", OLD, "--against", path.join(dir, "nothing-here")]);
        assert.strictEqual(run.code, 1);
        assert.match(run.stderr, /--against .*nothing-here: TF Serving would not serve this folder \(.*\); point it at the model folder clients call now/);
        assert.doesNotMatch(run.stderr, /^\s+at /m);
    });
});
