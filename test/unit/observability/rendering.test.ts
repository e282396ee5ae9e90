import * as assert from "assert";
import * as k8s from "@pulumi/kubernetes";
import { parse } from "yaml";
import { ModelMonitoring, ModelMonitoringArgs } from "../../../components/modelMonitoring";
import { ModelServer } from "../../../components/modelServer";
import { ALERT_NAMES, DEFAULT_THRESHOLDS, alertRules } from "../../../observability/alerts";
import { COLLECTORS, Collector, collectorObjects } from "../../../components/clouds/collectors";
import { podMonitoring } from "../../../components/clouds/gcp/collector";
import { podMonitor, ruleFileName } from "../../../observability/collectors";
import { cloudMonitoringDashboard, dashboardPanels, grafanaDashboard, grafanaDashboardConfigMap } from "../../../observability/dashboard";
import { TF_SERVING_METRICS, podPattern, tfServingPrometheusName } from "../../../observability/metrics";
import { startMockRuntime } from "../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const MODEL = { name: "half-plus-two", namespace: "serving" };
const NO_LABELS = { labels: {} };

describe("TF Serving's metric names on its Prometheus endpoint", () => {
    it("spells internal names as the exporter does: every character outside [a-zA-Z0-9_] becomes ':', a leading digit gets '_'", () => {
        // The cases of tensorflow_serving/util/prometheus_exporter_test.cc.
        assert.strictEqual(tfServingPrometheusName("/test/path/total"), ":test:path:total");
        assert.strictEqual(tfServingPrometheusName("0/path-total_count"), "_0:path:total_count");
        assert.deepStrictEqual(TF_SERVING_METRICS, {
            requestCount: ":tensorflow:serving:request_count",
            requestLatency: ":tensorflow:serving:request_latency",
            loadAttemptCount: ":tensorflow:cc:saved_model:load_attempt_count",
            loadLatency: ":tensorflow:cc:saved_model:load_latency",
        });
    });

    it("a model's pod pattern matches its Deployment's pods only, not those of a model whose name extends it", () => {
        const re = new RegExp(`^${podPattern(MODEL)}$`);
        assert.ok(re.test("half-plus-two-7c9d5f6b8-x2k4q"));
        assert.ok(!re.test("half-plus-two-canary-7c9d5f6b8-x2k4q"));
        assert.ok(!re.test("half-plus-two"));
    });
});

describe("alert rules", () => {
    it("one rule per alert, each naming the model and namespace, saying what it means and pointing to tfs doctor", () => {
        const group = alertRules(MODEL);
        assert.deepStrictEqual(group.rules.map((r) => r.alert), [...ALERT_NAMES]);
        for (const r of group.rules) {
            assert.strictEqual(r.labels.model, MODEL.name, r.alert);
            assert.strictEqual(r.labels.namespace, MODEL.namespace, r.alert);
            assert.match(r.labels.severity, /^(critical|warning)$/, r.alert);
            assert.match(r.annotations.summary, /half-plus-two/, r.alert);
            assert.match(r.annotations.description, /tfs doctor --namespace serving --model half-plus-two/, r.alert);
            assert.match(r.expr, /namespace="serving"/, r.alert);
        }
    });

    it("reads the thresholds from config: error ratio, p99, memory share, not-ready minutes, restarts", () => {
        const t = { errorRatioPercent: 2, p99LatencyMs: 250, memoryLimitPercent: 80, notReadyMinutes: 9, restarts: 5 };
        const byName = Object.fromEntries(alertRules(MODEL, t).rules.map((r) => [r.alert, r]));
        assert.match(byName.TFServingErrorRatioHigh.expr, /\* 100 > 2$/);
        assert.match(byName.TFServingLatencyP99High.expr, /\/ 1000 > 250$/);
        assert.match(byName.TFServingMemoryNearLimit.expr, /\* 100 > 80$/);
        assert.strictEqual(byName.TFServingPodsNotReady.for, "9m");
        assert.strictEqual(byName.TFServingModelUnavailable.for, "9m");
        assert.match(byName.TFServingContainerRestarting.expr, />= 5\)/);
        assert.notDeepStrictEqual(alertRules(MODEL, t), alertRules(MODEL, DEFAULT_THRESHOLDS));
    });

    it("uses TF Serving's real names and labels: request_count by model_name and status, the latency histogram's buckets", () => {
        const exprs = alertRules(MODEL).rules.map((r) => r.expr).join("\n");
        assert.match(exprs, /:tensorflow:serving:request_count\{namespace="serving", model_name="half-plus-two", status!~"OK\|INVALID_ARGUMENT"\}/);
        // The API values TF Serving gives inference calls (gRPC's method names, REST's URL verbs): not
        // the status GETs of probes and health checks (API="").
        assert.match(exprs, /:tensorflow:serving:request_latency_bucket\{namespace="serving", model_name="half-plus-two", API=~"Predict\|Classify\|Regress\|predict\|classify\|regress"\}/);
        assert.match(exprs, /:tensorflow:serving:request_latency_count\{namespace="serving", model_name="half-plus-two", API=~"Predict\|Classify\|Regress\|predict\|classify\|regress"\}/);
        for (const query of dashboardPanels(MODEL).flatMap((p) => p.queries.map((q) => q.expr)).filter((q) => q.includes("request_latency"))) {
            assert.match(query, /API=~"Predict\|Classify\|Regress\|predict\|classify\|regress"/, query);
        }
        assert.match(exprs, /:tensorflow:cc:saved_model:load_attempt_count\{[^}]*status="fail"\}/);
    });
});

