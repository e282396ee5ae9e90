/**
 * The Custom Metrics Stackdriver Adapter: GKE's documented way for an HPA to read a Managed Service
 * for Prometheus metric (GoogleCloudPlatform/prometheus-engine `examples/hpa`, and the adapter's own
 * `deploy/production/adapter_new_resource_model.yaml`, whose objects this renders). It serves the
 * custom metrics API (`custom.metrics.k8s.io`) from Cloud Monitoring, so the request-rate HPA of a
 * model on GKE reads the rate GMP's rule evaluator records (`observability/requestRate.ts`).
 *
 * Its IAM is Workload Identity Federation for GKE, with no Google service account and no key: the
 * project grants `roles/monitoring.viewer` to the principal of the adapter's Kubernetes service
 * account itself (`principal://.../subject/ns/custom-metrics/sa/custom-metrics-stackdriver-adapter`),
 * which the cluster's workload pool (`PROJECT.svc.id.goog`, set by `GkeCluster`) and the nodes'
 * `GKE_METADATA` mode make the pod's identity.
 *
 * Only the custom metrics API is registered, not the external one the upstream manifest also claims:
 * the HPA reads a per-pod metric, and `external.metrics.k8s.io` has room for one server per cluster
 * (a KEDA someone installs would need it).
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { INFERENCE_REQUEST_RATE_METRIC, PodMetricRef } from "../../../serving/autoscaling";
import { poolLabels } from "../../nodePlacement";
import { DIGEST_PINNED_IMAGE } from "../../../contract/registry";
import type { ArgsIssue } from "../../argsIssues";
import { argsError } from "../../refusal";
import { projectIdIssue } from "./names";

/**
 * The adapter: the release of the upstream production manifest (k8s-stackdriver at 673c7dd, 2026-08).
 * The stack runs it pinned by digest (`gke.customMetricsAdapterImage`), as the policy pack requires of
 * every container; its digest is the user's to give, since this program could not look it up.
 */
export const CUSTOM_METRICS_ADAPTER = {
    release: "gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.9-gke.0",
    namespace: "custom-metrics",
    serviceAccount: "custom-metrics-stackdriver-adapter",
    name: "custom-metrics-stackdriver-adapter",
} as const;

/** The project role the adapter reads Cloud Monitoring time series with (`timeSeries.list`, metric descriptors). */
export const ADAPTER_PROJECT_ROLE = "roles/monitoring.viewer";

/**
 * How the adapter names a Managed Prometheus metric: its Cloud Monitoring type,
 * `prometheus.googleapis.com/<name>/<kind>`, with `|` for `/` (a metric name in the custom metrics API
 * cannot hold a `/`). The recorded request rate is a gauge (GMP's rule evaluator writes gauges).
 */
export function gmpMetricName(name: string, kind: "gauge" | "counter"): string {
    return ["prometheus.googleapis.com", name, kind].join("|");
}

/**
 * The request-rate HPA's metric on GKE: the recorded rate, narrowed to the model's series
 * (`metric.labels.*` is the only selector the adapter takes for a per-pod metric; it matches pods on the
 * series' `pod` label and the HPA's namespace on the target's).
 */
export function gkeRequestRateMetric(model: string): PodMetricRef {
    return { name: gmpMetricName(INFERENCE_REQUEST_RATE_METRIC, "gauge"), selector: { matchLabels: { "metric.labels.model_name": model } } };
}

/**
 * The Workload Identity Federation principal of the adapter's service account. `projectNumber` is the
 * project's number (the pool's owner), `project` its id (the pool's name).
 */
export function adapterPrincipal(projectNumber: string, project: string): string {
    const { namespace, serviceAccount } = CUSTOM_METRICS_ADAPTER;
    return `principal://iam.googleapis.com/projects/${projectNumber}/locations/global/workloadIdentityPools/${project}.svc.id.goog/subject/ns/${namespace}/sa/${serviceAccount}`;
}

const SELECTOR_LABELS = { run: CUSTOM_METRICS_ADAPTER.name, "k8s-app": CUSTOM_METRICS_ADAPTER.name };

