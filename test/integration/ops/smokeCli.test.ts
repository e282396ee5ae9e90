import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { TfsRun, runTfs } from "../../support/tfsCommand";
import {
    BUILD_TIMEOUT_MS, ModelFolder, TfServing, fixtureArgs, standinBinary, startTfServing, untilVersionStates, unusedPort,
} from "../../support/tfServingStandin";

/** Runs `node bin/tfs.js ARGS` as a child process (asynchronously, so the server keeps answering); `onStderr` sees its progress as it comes. */
function tfs(args: string[], env: NodeJS.ProcessEnv = process.env, onStderr?: (text: string) => void): Promise<TfsRun> {
    return runTfs(args, { env, onStderr });
}

describe("tfs smoke (child process)", function () {
    // Each run starts node with ts-node: one to three seconds apiece on a small, busy machine.
    this.timeout(120_000);
    before(function () {
        this.timeout(BUILD_TIMEOUT_MS);
        standinBinary();
    });
    let server: TfServing | undefined;
    let folder: ModelFolder | undefined;
    afterEach(async () => {
        await server?.close();
        server = undefined;
        folder?.dispose();
        folder = undefined;
    });

    /** The tensorflow_model_server stand-in serving the half_plus_two fixture. */
    const serve = async () => {
        server = await startTfServing({ args: fixtureArgs("half_plus_two_cpu", "half_plus_two") });
        return server.url;
    };
    /** A server whose new version 124 is LOADING (blocked) next to the AVAILABLE 123. */
    const serveLoading = async () => {
        folder = new ModelFolder();
        server = await startTfServing({ args: folder.args("half_plus_two") });
        const loading = folder.addLoadingVersion();
        await untilVersionStates(server, "half_plus_two", "124 LOADING, 123 AVAILABLE");
        return { url: server.url, loading };
    };

    it("prints the answer on stdout and progress on stderr, exit 0", async () => {
        const { url, loading } = await serveLoading();
        let released = false;
        const run = await tfs(["smoke", "--url", url, "--model", "half_plus_two", "--timeout", "30"], process.env, (text) => {
            if (!released && /LOADING/.test(text)) {
                released = true;
                void loading.release();
            }
        });
        assert.strictEqual(run.code, 0, run.stderr);
        assert.match(run.stdout, /^ok: model "half_plus_two" \(version 124\) answered in [\d.]+ ms$/m);
        assert.match(run.stdout, /^request: {3}{"signature_name":"serving_default","instances":\[\[1\]\]}$/m);
        assert.match(run.stdout, /^answer: {4}{"predictions":\[\[2\.5\]\]}$/m);
        assert.match(run.stderr, /version 124 LOADING, version 123 AVAILABLE \(attempt 1/);
        assert.match(run.stderr, /version 124 AVAILABLE, version 123 END \(attempt \d/);
        assert.doesNotMatch(run.stdout, /LOADING/);
    });

    it("prints one JSON object with --json", async () => {
        const url = await serve();
        const run = await tfs(["smoke", "--url", url, "--model", "half_plus_two", "--json"]);
        assert.strictEqual(run.code, 0, run.stderr);
        const report = JSON.parse(run.stdout);
        assert.strictEqual(report.outcome, "ok");
        assert.deepStrictEqual(report.answer, { predictions: [[2.5]] });
        assert.strictEqual(report.httpStatus, 200);
        assert.strictEqual(typeof report.latencyMs, "number");
    });

    it("exits 3 when nothing listens at the URL", async () => {
        const port = await unusedPort();
        const run = await tfs(["smoke", "--url", `http://127.0.0.1:${port}`, "--model", "m", "--timeout", "0.5", "--json"]);
        assert.strictEqual(run.code, 3, run.stderr);
        assert.strictEqual(JSON.parse(run.stdout).outcome, "unreachable");
        assert.match(run.stderr, /connection refused/);
    });

    it("exits 4 when the model stays LOADING, and when the model is unknown", async () => {
        const { url } = await serveLoading();
        const [stuck, unknown] = await Promise.all([
            tfs(["smoke", "--url", url, "--model", "half_plus_two", "--timeout", "0.5"]),
            tfs(["smoke", "--url", url, "--model", "resnet"]),
        ]);
        assert.strictEqual(stuck.code, 4, stuck.stderr);
        assert.match(stuck.stderr, /tfs smoke: not-available: model "half_plus_two" did not become AVAILABLE within 0\.5 s: version 124 LOADING, version 123 AVAILABLE/);
        assert.strictEqual(stuck.stdout, "");
        assert.strictEqual(unknown.code, 4, unknown.stderr);
        assert.match(unknown.stderr, /Could not find any versions of model resnet/);
    });

    it("exits 5 when predict fails, naming TF Serving's error", async () => {
        const url = await serve();
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-smoke-"));
        try {
            const file = path.join(dir, "request.json");
            fs.writeFileSync(file, JSON.stringify({ instances: [[true]] }));
            const run = await tfs(["smoke", "--url", url, "--model", "half_plus_two", "--input", file]);
            assert.strictEqual(run.code, 5, run.stderr);
            assert.match(run.stderr, /tfs smoke: predict-error: predict failed with HTTP 400: JSON Value: true Type: True is not of expected type: float/);
            assert.match(run.stderr, /^request: {"instances":\[\[true\]\]}$/m);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("sends the body of --input FILE", async () => {
        const url = await serve();
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-smoke-"));
        try {
            const file = path.join(dir, "request.json");
            fs.writeFileSync(file, JSON.stringify({ instances: [1.0, 2.0, 5.0] }));
            const run = await tfs(["smoke", "--url", url, "--model", "half_plus_two", "--input", file, "--json"]);
            assert.strictEqual(run.code, 0, run.stderr);
            assert.deepStrictEqual(JSON.parse(run.stdout).answer, { predictions: [2.5, 3.0, 4.5] });
            fs.writeFileSync(file, "{\"examples\": []}");
            const bad = await tfs(["smoke", "--url", url, "--model", "half_plus_two", "--input", file]);
            assert.strictEqual(bad.code, 2);
            assert.match(bad.stderr, /--input .*request\.json must have exactly one of "instances"/);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("exits 2 for bad usage, naming what to fix", async () => {
        const url = await serve();
        const runs = await Promise.all([
            tfs(["smoke", "--model", "m"]),
            tfs(["smoke", "--url", url]),
            tfs(["smoke", "--url", "127.0.0.1:8501", "--model", "m"]),
            tfs(["smoke", "--url", url, "--model", "half_plus_two", "--timeout", "soon"]),
            tfs(["smoke", "--url", url, "--model", "half_plus_two", "--signature", "predict_images"]),
        ]);
        assert.deepStrictEqual(runs.map((r) => r.code), [2, 2, 2, 2, 2], runs.map((r) => r.stderr).join("\n"));
        assert.match(runs[0].stderr, /give exactly one of --stack NAME .* or --url REST_URL/);
        assert.match(runs[1].stderr, /--model NAME is required with --url/);
        assert.match(runs[2].stderr, /--url "127\.0\.0\.1:8501" is not an http\(s\) URL/);
        assert.match(runs[3].stderr, /"soon" is not a number of seconds/);
        assert.match(runs[4].stderr, /has no signature "predict_images"; its signatures are: .*serving_default/);
    });

    it("says clearly that --stack needs the Pulumi CLI when it is not installed", async () => {
        const withoutPulumi = { ...process.env, PATH: path.dirname(process.execPath) };
        const run = await tfs(["smoke", "--stack", "dev"], withoutPulumi);
        assert.strictEqual(run.code, 2, run.stderr);
        assert.match(run.stderr, /--stack needs the Pulumi CLI, which is not on PATH.*--url REST_URL --model NAME/);
    });
});

describe("tfs smoke --grpc (child process)", function () {
    this.timeout(90_000);
    let server: TfServing | undefined;
    afterEach(async () => {
        await server?.close();
        server = undefined;
    });

    it("prints the Predict answer from the gRPC port, exit 0; --json holds the same report", async () => {
        server = await startTfServing({ args: fixtureArgs("half_plus_two_cpu", "half_plus_two") });
        const [text, json] = await Promise.all([
            tfs(["smoke", "--grpc", "--url", server.grpcEndpoint, "--model", "half_plus_two"]),
            tfs(["smoke", "--grpc", "--url", server.grpcEndpoint, "--model", "half_plus_two", "--json"]),
        ]);
        assert.strictEqual(text.code, 0, text.stderr);
        assert.match(text.stdout, /^ok: model "half_plus_two" \(version 123\) answered Predict in [\d.]+ ms$/m);
        assert.match(text.stdout, new RegExp(`^predict: {3}Predict grpc://${server.grpcEndpoint} \\(model half_plus_two\\) -> OK$`, "m"));
        assert.match(text.stdout, /^answer: {4}{"model_spec":{"name":"half_plus_two","version":"123","signature_name":"serving_default"},"outputs":{"y":\[\[2\.5\]\]}}$/m);
        assert.match(text.stderr, /^metadata: GetModelMetadata grpc:\/\//m);
        assert.strictEqual(json.code, 0, json.stderr);
        const report = JSON.parse(json.stdout);
        assert.deepStrictEqual([report.outcome, report.grpcStatus, report.tls, report.answer.outputs], ["ok", "OK", false, { y: [[2.5]] }]);
    });

    it("exits 4 for a model the server does not serve, 3 when nothing listens, 2 for bad usage", async () => {
        server = await startTfServing({ args: fixtureArgs("half_plus_two_cpu", "half_plus_two") });
        const runs = await Promise.all([
            tfs(["smoke", "--grpc", "--url", server.grpcEndpoint, "--model", "nope"]),
            tfs(["smoke", "--grpc", "--url", `127.0.0.1:${await unusedPort()}`, "--model", "m", "--timeout", "0.5"]),
            tfs(["smoke", "--grpc", "--url", "http://127.0.0.1:8500", "--model", "m"]),
            tfs(["smoke", "--url", server.url, "--model", "m", "--tls"]),
            tfs(["smoke", "--grpc", "--url", server.grpcEndpoint, "--model", "m", "--ca", "ca.pem"]),
            tfs(["smoke", "--grpc", "--url", server.grpcEndpoint, "--model", "m", "--tls", "--ca", "/nonexistent/ca.pem"]),
        ]);
        assert.deepStrictEqual(runs.map((r) => r.code), [4, 3, 2, 2, 2, 2], runs.map((r) => r.stderr).join("\n"));
        assert.match(runs[0].stderr, /not-available: model "nope" is not served at grpc:\/\/.*NOT_FOUND: Could not find any versions of model nope/);
        assert.match(runs[1].stderr, /unreachable: nothing answered at grpc:\/\/127\.0\.0\.1:\d+ within 0\.5 s: UNAVAILABLE/);
        assert.match(runs[2].stderr, /--url "http:\/\/127\.0\.0\.1:8500" is not HOST:PORT/);
        assert.match(runs[3].stderr, /--tls and --ca are for --grpc/);
        assert.match(runs[4].stderr, /--ca ca\.pem needs --tls/);
        assert.match(runs[5].stderr, /--ca \/nonexistent\/ca\.pem: cannot read it \(ENOENT\)/);
    });
});
