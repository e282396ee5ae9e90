import * as assert from "assert";
import * as http from "http";
import * as http2 from "http2";
import * as net from "net";
import { smoke, SmokeOptions, SmokeReport, SmokeUsageError } from "../../../ops/smoke";
import { MONITORING_FIXTURE } from "../../support/fixtures";
import { hugeAnswer } from "../../support/notTfServing";
import {
    BUILD_TIMEOUT_MS,
    ModelFolder,
    TfServing,
    fixtureArgs,
    standinBinary,
    startTfServing,
    untilVersionStates,
    unusedPort,
} from "../../support/tfServingStandin";

/**
 * Against the tensorflow_model_server stand-in (test/support/tfServingStandin.ts) serving the shipped
 * fixtures. Waits are on states, with bounds generous enough for a busy machine; the stand-ins end
 * with each test whatever happens (test/support/children.ts).
 */
describe("smoke", function () {
    this.timeout(120_000);
    let server: TfServing | undefined;
    let folder: ModelFolder | undefined;
    /** The progress of the test's last run: each run has its own list, so a late line of another test never lands here. */
    let progress: string[] = [];
    before(function () {
        this.timeout(BUILD_TIMEOUT_MS);
        standinBinary();
    });
    afterEach(async () => {
        await server?.close();
        server = undefined;
        folder?.dispose();
        folder = undefined;
    });

    const serve = async (port?: number) => {
        server = await startTfServing({ args: [...fixtureArgs("half_plus_two_cpu", "half_plus_two"), `--monitoring_config_file=${MONITORING_FIXTURE}`], port });
        return server;
    };
    /** A server for the model in a `ModelFolder`, whose version 124 arrives after the start. */
    const serveFolder = async () => {
        folder = new ModelFolder();
        server = await startTfServing({ args: folder.args("half_plus_two") });
        return { server, folder };
    };
    const metrics = async () => (await fetch(`${server?.url}/monitoring/prometheus/metrics`)).text();
    /** Short backoff keeps the waits short; the timeout is only a bound, reached by the tests that wait on purpose. */
    const run = (restUrl: string, options: Partial<SmokeOptions> = {}): Promise<SmokeReport> => {
        const lines: string[] = [];
        progress = lines;
        const onProgress = options.onProgress;
        return smoke({
            restUrl, model: "half_plus_two", timeoutMs: 30_000, initialBackoffMs: 20, maxBackoffMs: 100, ...options,
            onProgress: (line) => { lines.push(line); onProgress?.(line); },
        });
    };

    it("predicts y = 0.5x + 2 from the serving_default signature and reports status and latency", async () => {
        const { url } = await serve();
        const report = await run(url);
        assert.strictEqual(report.outcome, "ok", report.message);
        assert.strictEqual(report.exitCode, 0);
        assert.strictEqual(report.signature, "serving_default");
        assert.deepStrictEqual(report.request, { signature_name: "serving_default", instances: [[1]] });
        assert.strictEqual(report.httpStatus, 200);
        assert.deepStrictEqual(report.answer, { predictions: [[2.5]] });
        assert.ok(typeof report.latencyMs === "number" && report.latencyMs >= 0);
        assert.match(report.message, /model "half_plus_two" \(version 123\) answered in/);
        // request_count holds the status and metadata GETs too (as TF Serving's http_server.cc counts
        // them); the latency histogram's API tells the one :predict.
        assert.match(await metrics(), /^:tensorflow:serving:request_latency_count\{model_name="half_plus_two",API="predict",entrypoint="REST"\} 1$/m, "one :predict");
    });

    it("waits with progress while a new version is LOADING", async () => {
        const { server, folder } = await serveFolder();
        const loading = folder.addLoadingVersion();
        await untilVersionStates(server, "half_plus_two", "124 LOADING, 123 AVAILABLE");
        let polls = 0;
        const report = await run(server.url, {
            timeoutMs: 60_000,
            onProgress: (line) => {
                if (/LOADING/.test(line) && ++polls === 3) {
                    void loading.release();
                }
            },
        });
        assert.strictEqual(report.outcome, "ok", report.message);
        const states = progress.filter((l) => l.startsWith("model ")).map((l) => l.replace(/ \(attempt.*/, ""));
        assert.deepStrictEqual(states.slice(0, 3), Array(3).fill("model \"half_plus_two\": version 124 LOADING, version 123 AVAILABLE"));
        assert.strictEqual(states[states.length - 1], "model \"half_plus_two\": version 124 AVAILABLE, version 123 END");
        assert.match(report.message, /\(version 124\) answered/);
    });

    it("gives up as not available when a version stays LOADING past the timeout", async () => {
        const { server, folder } = await serveFolder();
        folder.addLoadingVersion();
        await untilVersionStates(server, "half_plus_two", "124 LOADING, 123 AVAILABLE");
        const started = Date.now();
        const report = await run(server.url, { timeoutMs: 300 });
        assert.strictEqual(report.outcome, "not-available");
        assert.strictEqual(report.exitCode, 4);
        assert.match(report.message, /did not become AVAILABLE within 0\.3 s: version 124 LOADING, version 123 AVAILABLE/);
        assert.ok(report.attempts >= 2, `polled ${report.attempts} times`);
        // The version never loads: any bound shows it gave up; this one leaves a busy machine room.
        assert.ok(Date.now() - started < 15_000, "stopped near the timeout");
        assert.strictEqual(report.answer, undefined);
    });

    it("shows a new version's failed load with its error while the old version answers", async () => {
        const { server, folder } = await serveFolder();
        folder.addUndecodableVersion();
        await untilVersionStates(server, "half_plus_two", "124 END, 123 AVAILABLE");
        const report = await run(server.url);
        assert.strictEqual(report.outcome, "ok", report.message);
        assert.match(progress[0], /version 124 END \(DATA_LOSS: Can't parse \S+\/124\/saved_model\.pb as binary proto\), version 123 AVAILABLE/);
        assert.match(report.message, /\(version 123\) answered/);
    });

    it("stops at once as not available for an unknown model", async () => {
        const { url } = await serve();
        const report = await run(url, { model: "half_plus_too" });
        assert.strictEqual(report.outcome, "not-available");
        assert.strictEqual(report.attempts, 1);
        assert.match(report.message, /model "half_plus_too" is not served .*HTTP 404: Could not find any versions of model half_plus_too.*check the model name/);
    });

    it("is unreachable when nothing listens, after retrying until the timeout", async () => {
        const port = await unusedPort();
        const report = await run(`http://127.0.0.1:${port}`, { timeoutMs: 300 });
        assert.strictEqual(report.outcome, "unreachable");
        assert.strictEqual(report.exitCode, 3);
        assert.match(report.message, /nothing answered at http:\/\/127\.0\.0\.1:\d+\/v1\/models\/half_plus_two within 0\.3 s: connection refused/);
        assert.ok(report.attempts >= 2);
        assert.match(progress[0], /waiting for model "half_plus_two" at .*: connection refused \(attempt 1, /);
    });

    it("is unreachable when the server accepts connections but never answers", async () => {
        const sockets: net.Socket[] = [];
        const silent = net.createServer((socket) => sockets.push(socket));
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
        try {
            const port = (silent.address() as net.AddressInfo).port;
            const report = await run(`http://127.0.0.1:${port}`, { timeoutMs: 200, pollTimeoutMs: 200 });
            assert.strictEqual(report.outcome, "unreachable");
            assert.match(report.message, /timed out waiting for an answer/);
        } finally {
            sockets.forEach((s) => s.destroy());
            await new Promise<void>((resolve) => silent.close(() => resolve()));
        }
    });

    it("keeps retrying through refused connections until the server comes up", async () => {
        const port = await unusedPort();
        const late = new Promise<void>((resolve, reject) => setTimeout(() => {
            serve(port).then(() => resolve(), reject);
        }, 300));
        const report = await run(`http://127.0.0.1:${port}`, { timeoutMs: 60_000 });
        await late;
        assert.strictEqual(report.outcome, "ok", report.message);
        assert.match(progress[0], /connection refused/);
    });

    it("reports a predict error with TF Serving's message", async () => {
        const { url } = await serve();
        const report = await run(url, { request: { instances: ["one"] } });
        assert.strictEqual(report.outcome, "predict-error");
        assert.strictEqual(report.exitCode, 5);
        assert.strictEqual(report.httpStatus, 400);
        assert.strictEqual(report.message, "predict failed with HTTP 400: JSON Value: \"one\" Type: String is not of expected type: float");
    });

    it("builds the request from the chosen signature", async () => {
        const { url } = await serve();
        const report = await run(url, { signature: "regress_x2_to_y3" });
        assert.deepStrictEqual(report.request, { signature_name: "regress_x2_to_y3", instances: [[1]] });
        assert.strictEqual(report.outcome, "ok");
        assert.deepStrictEqual(report.answer, { predictions: [[3.5]] }, "y3 = 0.5 x2 + 3");
        // A serialized tf.Example input: the stand-in does not run ParseExample, so this predict fails.
        const example = await run(url, { signature: "classify_x_to_y" });
        assert.deepStrictEqual(example.request, { signature_name: "classify_x_to_y", instances: [""] });
        assert.strictEqual(example.outcome, "predict-error");
    });

    it("refuses an unknown signature, listing the model's signatures", async () => {
        const { url } = await serve();
        await assert.rejects(run(url, { signature: "predict" }), (err: Error) => {
            assert.ok(err instanceof SmokeUsageError);
            assert.match(err.message, /has no signature "predict"; its signatures are: classify_x_to_y, regress_x2_to_y3, regress_x_to_y, regress_x_to_y2, serving_default/);
            return true;
        });
    });

    it("sends a supplied request as it is, without reading the metadata", async () => {
        const { url } = await serve();
        const report = await run(url, { request: { instances: [1.0, 2.0, 5.0] } });
        assert.deepStrictEqual(report.answer, { predictions: [2.5, 3.0, 4.5] });
        assert.ok(!progress.some((line) => line.startsWith("metadata:")), progress.join("\n"));
        const named = await run(url, { request: { inputs: { x: [[4]] } }, signature: "regress_x2_to_y3" });
        assert.deepStrictEqual(named.request, { signature_name: "regress_x2_to_y3", inputs: { x: [[4]] } });
    });

    it("sends a scalar per example to a model whose input has unknown rank (half_plus_three)", async () => {
        server = await startTfServing({ args: fixtureArgs("half_plus_three") });
        const report = await run(server.url, { model: "half_plus_three" });
        assert.deepStrictEqual(report.request, { signature_name: "serving_default", instances: [1] });
        assert.deepStrictEqual(report.answer, { predictions: [3.5] });
    });

    it("accepts a REST URL with a trailing slash", async () => {
        const { url } = await serve();
        const report = await run(`${url}/`);
        assert.strictEqual(report.restUrl, url);
        assert.strictEqual(report.outcome, "ok");
    });
});

/** Servers that are not TF Serving's REST API, in this process: each test closes its own. */
describe("smoke against what is not TF Serving's REST API", function () {
    this.timeout(60_000);
    const closers: (() => Promise<void>)[] = [];
    afterEach(async () => {
        await Promise.all(closers.splice(0).map((close) => close()));
    });
    const listen = async (server: net.Server): Promise<string> => {
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
        const sockets = new Set<net.Socket>();
        server.on("connection", (s: net.Socket) => { sockets.add(s); s.on("close", () => sockets.delete(s)); });
        closers.push(() => new Promise<void>((resolve) => {
            sockets.forEach((s) => s.destroy());
            server.close(() => resolve());
        }));
        return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    };
    const run = (restUrl: string, options: Partial<SmokeOptions> = {}) => smoke({
        restUrl, model: "m", timeoutMs: 1500, initialBackoffMs: 20, maxBackoffMs: 100, ...options,
    });

    it("is unreachable, not ok, when the server accepts the connection and closes it at once", async () => {
        const url = await listen(net.createServer((socket) => socket.destroy()));
        const report = await run(url);
        assert.strictEqual(report.outcome, "unreachable");
        assert.strictEqual(report.exitCode, 3);
        assert.match(report.message, /nothing answered at .* within 1\.5 s: .*(closed it without an answer|timed out)/);
    });

    it("stops reading an answer past its size cap, within the timeout", async () => {
        const url = await listen(http.createServer(hugeAnswer(200)));
        const started = Date.now();
        // Each poll gets 5 s to read the first 8 MiB, so a busy machine still meets the cap before the poll's timer.
        const report = await run(url, { timeoutMs: 6000, pollTimeoutMs: 5000 });
        assert.strictEqual(report.outcome, "unreachable", report.message);
        assert.match(report.message, /the answer is larger than 8 MiB/);
        assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    });

    it("ends by --timeout even when the predict answer trickles forever", async () => {
        const url = await listen(http.createServer((req, res) => {
            if (req.url?.endsWith(":predict")) {
                res.writeHead(200, { "content-type": "application/json" });
                const drip = setInterval(() => res.write(" "), 50);
                res.on("close", () => clearInterval(drip));
                return;
            }
            res.writeHead(200, { "content-type": "application/json" });
            res.end(JSON.stringify({ model_version_status: [{ version: "1", state: "AVAILABLE", status: { error_code: "OK", error_message: "" } }] }));
        }));
        const started = Date.now();
        const report = await run(url, { timeoutMs: 2000, request: { instances: [1] } });
        const took = Date.now() - started;
        assert.strictEqual(report.outcome, "predict-error");
        assert.match(report.message, /predict request failed: timed out waiting for an answer/);
        assert.ok(took >= 1000 && took < 15_000, `took ${took} ms, not the predict limit of 30 s`);
    });

    it("fails at once, with the fix, on a port Node's fetch refuses", async () => {
        const report = await run("http://127.0.0.1:6000", { timeoutMs: 30_000 });
        assert.strictEqual(report.outcome, "unreachable");
        assert.strictEqual(report.attempts, 1);
        assert.match(report.message, /Node's fetch refuses to connect to port 6000 .*such as 8501/);
    });

    it("says it may be the gRPC port when the answer is HTTP/2", async () => {
        const h2 = http2.createServer();
        const url = await listen(h2 as unknown as net.Server);
        const report = await run(url, { timeoutMs: 30_000 });
        assert.strictEqual(report.outcome, "unreachable");
        assert.strictEqual(report.attempts, 1);
        assert.match(report.message, /not HTTP\/1\.1 .*gRPC port \(8500 by convention\).*REST port .*8501/);
    });

    it("says to use http:// when https:// meets a plain HTTP port", async () => {
        const url = await listen(http.createServer((_req, res) => res.end("{}")));
        const report = await run(url.replace("http:", "https:"), { timeoutMs: 30_000 });
        assert.strictEqual(report.outcome, "unreachable");
        assert.match(report.message, /does not speak TLS on this port: use http:\/\//);
    });
});
