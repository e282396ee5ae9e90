/**
 * prometheus-adapter on EKS: the custom metrics API (`custom.metrics.k8s.io`) over a Prometheus that
 * scrapes the model pods, serving the per-pod request rate a request-rate HPA reads, with the same rule
 * the loopback environment runs (`observability/requestRate.ts`, `prometheusAdapterRule`). EKS runs no
 * Prometheus, and this stack installs none: `eks.prometheusUrl` names the one the cluster has (the
 * `annotations` or `prometheus-operator` collector's), which must label the series with `namespace`
 * and `pod`.
 *
 * Chosen over KEDA because the HPA stays the stack's own object, the same on every cloud (KEDA replaces
 * it with a ScaledObject whose HPA reads an external metric, and adds an operator, CRDs, webhooks and
 * the cluster's one external metrics API), and the rule is the one the end-to-end suite runs for real.
 *
 * The chart (prometheus-community/helm-charts `charts/prometheus-adapter`, 5.3.0, appVersion v0.12.0)
 * registers `custom.metrics.k8s.io` only: no resource rules (metrics-server serves `metrics.k8s.io`)
 * and no external rules.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { prometheusAdapterRule } from "../../../observability/requestRate";
import { INFERENCE_REQUEST_RATE_METRIC, PodMetricRef } from "../../../serving/autoscaling";
import { poolLabels } from "../../nodePlacement";
import { pinnedChartArgs } from "./chartRelease";
import type { ArgsIssue } from "../../argsIssues";
import { argsError } from "../../refusal";

export const PROMETHEUS_ADAPTER = {
    chart: "prometheus-adapter",
    repository: "https://prometheus-community.github.io/helm-charts",
    chartVersion: "5.3.0",
    imageTag: "v0.12.0",
    namespace: "kube-system",
} as const;

/** `eks.prometheusUrl` as the chart takes it: `url` (scheme and host), `port`, `path`. */
export interface PrometheusEndpoint {
    url: string;
    port: number;
    path: string;
}

const PROMETHEUS_URL = /^(https?):\/\/([A-Za-z0-9.-]+)(?::([0-9]{1,5}))?(\/[^\s?#]*)?$/;

/** The endpoint of a Prometheus URL (`http://prometheus-server.monitoring.svc:80`), or a reason it is not one. */
export function prometheusEndpoint(url: string): PrometheusEndpoint | string {
    const m = PROMETHEUS_URL.exec(url);
    if (!m) {
        return "must be the in-cluster URL of the Prometheus that scrapes the model pods, such as \"http://prometheus-server.monitoring.svc:80\" (scheme, host, optional port and path)";
    }
    const port = m[3] !== undefined ? Number(m[3]) : m[1] === "https" ? 443 : 80;
    if (port < 1 || port > 65535) {
        return `has port ${port}, which is not a TCP port (1-65535)`;
    }
    if (isLoopbackHost(m[2])) {
        return `names ${m[2]}, which inside prometheus-adapter's pod is the adapter itself, not Prometheus: ` +
            "use the Prometheus Service's in-cluster name, e.g. \"http://prometheus-server.monitoring.svc:80\" (`kubectl get svc -A | grep prometheus`; see docs/guides/autoscaling.md#request-rate-on-eks)";
    }
    return { url: `${m[1]}://${m[2]}`, port, path: (m[4] ?? "").replace(/\/$/, "") };
}

/** `localhost`, a name under it, or an address of 127.0.0.0/8 or 0.0.0.0: the pod's own loopback (the URL's host takes no IPv6 brackets). */
function isLoopbackHost(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, "");
    return name === "localhost" || name.endsWith(".localhost") || /^127(\.[0-9]{1,3}){3}$/.test(name) || name === "0.0.0.0" || /^0+$/.test(name);
}

/** The request-rate HPA's metric on EKS: prometheus-adapter's name, selected on the model (the selector joins the rule's label matchers). */
export function eksRequestRateMetric(model: string): PodMetricRef {
    return { name: INFERENCE_REQUEST_RATE_METRIC, selector: { matchLabels: { model_name: model } } };
}

/** The chart's values: only the request-rate rule, on the CPU nodes, relisting series every minute so a new model's pods are seen soon. */
export function prometheusAdapterChartValues(prometheus: PrometheusEndpoint): Record<string, unknown> {
    return {
        image: { tag: PROMETHEUS_ADAPTER.imageTag },
        prometheus: { url: prometheus.url, port: prometheus.port, path: prometheus.path },
        rules: { default: false, custom: [prometheusAdapterRule()] },
        metricsRelistInterval: "1m",
        nodeSelector: poolLabels("cpu"),
    };
}

export interface PrometheusAdapterArgs {
    prometheus: PrometheusEndpoint;
    /** What its pod needs first (the node groups). */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/** What is wrong with the adapter's arguments, each under its field (pure): the endpoint as `prometheusEndpoint` would give it. */
export function prometheusAdapterIssues(args: PrometheusAdapterArgs): ArgsIssue[] {
    const p = args.prometheus as Partial<PrometheusEndpoint> | undefined;
    if (p === undefined || p === null || typeof p.url !== "string") {
        return [{ field: "prometheus", value: p, message: "required: the endpoint `prometheusEndpoint(\"http://prometheus-server.monitoring.svc:80\")` gives" }];
    }
    const again = prometheusEndpoint(`${p.url}${p.port === undefined ? "" : `:${p.port}`}${p.path ?? ""}`);
    if (typeof again === "string") {
        return [{ field: "prometheus", value: p, message: again }];
    }
    const issues: ArgsIssue[] = [];
    if (!Number.isInteger(p.port) || (p.port ?? 0) < 1 || (p.port ?? 0) > 65535) {
        issues.push({ field: "prometheus.port", value: p.port, message: "must be a TCP port (1-65535)" });
    }
    if (typeof p.path !== "string" || (p.path !== "" && !p.path.startsWith("/"))) {
        issues.push({ field: "prometheus.path", value: p.path, message: "must be empty or a path starting with '/'" });
    }
    if (!Array.isArray(args.dependsOn)) {
        issues.push({ field: "dependsOn", value: undefined, message: "must be a list of resources (the node groups), empty for none" });
    }
    return issues;
}

export class PrometheusAdapter extends pulumi.ComponentResource {
    readonly release: k8s.helm.v3.Release;

    constructor(name: string, args: PrometheusAdapterArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = prometheusAdapterIssues(args);
        if (issues.length > 0) {
            throw argsError("PrometheusAdapter", name, issues);
        }
        super("tf-serving:index:PrometheusAdapter", name, {}, opts);
        this.release = new k8s.helm.v3.Release(name, {
            ...pinnedChartArgs(PROMETHEUS_ADAPTER),
            namespace: PROMETHEUS_ADAPTER.namespace,
            values: prometheusAdapterChartValues(args.prometheus),
        }, { parent: this, dependsOn: args.dependsOn });
        this.registerOutputs({});
    }
}
