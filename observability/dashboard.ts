/**
 * One model's dashboard: its panels as PromQL (the same queries the alerts read), rendered for
 * Grafana (a ConfigMap kube-prometheus-stack's dashboard sidecar loads) and for Cloud Monitoring
 * (a `gcp.monitoring.Dashboard` whose widgets run PromQL against Managed Service for Prometheus).
 */
import { modelServerLabels } from "../contract/labels";
import { KubeObject } from "./collectors";
import {
    KUBELET_METRICS as K, KUBE_STATE_METRICS as KSM, MonitoredModel, TF_SERVING_METRICS as TFS,
    callRates, containerMatchers, inferenceMatchers, podMatchers, requestMatchers,
} from "./metrics";

export interface PanelQuery {
    expr: string;
    /** Series legend, Grafana's `{{label}}` form. */
    legend: string;
}

export interface Panel {
    title: string;
    /** Grafana unit id (`reqps`, `percent`, `µs`, `bytes`, `short`). */
    unit: string;
    queries: PanelQuery[];
}

/** The panels: inference call rate, error ratio, latency p50/p99, loaded versions, pods serving, memory against the limit, restarts. */
export function dashboardPanels(model: MonitoredModel): Panel[] {
    const inference = inferenceMatchers(model);
    const pods = podMatchers(model);
    const containers = containerMatchers(model);
    const calls = callRates(model, "");
    const latency = (q: number) => `histogram_quantile(${q}, sum by (le) (rate(${TFS.requestLatency}_bucket{${inference}}[5m])))`;
    return [
        {
            // The successes from the latency histogram (request_count's OK holds the probes' status GETs too).
            title: "Inference calls per second: successful by API, failed by status", unit: "reqps", queries: [
                { expr: `sum by (API) (rate(${TFS.requestLatency}_count{${inference}}[5m]))`, legend: "{{API}} OK" },
                { expr: `sum by (status) (rate(${TFS.requestCount}{${requestMatchers(model)}, status!="OK"}[5m]))`, legend: "{{status}}" },
            ],
        },
        { title: "Error ratio of inference calls (%)", unit: "percent", queries: [{ expr: `${calls.errors} / ${calls.calls} * 100`, legend: "errors" }] },
        { title: "Latency p50 and p99 (successful inference calls)", unit: "µs", queries: [{ expr: latency(0.5), legend: "p50" }, { expr: latency(0.99), legend: "p99" }] },
        { title: "Loaded versions (successful SavedModel loads), by pod", unit: "short", queries: [{ expr: `count by (pod) (${TFS.loadAttemptCount}{${pods}, status="success"})`, legend: "{{pod}}" }] },
        { title: "Pods serving (metrics endpoint up)", unit: "short", queries: [{ expr: `sum(${K.up}{${pods}})`, legend: "serving" }] },
        {
            title: "Memory working set against the limit", unit: "bytes", queries: [
                { expr: `max by (pod) (${K.memoryWorkingSet}{${containers}})`, legend: "{{pod}} working set" },
                { expr: `max by (pod) (${K.memoryLimit}{${containers}} > 0)`, legend: "{{pod}} limit" },
            ],
        },
        {
            title: "Container restarts (15 minutes)", unit: "short", queries: [
                { expr: `count by (pod) (count_over_time(${K.startTime}{${containers}}[15m])) - 1`, legend: "{{pod}} (cAdvisor)" },
                { expr: `sum by (pod) (increase(${KSM.restarts}{${containers}}[15m]))`, legend: "{{pod}} (kube-state-metrics)" },
            ],
        },
    ];
}

/** Every query of the panels, in order (what the end-to-end run asks the real Prometheus). */
export function dashboardQueries(model: MonitoredModel): string[] {
    return dashboardPanels(model).flatMap((p) => p.queries.map((q) => q.expr));
}

/** The dashboard's stable id in Grafana (at most 40 characters). */
export function dashboardUid(model: MonitoredModel): string {
    return `tfs-${model.namespace}-${model.name}`.slice(0, 40);
}

/** Grafana dashboard JSON (schema 39), with a Prometheus datasource variable. */
export function grafanaDashboard(model: MonitoredModel): Record<string, unknown> {
    const panels = dashboardPanels(model).map((p, i) => ({
        id: i + 1,
        type: "timeseries",
        title: p.title,
        datasource: { type: "prometheus", uid: "${datasource}" },
        gridPos: { x: (i % 2) * 12, y: Math.floor(i / 2) * 8, w: 12, h: 8 },
        fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
        targets: p.queries.map((q, j) => ({ refId: String.fromCharCode(65 + j), expr: q.expr, legendFormat: q.legend })),
    }));
    return {
        uid: dashboardUid(model),
        title: `TF Serving: ${model.namespace}/${model.name}`,
        tags: ["tf-serving"],
        schemaVersion: 39,
        time: { from: "now-3h", to: "now" },
        refresh: "30s",
        templating: { list: [{ name: "datasource", type: "datasource", query: "prometheus", label: "Prometheus" }] },
        panels,
    };
}

/** The label kube-prometheus-stack's Grafana dashboard sidecar looks for (its default `sidecar.dashboards.label`). */
export const GRAFANA_DASHBOARD_LABEL = "grafana_dashboard";

/** The Grafana dashboard as a ConfigMap the sidecar loads. */
export function grafanaDashboardConfigMap(model: MonitoredModel): KubeObject {
    return {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `${model.name}-dashboard`, labels: { ...modelServerLabels(model.name), [GRAFANA_DASHBOARD_LABEL]: "1" } },
        data: { [`${model.name}.json`]: JSON.stringify(grafanaDashboard(model), null, 2) },
    };
}

/** Cloud Monitoring dashboard JSON (`dashboardJson` of `gcp.monitoring.Dashboard`): one PromQL chart per panel. */
export function cloudMonitoringDashboard(model: MonitoredModel, cluster?: string): Record<string, unknown> {
    // Managed Service for Prometheus stores every cluster's series in the project: narrow to ours.
    const scoped = (expr: string) => (cluster ? expr.replace(/namespace="/g, `cluster="${cluster}", namespace="`) : expr);
    const tiles = dashboardPanels(model).map((p, i) => ({
        xPos: (i % 2) * 24,
        yPos: Math.floor(i / 2) * 16,
        width: 24,
        height: 16,
        widget: {
            title: p.title,
            xyChart: {
                dataSets: p.queries.map((q) => ({ timeSeriesQuery: { prometheusQuery: scoped(q.expr) }, plotType: "LINE" })),
            },
        },
    }));
    return { displayName: `TF Serving: ${model.namespace}/${model.name}`, mosaicLayout: { columns: 48, tiles } };
}
