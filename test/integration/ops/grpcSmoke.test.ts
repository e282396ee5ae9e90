import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { grpcSmoke, GrpcSmokeOptions, GrpcSmokeReport } from "../../../ops/grpcSmoke";
import { SmokeUsageError } from "../../../ops/smoke";
import { TensorObject } from "../../../ops/tfServingGrpc";
import { FakeTfServing, makeCertificates } from "../../support/fakeTfServingGrpc";
import { fixtureArgs, startTfServing, TfServing, unusedPort } from "../../support/tfServingStandin";

describe("tfs smoke --grpc", function () {
    this.timeout(30_000);
    let fake: FakeTfServing | undefined;
    let standin: TfServing | undefined;
    let progress: string[];
    beforeEach(() => {
        progress = [];
    });
    afterEach(async () => {
        fake?.close();
        fake = undefined;
        await standin?.close();
        standin = undefined;
    });

    /** Short timeouts and backoff keep every wait here under two seconds. */
    const run = (grpcEndpoint: string, options: Partial<GrpcSmokeOptions> = {}): Promise<GrpcSmokeReport> => grpcSmoke({
        grpcEndpoint, tls: false, model: "m", timeoutMs: 2000, initialBackoffMs: 20, maxBackoffMs: 100,
        onProgress: (line) => progress.push(line), ...options,
    });

    it("waits on GetModelStatus until AVAILABLE, builds the request from GetModelMetadata's signature and reports Predict", async () => {
        fake = new FakeTfServing({ loadingPolls: 2 });
        const report = await run(await fake.listen());
        assert.strictEqual(report.outcome, "ok", report.message);
        assert.strictEqual(report.exitCode, 0);
        assert.strictEqual(report.attempts, 3);
        assert.deepStrictEqual(progress.filter((l) => /^model "m"/.test(l)).map((l) => l.replace(/ \(attempt.*/, "")),
            ["model \"m\": version 7 LOADING", "model \"m\": version 7 LOADING", "model \"m\": version 7 AVAILABLE"]);
        assert.deepStrictEqual(report.request, { signature_name: "serving_default", instances: [[1]] });
        assert.deepStrictEqual(fake.predictRequests.map((r) => r.inputs), [{ x: { dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: "1" }, { size: "1" }] }, float_val: [1] } }]);
        assert.deepStrictEqual(report.answer, { model_spec: { name: "m", version: "7", signature_name: "serving_default" }, outputs: { y: [[2.5]] } });
        assert.strictEqual(report.grpcStatus, "OK");
        assert.ok(typeof report.latencyMs === "number" && report.latencyMs > 0);
        assert.match(report.message, /^model "m" \(version 7\) answered Predict in [\d.]+ ms$/);
    });

    it("gives up as not available when the model stays LOADING past the timeout", async () => {
        fake = new FakeTfServing({ loadingPolls: 1_000_000 });
        const report = await run(await fake.listen(), { timeoutMs: 300 });
        assert.strictEqual(report.outcome, "not-available");
        assert.strictEqual(report.exitCode, 4);
        assert.match(report.message, /did not become AVAILABLE within 0.3 s: version 7 LOADING/);
        assert.strictEqual(fake.predictRequests.length, 0);
    });

    it("stops at once as not available for an unknown model, with the server's NOT_FOUND", async () => {
        fake = new FakeTfServing();
        const report = await run(await fake.listen(), { model: "other" });
        assert.strictEqual(report.exitCode, 4);
        assert.strictEqual(report.attempts, 1);
        assert.match(report.message, /NOT_FOUND: Could not find any versions of model other/);
    });

    it("is unreachable when nothing listens, after retrying until the timeout", async () => {
        const report = await run(`127.0.0.1:${await unusedPort()}`, { timeoutMs: 300 });
        assert.strictEqual(report.outcome, "unreachable");
        assert.strictEqual(report.exitCode, 3);
        assert.ok(report.attempts >= 2, `${report.attempts} attempts`);
    });

    it("reports a failed Predict with its gRPC code and message", async () => {
        fake = new FakeTfServing();
        const report = await run(await fake.listen(), { signature: "broken" });
        assert.strictEqual(report.exitCode, 5);
        assert.strictEqual(report.grpcStatus, "INVALID_ARGUMENT");
        assert.strictEqual(report.message, "Predict failed with INVALID_ARGUMENT: Expects arg[0] to be float but int64 is provided");
    });

    it("refuses a signature the model lacks, listing its signatures", async () => {
        fake = new FakeTfServing();
        await assert.rejects(run(await fake.listen(), { signature: "nope" }),
            (err: Error) => err instanceof SmokeUsageError && /no signature "nope"; its signatures are: broken, serving_default/.test(err.message));
    });

    it("sends a supplied REST body as tensors, rows stacked on a batch dimension", async () => {
        fake = new FakeTfServing();
        const report = await run(await fake.listen(), { request: { instances: [[1], [3]] } });
        assert.strictEqual(report.outcome, "ok", report.message);
        assert.deepStrictEqual((fake.predictRequests[0].inputs as Record<string, TensorObject>).x.float_val, [1, 3]);
        assert.deepStrictEqual(report.answer?.outputs, { y: [[2.5], [3.5]] });
    });

    describe("with TLS", () => {
        let dir: string;
        let certs: ReturnType<typeof makeCertificates>;
        before(() => {
            dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-grpc-tls-"));
            certs = makeCertificates(dir);
        });
        after(() => fs.rmSync(dir, { recursive: true, force: true }));
        const tlsFake = async () => {
            fake = new FakeTfServing();
            const endpoint = await fake.listen(FakeTfServing.tls(certs));
            // By name: TLS's server name indication takes no IP address (RFC 6066).
            return endpoint.replace("127.0.0.1", "localhost");
        };

        it("verifies the server against the CA file and predicts", async () => {
            const report = await run(await tlsFake(), { tls: true, caFile: certs.ca });
            assert.strictEqual(report.outcome, "ok", report.message);
            assert.strictEqual(report.tls, true);
            assert.deepStrictEqual(report.answer?.outputs, { y: [[2.5]] });
        });

        it("verifies an IP target against the certificate's IP address", async () => {
            fake = new FakeTfServing();
            const report = await run(await fake.listen(FakeTfServing.tls(certs)), { tls: true, caFile: certs.ca });
            assert.strictEqual(report.outcome, "ok", report.message);
        });

        it("refuses an IP the certificate does not list", async () => {
            fake = new FakeTfServing();
            const endpoint = (await fake.listen(FakeTfServing.tls(certs))).replace("127.0.0.1", "[::ffff:127.0.0.1]");
            const report = await run(endpoint, { tls: true, caFile: certs.ca, timeoutMs: 5000 });
            assert.strictEqual(report.outcome, "unreachable");
            assert.strictEqual(report.attempts, 1);
            assert.match(report.message, /not for this address/);
        });

        it("refuses a server the system roots do not vouch for: nothing trusted answered", async () => {
            const report = await run(await tlsFake(), { tls: true, timeoutMs: 300 });
            assert.strictEqual(report.outcome, "unreachable");
            assert.match(report.message, /certificate/i);
            assert.strictEqual(fake?.statusCalls, 0);
        });

        it("does not speak plaintext to a TLS port", async () => {
            const report = await run(await tlsFake(), { timeoutMs: 300 });
            assert.strictEqual(report.outcome, "unreachable");
            assert.strictEqual(fake?.statusCalls, 0);
        });
    });

    it("answers from the tensorflow_model_server stand-in over gRPC, as over REST", async () => {
        standin = await startTfServing({ args: fixtureArgs("half_plus_two_cpu", "half_plus_two") });
        const report = await run(standin.grpcEndpoint, { model: "half_plus_two" });
        assert.strictEqual(report.outcome, "ok", report.message);
        assert.deepStrictEqual(report.answer, { model_spec: { name: "half_plus_two", version: "123", signature_name: "serving_default" }, outputs: { y: [[2.5]] } });
        const unknown = await run(standin.grpcEndpoint, { model: "nope" });
        assert.strictEqual(unknown.exitCode, 4);
        assert.match(unknown.message, /NOT_FOUND: Could not find any versions of model nope/);
        await assert.rejects(run(standin.grpcEndpoint, { model: "half_plus_two", request: { instances: [[1, 2], [3]] } }),
            (err: Error) => err instanceof SmokeUsageError && /input "x" of signature "serving_default" is not a dense list/.test(err.message));
    });
});
