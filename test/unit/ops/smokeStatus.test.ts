import * as assert from "assert";
import { assessReadiness, parseModelStatus, VersionStatus } from "../../../ops/modelStatus";
import { describeFetchError, endpointFromStackOutputs, parseTfServingJson } from "../../../ops/smoke";

const v = (version: string, state: string, errorCode = "OK", errorMessage = ""): VersionStatus =>
    ({ version, state, errorCode, errorMessage });

describe("parseModelStatus", () => {
    it("reads TF Serving's GetModelStatusResponse JSON", () => {
        const json = {
            model_version_status: [
                { version: "124", state: "LOADING", status: { error_code: "OK", error_message: "" } },
                { version: "123", state: "END", status: { error_code: "NOT_FOUND", error_message: "gone" } },
            ],
        };
        assert.deepStrictEqual(parseModelStatus(json), [v("124", "LOADING"), v("123", "END", "NOT_FOUND", "gone")]);
    });

    it("refuses a body without model_version_status", () => {
        assert.throws(() => parseModelStatus({ error: "x" }), /no model_version_status list/);
        assert.throws(() => parseModelStatus(null), /no model_version_status list/);
    });
});

describe("assessReadiness", () => {
    it("is ready when every version is AVAILABLE", () => {
        const r = assessReadiness([v("123", "AVAILABLE")]);
        assert.strictEqual(r.ready, true);
        assert.deepStrictEqual(r.available, ["123"]);
        assert.strictEqual(r.summary, "version 123 AVAILABLE");
    });

    it("is not ready while any version is still loading", () => {
        const r = assessReadiness([v("124", "LOADING"), v("123", "AVAILABLE")]);
        assert.strictEqual(r.ready, false);
        assert.deepStrictEqual(r.pending.map((p) => p.version), ["124"]);
        assert.strictEqual(r.summary, "version 124 LOADING, version 123 AVAILABLE");
        assert.strictEqual(assessReadiness([v("1", "START")]).ready, false);
        assert.strictEqual(assessReadiness([v("1", "UNKNOWN")]).ready, false);
    });

    it("ignores versions on their way out after a rollout", () => {
        const r = assessReadiness([v("2", "AVAILABLE"), v("1", "UNLOADING")]);
        assert.strictEqual(r.ready, true);
        assert.strictEqual(assessReadiness([v("2", "AVAILABLE"), v("1", "END")]).ready, true);
    });

    it("is not ready when nothing is available, and reports failed loads with their error", () => {
        const r = assessReadiness([v("1", "END", "UNKNOWN", "Failed to load")]);
        assert.strictEqual(r.ready, false);
        assert.deepStrictEqual(r.failed.map((f) => f.version), ["1"]);
        assert.strictEqual(r.summary, "version 1 END (UNKNOWN: Failed to load)");
        assert.strictEqual(assessReadiness([]).ready, false);
        assert.strictEqual(assessReadiness([]).summary, "no versions");
    });
});

describe("parseTfServingJson", () => {
    it("reads plain JSON and TF Serving's bare NaN and Infinity tokens", () => {
        assert.deepStrictEqual(parseTfServingJson('{"predictions": [2.5]}'), { predictions: [2.5] });
        assert.deepStrictEqual(parseTfServingJson('{"predictions": [NaN, -Infinity, 1]}'), { predictions: ["NaN", "-Infinity", 1] });
    });

    it("gives undefined for text that is not JSON", () => {
        assert.strictEqual(parseTfServingJson("<html>502 Bad Gateway</html>"), undefined);
    });

    it("leaves NaN inside strings alone, escaped quotes included", () => {
        assert.deepStrictEqual(parseTfServingJson('{"note": "a \\"NaN\\", Infinity]", "v": [NaN]}'), { note: "a \"NaN\", Infinity]", v: ["NaN"] });
    });

    it("reads a long run of whitespace in linear time (a lookbehind pattern took minutes on it)", () => {
        const text = `[${" ".repeat(150_000)}NaN, 1]`;
        const started = Date.now();
        assert.deepStrictEqual(parseTfServingJson(text), ["NaN", 1]);
        // The quadratic pattern needs over 10 s here on a quiet machine; the scan needs milliseconds.
        assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    });
});

describe("describeFetchError", () => {
    it("names connection refused, DNS failures and timeouts", () => {
        const fetchFailed = (code: string) => Object.assign(new TypeError("fetch failed"), { cause: { code } });
        assert.strictEqual(describeFetchError(fetchFailed("ECONNREFUSED")), "connection refused");
        assert.strictEqual(describeFetchError(fetchFailed("ENOTFOUND")), "host not found (DNS)");
        assert.strictEqual(describeFetchError(Object.assign(new Error("x"), { name: "TimeoutError" })), "timed out waiting for an answer");
    });
});

describe("endpointFromStackOutputs", () => {
    const out = (values: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }]));

    it("reads restUrl and the model of the models output served there, as the stack exports them", () => {
        const models = { a: { restUrl: "http://1.2.3.5:8501" }, m: { restUrl: "http://1.2.3.4:8501" } };
        assert.deepStrictEqual(endpointFromStackOutputs(out({ restUrl: "http://1.2.3.4:8501", models }), "dev"), {
            restUrl: "http://1.2.3.4:8501", model: "m",
        });
    });

    it("has no model without a models output", () => {
        assert.strictEqual(endpointFromStackOutputs(out({ restUrl: "http://h:8501" }), "dev").model, undefined);
        assert.strictEqual(endpointFromStackOutputs(out({ restUrl: "http://h:8501", modelName: "m" }), "dev").model, undefined);
    });

    it("names the stack and its outputs when restUrl is missing", () => {
        assert.throws(() => endpointFromStackOutputs(out({ grpcUrl: "x" }), "prod"),
            /stack "prod" has no restUrl output \(its outputs: grpcUrl\)/);
    });
});
