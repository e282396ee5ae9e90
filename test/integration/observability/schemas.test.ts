import * as assert from "assert";
import { alertRules } from "../../../observability/alerts";
import { gmpRules, podMonitoring } from "../../../components/clouds/gcp/collector";
import { KubeObject, podMonitor, prometheusRule } from "../../../observability/collectors";
import { requestRateRecording } from "../../../observability/requestRate";
import { GMP_CRD_FILE, crdSchema, operatorCrdFile, schemaProblems } from "../../support/crdSchema";

/* The scrape and rule objects against the schemas the API server validates them with: the Prometheus
 * Operator's real CRDs (from its Go module, v0.85.0) and GMP's, written from its API reference. */

const MODEL = { name: "half-plus-two", namespace: "serving" };
const GROUP = alertRules(MODEL);
const EXTRA = { labels: { release: "kube-prometheus-stack" } };

function problems(file: string, o: KubeObject): string[] {
    const [, version] = o.apiVersion.split("/");
    return schemaProblems(crdSchema(file, o.kind, version), { ...o, metadata: { ...o.metadata, namespace: MODEL.namespace } });
}

describe("scrape and rule objects against their CRDs' schemas", () => {
    it("PodMonitor and PrometheusRule fit the Prometheus Operator's own CRDs", function () {
        this.timeout(300_000); // the first run downloads the operator's module
        assert.deepStrictEqual(problems(operatorCrdFile("podmonitors"), podMonitor(MODEL.name, EXTRA)), []);
        assert.deepStrictEqual(problems(operatorCrdFile("prometheusrules"), prometheusRule(MODEL.name, GROUP, EXTRA)), []);
    });

    it("PodMonitoring and Rules fit GMP's structural schemas", () => {
        assert.deepStrictEqual(problems(GMP_CRD_FILE, podMonitoring(MODEL.name, EXTRA)), []);
        assert.deepStrictEqual(problems(GMP_CRD_FILE, gmpRules(MODEL.name, GROUP, EXTRA)), []);
        assert.deepStrictEqual(problems(GMP_CRD_FILE, gmpRules(MODEL.name, GROUP, EXTRA, requestRateRecording(MODEL))), [], "with the request-rate recording group");
    });

    it("the checks catch what an API server refuses: an unknown field, a wrong type, a missing required field", function () {
        this.timeout(300_000);
        const bad = podMonitor(MODEL.name, EXTRA);
        (bad.spec as Record<string, unknown>).podMetricsEndpoint = [];
        ((bad.spec as { podMetricsEndpoints: Record<string, unknown>[] }).podMetricsEndpoints[0]).interval = 30;
        assert.deepStrictEqual(problems(operatorCrdFile("podmonitors"), bad).sort(), [
            ".spec.podMetricsEndpoint: unknown field",
            ".spec.podMetricsEndpoints[0].interval: must be string, is number",
        ]);
        const slow = prometheusRule(MODEL.name, { ...GROUP, rules: [{ ...GROUP.rules[0], for: "5 minutes" }] }, EXTRA);
        assert.match(problems(operatorCrdFile("prometheusrules"), slow).join("\n"), /\.spec\.groups\[0\]\.rules\[0\]\.for: "5 minutes" does not match/);
        const rules = gmpRules(MODEL.name, { ...GROUP, interval: undefined as never }, EXTRA);
        assert.deepStrictEqual(problems(GMP_CRD_FILE, JSON.parse(JSON.stringify(rules))), [".spec.groups[0].interval: required"]);
    });
});
