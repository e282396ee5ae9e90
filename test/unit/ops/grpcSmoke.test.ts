import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import { servingType, SIGNATURE_DEF_MAP_URL } from "../../../model/tfProto";
import { grpcSmoke, GrpcSmokeOptions, GrpcSmokeReport } from "../../../ops/grpcSmoke";
import { SmokeUsageError } from "../../../ops/smoke";
import { serviceDefinition, TensorObject } from "../../../ops/tfServingGrpc";
import { fixtureArgs, startTfServing, TfServing, unusedPort } from "../../support/tfServingStandin";

/** A CA and a server certificate for 127.0.0.1 it signed, made with openssl in a temporary folder. */
function makeCertificates(dir: string): { ca: string; key: Buffer; cert: Buffer } {
    const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    run("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=tfs smoke test CA");
    run("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
    fs.writeFileSync(path.join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext");
    return { ca: path.join(dir, "ca.pem"), key: fs.readFileSync(path.join(dir, "server.key")), cert: fs.readFileSync(path.join(dir, "server.pem")) };
}

type Handler = (call: { request: Record<string, unknown> }, callback: grpc.sendUnaryData<unknown>) => void;

/**
 * A TF Serving fake on grpc-js with the product's own service definitions: model "m" (version 7)
 * reports LOADING for its first `loadingPolls` status calls, then AVAILABLE; Predict computes
 * half_plus_two (y = x/2 + 2) from float_val; signature "broken" fails as the real server would.
 */
class FakeTfServing {
    readonly server = new grpc.Server();
    statusCalls = 0;
    predictRequests: Record<string, unknown>[] = [];

    constructor(private readonly loadingPolls = 0) {
        const fail = (callback: grpc.sendUnaryData<unknown>, code: grpc.status, details: string) => callback({ code, details, name: "", message: details });
        const known = (request: Record<string, unknown>) => (request.model_spec as { name?: string } | undefined)?.name === "m";
        const status: Handler = ({ request }, callback) => {
            if (!known(request)) {
                return fail(callback, grpc.status.NOT_FOUND, `Could not find any versions of model ${(request.model_spec as { name?: string }).name}`);
            }
            this.statusCalls++;
            const state = this.statusCalls <= this.loadingPolls ? "LOADING" : "AVAILABLE";
            callback(null, { model_version_status: [{ version: 7, state, status: {} }] });
        };
        const metadata: Handler = ({ request }, callback) => {
            if (!known(request)) {
                return fail(callback, grpc.status.NOT_FOUND, "Servable not found for request: Latest(other)");
            }
            const tensor = (name: string) => ({ name, dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: -1 }, { size: 1 }] } });
            const map = servingType("tensorflow.serving.SignatureDefMap");
            const signature = { inputs: { x: tensor("x:0") }, outputs: { y: tensor("y:0") }, method_name: "tensorflow/serving/predict" };
            const value = map.encode(map.fromObject({ signature_def: { serving_default: signature, broken: signature } })).finish();
            callback(null, { model_spec: { name: "m", version: { value: 7 } }, metadata: { signature_def: { type_url: SIGNATURE_DEF_MAP_URL, value } } });
        };
        const predict: Handler = ({ request }, callback) => {
            this.predictRequests.push(request);
            const spec = request.model_spec as { signature_name?: string };
            if (spec.signature_name === "broken") {
                return fail(callback, grpc.status.INVALID_ARGUMENT, "Expects arg[0] to be float but int64 is provided");
            }
            const x = (request.inputs as Record<string, TensorObject>).x;
            const y = (x.float_val as number[]).map((v) => v / 2 + 2);
            callback(null, {
                model_spec: { name: "m", version: { value: 7 }, signature_name: spec.signature_name },
                outputs: { y: { dtype: "DT_FLOAT", tensor_shape: x.tensor_shape, float_val: y } },
            });
        };
        this.server.addService(serviceDefinition("ModelService"), { GetModelStatus: status });
        this.server.addService(serviceDefinition("PredictionService"), { GetModelMetadata: metadata, Predict: predict });
    }

    listen(credentials = grpc.ServerCredentials.createInsecure()): Promise<string> {
        return new Promise((resolve, reject) => this.server.bindAsync("127.0.0.1:0", credentials,
            (err, port) => (err ? reject(err) : resolve(`127.0.0.1:${port}`))));
    }

    close(): void {
        this.server.forceShutdown();
    }
}

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
        fake = new FakeTfServing(2);
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
        fake = new FakeTfServing(1_000_000);
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
            const endpoint = await fake.listen(grpc.ServerCredentials.createSsl(null, [{ private_key: certs.key, cert_chain: certs.cert }], false));
            // By name: TLS's server name indication takes no IP address (RFC 6066).
            return endpoint.replace("127.0.0.1", "localhost");
        };

        it("verifies the server against the CA file and predicts", async () => {
            const report = await run(await tlsFake(), { tls: true, caFile: certs.ca });
            assert.strictEqual(report.outcome, "ok", report.message);
            assert.strictEqual(report.tls, true);
            assert.deepStrictEqual(report.answer?.outputs, { y: [[2.5]] });
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