describe("scrape and rule objects", () => {
    it("select exactly the model's pods (the labels ModelServer writes) and scrape the metrics path on the REST port", async () => {
        const rec = await startMockRuntime();
        new ModelServer(MODEL.name, {
            model: { name: MODEL.name, versionBytes: [2 ** 20] }, namespace: MODEL.namespace, image: "r.test/m@sha256:01", publicEndpoint: true,
        }, { provider: new k8s.Provider("test", {}) });
        await rec.settle();
        const template = (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template;
        const [container] = template.spec.containers;
        for (const o of [podMonitoring(MODEL.name, NO_LABELS), podMonitor(MODEL.name, NO_LABELS)]) {
            const selector = (o.spec as any).selector.matchLabels;
            for (const [k, v] of Object.entries(selector)) {
                assert.strictEqual(template.metadata.labels[k], v, `${o.kind} selects ${k}=${v}`);
            }
            const [endpoint] = (o.spec as any).endpoints ?? (o.spec as any).podMetricsEndpoints;
            const port = container.ports.find((p: any) => p.name === endpoint.port);
            assert.strictEqual(port?.containerPort, Number(template.metadata.annotations["prometheus.io/port"]), `${o.kind} scrapes the REST port`);
            assert.strictEqual(endpoint.path, template.metadata.annotations["prometheus.io/path"]);
            assert.strictEqual(endpoint.path, "/monitoring/prometheus/metrics");
        }
        assert.strictEqual(container.name, "tf-serving", "the container the cAdvisor rules select");
    });

    it("each collector gets its own kinds: GMP PodMonitoring + Rules, the operator's PodMonitor + PrometheusRule, a rule file, nothing", () => {
        const group = alertRules(MODEL);
        const kinds = (c: Collector) => collectorObjects(c, MODEL.name, group, NO_LABELS).map((o) => `${o.apiVersion}/${o.kind}`);
        assert.deepStrictEqual(kinds("gke"), ["monitoring.googleapis.com/v1/PodMonitoring", "monitoring.googleapis.com/v1/Rules"]);
        assert.deepStrictEqual(kinds("prometheus-operator"), ["monitoring.coreos.com/v1/PodMonitor", "monitoring.coreos.com/v1/PrometheusRule"]);
        assert.deepStrictEqual(kinds("annotations"), ["v1/ConfigMap"]);
        assert.deepStrictEqual(kinds("none"), []);
        const [cm] = collectorObjects("annotations", MODEL.name, group, NO_LABELS);
        assert.deepStrictEqual(parse(cm.data![ruleFileName(MODEL.name)]), { groups: [group] });
        const [, rules] = collectorObjects("gke", MODEL.name, group, { labels: { team: "ml" } });
        assert.strictEqual((rules.spec as any).groups[0].interval, "30s", "GMP's Rules requires the interval");
        assert.strictEqual(rules.metadata.labels?.team, "ml");
    });
});

describe("dashboards", () => {
    it("Grafana: a panel per query set, each query with the model's matchers; a ConfigMap the sidecar loads", () => {
        const dashboard = grafanaDashboard(MODEL) as any;
        assert.strictEqual(dashboard.panels.length, dashboardPanels(MODEL).length);
        const titles = dashboard.panels.map((p: any) => p.title).join("|");
        for (const wanted of [/Inference calls per second/, /Error ratio/, /p50 and p99/, /Loaded versions/, /Memory working set against the limit/, /restarts/]) {
            assert.match(titles, wanted);
        }
        for (const target of dashboard.panels.flatMap((p: any) => p.targets)) {
            assert.match(target.expr, /namespace="serving"/);
        }
        const cm = grafanaDashboardConfigMap(MODEL);
        assert.strictEqual(cm.metadata.labels?.grafana_dashboard, "1");
        assert.deepStrictEqual(JSON.parse(cm.data!["half-plus-two.json"]), dashboard);
    });

    it("Cloud Monitoring: PromQL widgets narrowed to the cluster", () => {
        const d = cloudMonitoringDashboard(MODEL, "c1") as any;
        const queries = d.mosaicLayout.tiles.flatMap((t: any) => t.widget.xyChart.dataSets.map((s: any) => s.timeSeriesQuery.prometheusQuery));
        assert.strictEqual(queries.length, dashboardPanels(MODEL).flatMap((p) => p.queries).length);
        for (const q of queries) {
            assert.ok(!/namespace="serving"/.test(q.replace(/cluster="c1", namespace="serving"/g, "")), `every selector names the cluster: ${q}`);
        }
    });
});

describe("ModelMonitoring", () => {
    async function monitor(args: Partial<ModelMonitoringArgs>) {
        const rec = await startMockRuntime();
        const m = new ModelMonitoring(MODEL.name, { model: MODEL.name, namespace: MODEL.namespace, collector: "gke", ...args }, { provider: new k8s.Provider("test", {}) });
        await rec.settle();
        return { rec, m };
    }

    for (const collector of COLLECTORS) {
        it(`collector ${collector}: registers its objects as children, in the model's namespace`, async () => {
            const { rec, m } = await monitor({ collector, namespaceRef: "serving" });
            const children = rec.resources.filter((r) => r.parent === `tf-serving:index:ModelMonitoring::${MODEL.name}`);
            assert.strictEqual(children.length, m.kinds.length);
            // The scrape object (none for annotations), the rules, and the dashboard.
            assert.strictEqual(m.kinds.length, { "gke": 3, "prometheus-operator": 3, "annotations": 2, "none": 0 }[collector]);
            for (const c of children) {
                assert.strictEqual((c.inputs as any).metadata.namespace, "serving");
            }
            assert.strictEqual(new Set(children.map((c) => c.name)).size, children.length, "distinct resource names");
        });
    }
});
