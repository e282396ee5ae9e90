/**
 * `ModelMonitoring` for every Pulumi language: the library's `ModelMonitoring`
 * (components/modelMonitoring.ts) with the collector as a named enum and each alert threshold
 * optional (the rest keep `DEFAULT_THRESHOLDS`).
 */
import * as pulumi from "@pulumi/pulumi";
import * as library from "../lib/modelServer";
import { Collector } from "./enums";
import { oneOf } from "./values";

/** Alert thresholds; each one left out keeps the library's default (docs/reference/alerts.md). */
export interface AlertThresholds {
    /** Percent of predict, classify and regress calls that fail over 5 minutes. */
    errorRatioPercent?: number;
    /** p99 of successful predict, classify and regress calls over 5 minutes, in milliseconds. */
    p99LatencyMs?: number;
    /** Working set as a percent of the memory limit. */
    memoryLimitPercent?: number;
    /** Minutes a pod may stay not Ready. */
    notReadyMinutes?: number;
    /** Container restarts within 15 minutes that fire the restart alert. */
    restarts?: number;
}

export interface ModelMonitoringArgs {
    /** The model's name (its `ModelServer`'s). */
    modelName: string;
    /** The namespace the model's pods run in. */
    namespace: string;
    /** Who scrapes and evaluates; `none` registers nothing. */
    collector: Collector;
    /** Alert thresholds. Default: the library's. */
    thresholds?: AlertThresholds;
    /** Extra labels on the scrape and rule objects (a Prometheus' selectors). */
    labels?: Record<string, string>;
    /** Record the inference request rate per pod (GKE, for a request-rate autoscaler). Default false. */
    recordRequestRate?: boolean;
}

/** The library's arguments for these. */
export function toModelMonitoringArgs(name: string, args: ModelMonitoringArgs): library.ModelMonitoringArgs {
    const given = Object.fromEntries(Object.entries(args.thresholds ?? {}).filter(([, v]) => v !== undefined));
    return {
        model: args.modelName,
        namespace: args.namespace,
        collector: oneOf(args.collector, library.COLLECTORS, `ModelMonitoring "${name}" collector`),
        thresholds: { ...library.DEFAULT_THRESHOLDS, ...given },
        labels: args.labels,
        recordRequestRate: args.recordRequestRate,
    };
}

/** How one model server is observed: scrape object, alert rules and a Grafana dashboard for the cluster's collector. */
export class ModelMonitoring extends pulumi.ComponentResource {
    /** The kinds of the objects registered (`PodMonitoring`, `Rules`, `PodMonitor`, `PrometheusRule`, `ConfigMap`). */
    readonly kinds: pulumi.Output<string[]>;

    constructor(name: string, args: ModelMonitoringArgs, opts?: pulumi.ComponentResourceOptions) {
        // Mapped before anything is registered: a refused argument registers nothing.
        const libraryArgs = toModelMonitoringArgs(name, args);
        super("tf-serving:index:ModelMonitoring", name, {}, opts);
        const monitoring = new library.ModelMonitoring(name, libraryArgs, { parent: this });
        this.kinds = pulumi.output(monitoring.kinds);
        this.registerOutputs({ kinds: this.kinds });
    }
}