/**
 * The adapter's Deployment: the upstream production settings (new resource model, its requests and limits,
 * its probe), on the CPU pool. Upstream tolerates GKE's GPU and TPU taints so it runs on any cluster; here
 * that would let the scheduler place it on a GPU node, and the cluster autoscaler add a GPU node for it when
 * the CPU pool is full: that node then stays, billed, until the pod can be moved, and the GPU pool does not
 * return to zero while it runs there.
 */
export function adapterDeploymentSpec(image: string): k8s.types.input.apps.v1.DeploymentSpec {
    return {
        replicas: 1,
        selector: { matchLabels: SELECTOR_LABELS },
        template: {
            metadata: { labels: { ...SELECTOR_LABELS, "kubernetes.io/cluster-service": "true" } },
            spec: {
                serviceAccountName: CUSTOM_METRICS_ADAPTER.serviceAccount,
                nodeSelector: poolLabels("cpu"),
                containers: [{
                    name: "pod-custom-metrics-stackdriver-adapter",
                    image,
                    command: ["/adapter", "--use-new-resource-model=true", "--fallback-for-container-metrics=true"],
                    resources: { limits: { cpu: "250m", memory: "200Mi" }, requests: { cpu: "250m", memory: "200Mi" } },
                    readinessProbe: {
                        httpGet: { path: "/healthz", port: 443, scheme: "HTTPS" },
                        initialDelaySeconds: 40, periodSeconds: 10, timeoutSeconds: 5,
                    },
                }],
            },
        },
    };
}

/** The adapter's Service, the APIServices' backend. */
export function adapterServiceSpec(): k8s.types.input.core.v1.ServiceSpec {
    return { type: "ClusterIP", selector: SELECTOR_LABELS, ports: [{ port: 443, protocol: "TCP", targetPort: 443 }] };
}

/**
 * The custom metrics API's two versions the adapter serves (v1beta2 preferred). The adapter serves a
 * self-signed certificate, as upstream deploys it: the aggregator skips verification.
 */
export function adapterApiServices(): { name: string; spec: k8s.types.input.apiregistration.v1.APIServiceSpec }[] {
    return [{ version: "v1beta1", versionPriority: 100 }, { version: "v1beta2", versionPriority: 200 }].map(({ version, versionPriority }) => ({
        name: `${version}.custom.metrics.k8s.io`,
        spec: {
            group: "custom.metrics.k8s.io",
            version,
            groupPriorityMinimum: 100,
            versionPriority,
            insecureSkipTLSVerify: true,
            service: { name: CUSTOM_METRICS_ADAPTER.name, namespace: CUSTOM_METRICS_ADAPTER.namespace },
        },
    }));
}

/** What the adapter may read of the cluster: pods and nodes (to map series to pods), as upstream grants. */
export const ADAPTER_RESOURCE_RULES: k8s.types.input.rbac.v1.PolicyRule[] = [
    { apiGroups: [""], resources: ["pods", "nodes", "nodes/stats"], verbs: ["get", "list", "watch"] },
];

export interface CustomMetricsStackdriverAdapterArgs {
    /** The cluster's project: where the adapter reads Cloud Monitoring and whose workload pool names its identity. */
    project: string;
    /** The adapter's image, pinned by digest (`NAME@sha256:...`). */
    image: string;
    /**
     * The Workload Identity cluster: the project's identity pool (`PROJECT.svc.id.goog`), which the IAM binding
     * names, exists only once a cluster with Workload Identity does, so the binding waits for it.
     */
    cluster: pulumi.Resource;
    /** What the adapter's pods need first (the node pools). */
    dependsOn?: pulumi.Input<pulumi.Resource>[];
}

/** `field`'s issue when `image` is not pinned by digest (the adapter's own rule; `GkeCluster` checks its `customMetricsAdapter.image` with it). */
export function adapterImageIssue(field: string, image: unknown): ArgsIssue | undefined {
    return typeof image === "string" && DIGEST_PINNED_IMAGE.test(image) ? undefined : {
        field, value: image,
        message: `must be pinned by digest, e.g. "${CUSTOM_METRICS_ADAPTER.release}@sha256:<64 hex digits>" ` +
            "(`docker buildx imagetools inspect IMAGE` prints it): a tag can be moved, and the policy pack refuses unpinned images",
    };
}

