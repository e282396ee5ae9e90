/**
 * A warmup file from `tfs warmup` through the server that loads it: the TF Serving stand-in replays
 * it at load, and once a byte of it is corrupted `tfs preflight` refuses it, as the stand-in does.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { WARMUP_FILE } from "../../../model/warmup";
import { fixtureModelDir } from "../../support/fixtures";
import { runTfs } from "../../support/tfsCommand";
import { BUILD_TIMEOUT_MS, standinBinary, startTfServing } from "../../support/tfServingStandin";

describe("tfs warmup with the TF Serving stand-in (child processes)", function () {
    this.timeout(120_000);
    before(function () {
        this.timeout(BUILD_TIMEOUT_MS);
        standinBinary();
    });
    let work: string;
    let model: string;
    beforeEach(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-warmup-"));
        model = path.join(work, "half_plus_two");
        fs.cpSync(fixtureModelDir("half_plus_two_cpu"), model, { recursive: true });
    });
    afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

    const args = ["--model_name=half_plus_two", "--file_system_poll_wait_seconds=0", "--max_num_load_retries=0", "--num_request_iterations_for_warmup=3"];
    const write = async (): Promise<string> => {
        const bodies = [{ instances: [[1.0], [2.0]] }, { inputs: { x: [[5.0]] } }].map((body, i) => {
            const file = path.join(work, `body${i}.json`);
            fs.writeFileSync(file, JSON.stringify(body));
            return file;
        });
        const run = await runTfs(["warmup", model, "--input", ...bodies]);
        assert.strictEqual(run.code, 0, run.stderr);
        return path.join(model, "00000123", WARMUP_FILE);
    };

    it("writes a file the server replays at load, each record --num_request_iterations_for_warmup times", async () => {
        const file = await write();
        const server = await startTfServing({ args: [...args, `--model_base_path=${model}`] });
        try {
            assert.match(server.log(), /with model-warmup-options num_request_iterations \{ value: 3 \}/);
            assert.match(server.log(), /Number of warmup records read: 2\./);
            const res = await fetch(`${server.url}/v1/models/half_plus_two:predict`, { method: "POST", body: JSON.stringify({ instances: [[1.0]] }) });
            assert.deepStrictEqual(await res.json(), { predictions: [[2.5]] });
        } finally {
            await server.close();
        }
        assert.ok(fs.existsSync(file));
    });

    it("refuses at preflight a corrupted file, naming the record, as the server fails its load", async () => {
        const file = await write();
        const bytes = fs.readFileSync(file);
        bytes[bytes.length - 5] ^= 0x01;
        fs.writeFileSync(file, bytes);
        const preflight = await runTfs(["preflight", model]);
        assert.strictEqual(preflight.code, 1, preflight.stdout);
        assert.match(preflight.stdout, /error WARMUP_INVALID: .*tf_serving_warmup_requests: record 1 \(byte \d+\) has data whose CRC does not match/);
        await assert.rejects(startTfServing({ args: [...args, `--model_base_path=${model}`] }),
            /DATA_LOSS: corrupted record at \d+\. Please verify your warmup data is in TFRecord format\./);
    });
});
