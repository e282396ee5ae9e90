import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { INFERENCE_APIS } from "../../../observability/metrics";
import { REQUEST_RATE_WINDOW, prometheusAdapterRule, requestRateExpr, requestRateRecording } from "../../../observability/requestRate";
import { INFERENCE_REQUEST_RATE_METRIC } from "../../../serving/autoscaling";
import { selectorMatchers } from "../../support/promqlSelectors";

const MODEL = { name: "half-plus-two", namespace: "serving" };

describe("the recorded request rate (what a request-rate HPA reads on GKE)", () => {
    it("records INFERENCE_REQUEST_RATE_METRIC per pod and model, as often as the alerts", () => {
        const group = requestRateRecording(MODEL);
        assert.deepStrictEqual(group.rules.map((r) => r.record), [INFERENCE_REQUEST_RATE_METRIC]);
        assert.strictEqual(group.interval, "30s");
        assert.match(group.rules[0].expr, /^sum by \(pod, model_name\) \(rate\(/, "the adapter matches pods on `pod`, the HPA selects on `model_name`");
        assert.ok(group.rules[0].expr.endsWith(`[${REQUEST_RATE_WINDOW}]))`));
    });

    it("counts only this model's predict, classify and regress calls (the latency histogram's count; probes' status GETs have API=\"\")", () => {
        const [matchers] = selectorMatchers(requestRateExpr(MODEL));
        const by = Object.fromEntries(matchers.map((m) => [m.name, m]));
        assert.deepStrictEqual(Object.keys(by).sort(), ["API", "model_name", "namespace"], JSON.stringify(matchers));
        assert.match(requestRateExpr(MODEL), /rate\(:tensorflow:serving:request_latency_count\{/);
        assert.deepStrictEqual([by.model_name.op, by.model_name.value], ["=", "half-plus-two"]);
        assert.deepStrictEqual([by.namespace.op, by.namespace.value], ["=", "serving"], "the only namespace matcher GMP's webhook admits");
        assert.deepStrictEqual([by.API.op, by.API.value.split("|")], ["=~", [...INFERENCE_APIS]]);
    });
});

describe("prometheus-adapter's rule for the rate (EKS)", () => {
    it("is the loopback environment's rule (metricsapi.go, AdapterConfig) but for the rate window", () => {
        const go = fs.readFileSync(path.resolve(__dirname, "../../../tools/e2e-env/go/e2e-env/internal/metricsapi/metricsapi.go"), "utf8");
        const series = /const RequestSeries = "([^"]+)"/.exec(go)?.[1];
        const window = /const RateWindow = "([^"]+)"/.exec(go)?.[1];
        assert.ok(series && window, "metricsapi.go declares RequestSeries and RateWindow");
        const rule = prometheusAdapterRule(window) as { seriesQuery: string; name: { matches: string; as: string }; metricsQuery: string };
        assert.strictEqual(rule.seriesQuery, `${series}{namespace!="",pod!=""}`);
        assert.ok(new RegExp(rule.name.matches).test(series) && !new RegExp(rule.name.matches).test(`${series}x`));
        assert.strictEqual(rule.name.as, INFERENCE_REQUEST_RATE_METRIC);
        // The Go test's expected query once the adapter fills the template (metricsapi_test.go).
        const goTest = fs.readFileSync(path.resolve(__dirname, "../../../tools/e2e-env/go/e2e-env/internal/metricsapi/metricsapi_test.go"), "utf8");
        const filled = rule.metricsQuery.replace("<<.GroupBy>>", "pod").replace("<<.Series>>", series).replace("<<.LabelMatchers>>", 'namespace="m",pod=~"a|b"');
        assert.ok(goTest.includes(`want := \`${filled}\``), filled);
    });
});
