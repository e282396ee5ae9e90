import * as assert from "assert";
import {
    ADAPTER_PROJECT_ROLE, ADAPTER_RESOURCE_RULES, CUSTOM_METRICS_ADAPTER, adapterApiServices, adapterDeploymentSpec, adapterPrincipal, adapterServiceSpec, gkeRequestRateMetric,
} from "../../../../../components/clouds/gcp/customMetricsAdapter";
import { hpaSpec } from "../../../../../serving/autoscaling";

/* The Custom Metrics Stackdriver Adapter's objects and names, stated from its source
 * (GoogleCloudPlatform/k8s-stackdriver at 673c7dd, custom-metrics-stackdriver-adapter):
 * - pkg/adapter/translator/query_builder.go: a metric name starting with `prometheus.googleapis.com`
 *   is read from the `prometheus_target` resource; a per-pod metric's selector may use `metric.labels.*`
 *   (and `reducer`) only; a DISTRIBUTION is refused unless distribution support is on; a GAUGE is aligned
 *   ALIGN_NEXT_OLDER (its value as written), a CUMULATIVE ALIGN_RATE.
 * - pkg/adapter/translator/utils/filter_builder.go, PrometheusSchema: pods are matched on
 *   `metric.labels.pod`, the namespace on `resource.labels.namespace`.
 * - pkg/adapter/translator/response_translator.go: several series of one pod are summed.
 * - deploy/production/adapter_new_resource_model.yaml: the namespace, service account, flags, probe,
 *   resources and APIServices rendered here.
 * And the Kubernetes API's own rules for what the HPA carries (apimachinery validation): a custom
 * metric's name is a path segment (no `/` or `%`), a selector's key a qualified name. */

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

describe("Custom Metrics Stackdriver Adapter (GKE's request-rate HPA)", () => {
    it("the HPA reads the recorded gauge by its Cloud Monitoring type, `/` written `|`, selected on the model", () => {
        const metric = gkeRequestRateMetric("half-plus-two");
        assert.strictEqual(metric.name, "prometheus.googleapis.com|tfserving_inference_requests_per_second|gauge");
        assert.deepStrictEqual(metric.selector, { matchLabels: { "metric.labels.model_name": "half-plus-two" } });
        assert.ok(!/[/%]/.test(metric.name), "a metric name in the custom metrics API is one path segment");
        for (const key of Object.keys(metric.selector?.matchLabels ?? {})) {
            assert.ok(key.startsWith("metric.labels."), "the only prefix the adapter takes for a per-pod metric");
            assert.ok(key.length <= 63 && QUALIFIED_NAME.test(key), `${key} is a label selector key`);
        }
    });

    it("renders the request-rate metric into the HPA with its selector; a CPU-only HPA is untouched", () => {
        const settings = { minReplicas: 1, maxReplicas: 4, targetRequestsPerSecond: 20 };
        const spec = hpaSpec("m", settings, gkeRequestRateMetric("m"));
        assert.deepStrictEqual(spec.metrics, [{
            type: "Pods",
            pods: {
                metric: { name: "prometheus.googleapis.com|tfserving_inference_requests_per_second|gauge", selector: { matchLabels: { "metric.labels.model_name": "m" } } },
                target: { type: "AverageValue", averageValue: "20" },
            },
        }]);
        const cpu = { minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 70 };
        assert.deepStrictEqual(hpaSpec("m", cpu, gkeRequestRateMetric("m")), hpaSpec("m", cpu));
    });

    it("its identity is the Workload Identity Federation principal of its own service account, granted Monitoring Viewer", () => {
        assert.strictEqual(adapterPrincipal("123456789012", "my-project"),
            "principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/my-project.svc.id.goog/subject/ns/custom-metrics/sa/custom-metrics-stackdriver-adapter");
        assert.strictEqual(ADAPTER_PROJECT_ROLE, "roles/monitoring.viewer");
    });

    it("serves only the custom metrics API, both versions, from its Service", () => {
        const apis = adapterApiServices();
        assert.deepStrictEqual(apis.map((a) => a.name), ["v1beta1.custom.metrics.k8s.io", "v1beta2.custom.metrics.k8s.io"]);
        for (const { name, spec } of apis) {
            assert.strictEqual(name, `${spec.version}.${spec.group}`, "an APIService is named VERSION.GROUP");
            assert.deepStrictEqual(spec.service, { name: CUSTOM_METRICS_ADAPTER.name, namespace: "custom-metrics" });
        }
        assert.deepStrictEqual(adapterServiceSpec().ports, [{ port: 443, protocol: "TCP", targetPort: 443 }]);
    });

    it("runs the configured image with the new resource model, under its own service account, and may read pods and nodes only", () => {
        // Plain values, typed as Pulumi inputs.
        const image = `${CUSTOM_METRICS_ADAPTER.release}@sha256:${"0".repeat(64)}`;
        const spec = adapterDeploymentSpec(image) as unknown as { selector: unknown; template: { metadata: unknown; spec: unknown } };
        const pod = spec.template.spec as { serviceAccountName: string; containers: { image: string; command: string[] }[] };
        assert.strictEqual(pod.serviceAccountName, CUSTOM_METRICS_ADAPTER.serviceAccount);
        assert.strictEqual(pod.containers[0].image, image, "the configured image, pinned by digest");
        assert.match(CUSTOM_METRICS_ADAPTER.release, /^gcr\.io\/gke-release\/custom-metrics-stackdriver-adapter:v[0-9.]+-gke\.[0-9]+$/);
        assert.ok(pod.containers[0].command.includes("--use-new-resource-model=true"));
        const selector = (spec.selector as { matchLabels: Record<string, string> }).matchLabels;
        const labels = (spec.template.metadata as { labels: Record<string, string> }).labels;
        for (const [k, v] of Object.entries(selector)) {
            assert.strictEqual(labels[k], v, "the Deployment's selector selects its own pods (and the Service's)");
        }
        assert.deepStrictEqual(adapterServiceSpec().selector, selector);
        assert.deepStrictEqual(ADAPTER_RESOURCE_RULES.flatMap((r) => r.verbs as string[]), ["get", "list", "watch"]);
    });
});
