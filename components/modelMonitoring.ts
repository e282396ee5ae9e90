/**
 * ModelMonitoring: how one model server is observed, beside its `ModelServer` (which knows nothing
 * of Prometheus but the pods' `prometheus.io/*` annotations). It registers, for the collector the
 * cluster runs, the scrape object and the alert rules (components/clouds/collectors.ts), and the
 * model's Grafana dashboard as a ConfigMap (`observability/dashboard.ts`). Like `ModelServer`, it
 * takes the cluster as a Kubernetes provider in its resource options.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { alertRules } from "../observability/alerts";
import { argsError } from "./refusal";
import { resolveModelMonitoringArgs } from "./modelMonitoringArgs";
import type { ModelMonitoringArgs } from "./modelMonitoringArgs";
import { KubeObject } from "../observability/collectors";
import { collectorObjects } from "./clouds/collectors";
import { grafanaDashboardConfigMap } from "../observability/dashboard";
import { requestRateRecording } from "../observability/requestRate";

export type { ModelMonitoringArgs } from "./modelMonitoringArgs";


export class ModelMonitoring extends pulumi.ComponentResource {
    /** The objects registered, by kind: `PodMonitoring`, `Rules`, `PodMonitor`, `PrometheusRule`, `ConfigMap`. */
    readonly kinds: string[];

    constructor(name: string, given: ModelMonitoringArgs, opts?: pulumi.ComponentResourceOptions) {
        const { args, issues } = resolveModelMonitoringArgs(given);
        if (issues.length > 0) {
            throw argsError("ModelMonitoring", name, issues);
        }
        super("tf-serving:index:ModelMonitoring", name, {}, opts);
        const target = { name: args.model, namespace: args.namespace };
        const group = alertRules(target, args.thresholds);
        const objects = args.collector === "none" ? []
            : [...collectorObjects(args.collector, args.model, group, { labels: args.labels }, args.recordRequestRate ? requestRateRecording(target) : undefined), grafanaDashboardConfigMap(target)];
        const namespace = args.namespaceRef ?? args.namespace;
        // `m-podmonitoring`, `m-rules`, ... for the objects named after the model; `m-dashboard`, `m-prometheus-rules` for the ConfigMaps.
        const childName = (o: KubeObject) => `${name}-${o.metadata.name === args.model ? o.kind.toLowerCase() : o.metadata.name.slice(args.model.length + 1)}`;
        objects.forEach((o) => register(childName(o), o, namespace, { parent: this }));
        this.kinds = objects.map((o) => o.kind);
        this.registerOutputs({ kinds: this.kinds });
    }
}

function register(name: string, o: KubeObject, namespace: pulumi.Input<string>, opts: pulumi.CustomResourceOptions): pulumi.CustomResource {
    const metadata = { ...o.metadata, namespace };
    if (o.kind === "ConfigMap") {
        return new k8s.core.v1.ConfigMap(name, { metadata, data: o.data }, opts);
    }
    return new k8s.apiextensions.CustomResource(name, { apiVersion: o.apiVersion, kind: o.kind, metadata, spec: o.spec }, opts);
}
