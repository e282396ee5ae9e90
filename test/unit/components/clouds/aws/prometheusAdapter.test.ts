import * as assert from "assert";
import { PROMETHEUS_ADAPTER, eksRequestRateMetric, prometheusAdapterChartValues, prometheusEndpoint } from "../../../../../components/clouds/aws/prometheusAdapter";
import { poolLabels } from "../../../../../components/nodePlacement";
import { prometheusAdapterRule } from "../../../../../observability/requestRate";
import { hpaSpec } from "../../../../../serving/autoscaling";

/* prometheus-adapter's chart (prometheus-community/helm-charts charts/prometheus-adapter, 5.3.0): the
 * Deployment passes `--prometheus-url={{url}}:{{port}}{{path}}`; `rules.default: false` with `rules.custom`
 * renders only these rules into its config; no `rules.resource` and no `rules.external` leave metrics.k8s.io
 * (metrics-server's) and external.metrics.k8s.io unregistered. The adapter adds an HPA's metric selector to
 * the rule's `<<.LabelMatchers>>`. */

describe("prometheus-adapter (EKS's request-rate HPA)", () => {
    it("reads eks.prometheusUrl as the chart takes it: url, port (the scheme's by default), path", () => {
        assert.deepStrictEqual(prometheusEndpoint("http://prometheus-server.monitoring.svc:80"), { url: "http://prometheus-server.monitoring.svc", port: 80, path: "" });
        assert.deepStrictEqual(prometheusEndpoint("https://prom.monitoring.svc/prometheus/"), { url: "https://prom.monitoring.svc", port: 443, path: "/prometheus" });
        assert.match(String(prometheusEndpoint("prom:9090")), /in-cluster URL/);
        assert.match(String(prometheusEndpoint("http://prom:99999")), /not a TCP port/);
    });

    it("refuses a loopback prometheusUrl: inside prometheus-adapter's pod it is the adapter itself", () => {
        for (const url of ["http://localhost:9090", "http://127.0.0.1:9090/", "http://LOCALHOST", "http://0.0.0.0:9090", "http://prom.localhost:9090"]) {
            assert.match(String(prometheusEndpoint(url)), /is the adapter itself.*prometheus-server\.monitoring\.svc.*docs\/guides\/autoscaling\.md/, url);
        }
        assert.strictEqual(typeof prometheusEndpoint("http://127-0-0-1.monitoring.svc:9090"), "object", "a Service name with digits is not loopback");
    });

    it("serves only the request-rate rule, on the CPU nodes, at the pinned release", () => {
        const values = prometheusAdapterChartValues({ url: "http://p.monitoring.svc", port: 9090, path: "" }) as {
            image: { tag: string }; prometheus: unknown; rules: Record<string, unknown>; nodeSelector: unknown;
        };
        assert.deepStrictEqual(values.rules, { default: false, custom: [prometheusAdapterRule()] });
        assert.deepStrictEqual(values.prometheus, { url: "http://p.monitoring.svc", port: 9090, path: "" });
        assert.strictEqual(values.image.tag, PROMETHEUS_ADAPTER.imageTag);
        assert.deepStrictEqual(values.nodeSelector, poolLabels("cpu"));
    });

    it("the HPA reads the adapter's metric, selected on the model's series", () => {
        const spec = hpaSpec("m", { minReplicas: 1, maxReplicas: 3, targetRequestsPerSecond: 5 }, eksRequestRateMetric("m"));
        assert.deepStrictEqual(spec.metrics[0], {
            type: "Pods",
            pods: { metric: { name: "tfserving_inference_requests_per_second", selector: { matchLabels: { model_name: "m" } } }, target: { type: "AverageValue", averageValue: "5" } },
        });
    });
});