/** What is wrong with the adapter's arguments, each under its field (pure). */
export function customMetricsAdapterIssues(args: CustomMetricsStackdriverAdapterArgs): ArgsIssue[] {
    const issues = [projectIdIssue("project", args.project), adapterImageIssue("image", args.image)];
    if (!pulumi.Resource.isInstance(args.cluster)) {
        issues.push({ field: "cluster", value: undefined, message: "must be the cluster resource (a GkeCluster's `cluster`): the identity binding waits for its Workload Identity pool" });
    }
    return issues.filter((i): i is ArgsIssue => i !== undefined);
}

export class CustomMetricsStackdriverAdapter extends pulumi.ComponentResource {
    /** The adapter's Deployment (awaited until it is available: the HPA's metric is served from then on). */
    readonly deployment: k8s.apps.v1.Deployment;

    constructor(name: string, args: CustomMetricsStackdriverAdapterArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = customMetricsAdapterIssues(args);
        if (issues.length > 0) {
            throw argsError("CustomMetricsStackdriverAdapter", name, issues);
        }
        super("tf-serving:index:CustomMetricsStackdriverAdapter", name, {}, opts);
        const { namespace, serviceAccount } = CUSTOM_METRICS_ADAPTER;
        const project = gcp.organizations.getProjectOutput({ projectId: args.project }, { parent: this });
        const viewer = new gcp.projects.IAMMember(`${name}-monitoring-viewer`, {
            project: args.project,
            role: ADAPTER_PROJECT_ROLE,
            member: project.number.apply((projectNumber) => adapterPrincipal(projectNumber, args.project)),
        }, { parent: this, dependsOn: [args.cluster] });

        const ns = new k8s.core.v1.Namespace(name, { metadata: { name: namespace } }, { parent: this });
        const meta = { namespace: ns.metadata.name };
        const sa = new k8s.core.v1.ServiceAccount(name, { metadata: { ...meta, name: serviceAccount } }, { parent: this });
        const subject = [{ kind: "ServiceAccount", name: serviceAccount, namespace }];
        const bindings = [
            new k8s.rbac.v1.ClusterRoleBinding(`${name}-auth-delegator`, {
                metadata: { name: "custom-metrics:system:auth-delegator" },
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:auth-delegator" },
                subjects: subject,
            }, { parent: this, dependsOn: [sa] }),
            new k8s.rbac.v1.RoleBinding(`${name}-auth-reader`, {
                metadata: { name: "custom-metrics-auth-reader", namespace: "kube-system" },
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "extension-apiserver-authentication-reader" },
                subjects: subject,
            }, { parent: this, dependsOn: [sa] }),
        ];
        const reader = new k8s.rbac.v1.ClusterRole(`${name}-resource-reader`, {
            metadata: { name: "custom-metrics-resource-reader" }, rules: ADAPTER_RESOURCE_RULES,
        }, { parent: this });
        bindings.push(new k8s.rbac.v1.ClusterRoleBinding(`${name}-resource-reader`, {
            metadata: { name: "custom-metrics-resource-reader" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: reader.metadata.name },
            subjects: subject,
        }, { parent: this, dependsOn: [sa] }));

        // Its first calls to Cloud Monitoring need the role; it reads its credentials per call, but an empty start is noise in its logs.
        this.deployment = new k8s.apps.v1.Deployment(name, {
            metadata: { ...meta, name: CUSTOM_METRICS_ADAPTER.name, labels: SELECTOR_LABELS },
            spec: adapterDeploymentSpec(args.image),
        }, { parent: this, dependsOn: [viewer, ...bindings, ...(args.dependsOn ?? [])] });
        const service = new k8s.core.v1.Service(name, {
            metadata: { ...meta, name: CUSTOM_METRICS_ADAPTER.name, labels: SELECTOR_LABELS },
            spec: adapterServiceSpec(),
        }, { parent: this });
        for (const api of adapterApiServices()) {
            new k8s.apiregistration.v1.APIService(`${name}-${api.name.split(".")[0]}`, {
                metadata: { name: api.name }, spec: api.spec,
            }, { parent: this, dependsOn: [service, this.deployment] });
        }
        this.registerOutputs({});
    }
}
