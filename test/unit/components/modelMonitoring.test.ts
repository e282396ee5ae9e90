import * as assert from "assert";
import * as k8s from "@pulumi/kubernetes";
import { ModelMonitoring, ModelMonitoringArgs } from "../../../components/modelMonitoring";
import { THRESHOLD_BOUNDS, resolveModelMonitoringArgs } from "../../../components/modelMonitoringArgs";
import { DEFAULT_THRESHOLDS, alertRules } from "../../../observability/alerts";
import { startMockRuntime } from "../../support/mockRuntime";

const ARGS: ModelMonitoringArgs = { model: "half-plus-two", namespace: "serving", collector: "prometheus-operator" };

/** The one line `ModelMonitoring` throws for `args`, with nothing registered but the test's provider. */
async function refusal(args: Partial<ModelMonitoringArgs>): Promise<string> {
    const recorder = await startMockRuntime();
    const provider = new k8s.Provider("test", {});
    let message = "";
    assert.throws(() => new ModelMonitoring("m", { ...ARGS, ...args }, { provider }), (e: Error) => (message = e.message) !== "");
    await recorder.settle();
    assert.deepStrictEqual(recorder.resources.map((r) => r.type), ["pulumi:providers:kubernetes"], "nothing registered");
    assert.ok(!message.includes("\n"), `one line: ${message}`);
    return message;
}

describe("ModelMonitoring refuses thresholds whose alerts could never fire or would always fire", () => {
    // observability/alerts.ts: TFServingErrorRatioHigh fires on `errors / calls * 100 > errorRatioPercent`; no more than 100 % of the calls can fail.
    it("errorRatioPercent 100: the error ratio is never above it", async () => {
        assert.ok(alertRules({ name: "m", namespace: "s" }, { ...DEFAULT_THRESHOLDS, errorRatioPercent: 100 }).rules.some((r) => r.expr.endsWith("* 100 > 100")));
        assert.match(await refusal({ thresholds: { ...DEFAULT_THRESHOLDS, errorRatioPercent: 100 } }),
            /^ModelMonitoring m: thresholds\.errorRatioPercent must be a whole number from 1 to 99; above it the alert could never fire$/);
    });

    // observability/alerts.ts: TFServingLatencyP99High fires on `p99 > p99LatencyMs`; every latency is above -1.
    it("p99LatencyMs -1: every latency is above it", async () => {
        assert.match(await refusal({ thresholds: { p99LatencyMs: -1 } }), /^ModelMonitoring m: thresholds\.p99LatencyMs must be a whole number from 1 to 600000; below it the alert would always fire$/);
    });

    it("each threshold within the bounds the monitoring config section reads (one list, THRESHOLD_BOUNDS)", () => {
        for (const [name, { min, max }] of Object.entries(THRESHOLD_BOUNDS)) {
            const at = (value: number) => resolveModelMonitoringArgs({ ...ARGS, thresholds: { [name]: value } }).issues.map((i) => i.field);
            assert.deepStrictEqual([at(min), at(max), at(min - 1), at(max + 1), at(min + 0.5)],
                [[], [], [`thresholds.${name}`], [`thresholds.${name}`], [`thresholds.${name}`]], name);
        }
    });

    it("a threshold left out keeps its default; labels no object carries, or the model-server labels, are refused", async () => {
        assert.deepStrictEqual(resolveModelMonitoringArgs({ ...ARGS, thresholds: { restarts: 5 } }).args.thresholds, { ...DEFAULT_THRESHOLDS, restarts: 5 });
        assert.match(await refusal({ collector: "annotations", labels: { release: "kps" } }), /^ModelMonitoring m: labels do nothing with collector "annotations"/);
        assert.match(await refusal({ labels: { "app.kubernetes.io/name": "x" } }), /labels\.app\.kubernetes\.io\/name is a label this program sets on every model-server object/);
        assert.match(await refusal({ model: "Half_Plus_Two" }), /^ModelMonitoring m: model must be a DNS label/);
    });
});
