/**
 * The named enums of the multi-language facade. Pulumi's schema analyzer takes a union only as a
 * string or number enum it can name; the library's literal unions (`RolloutStrategy`, `Collector`,
 * ...) keep their TypeScript form, and these spell the same values for YAML, Python and the others.
 * `facade/values.ts` checks a value against the library's own list before it reaches a component.
 */

/** How a model server's pods are replaced (`ModelServer`'s `rollout`). */
export enum Rollout {
    /** One extra pod at a time, never below the desired count (the default). */
    Surge = "surge",
    /** One pod down, then up: for a cluster with no room for an extra pod. */
    OneAtATime = "oneAtATime",
}

/** How the model reaches its server (`ModelImage`'s and `ModelServer`'s `modelDelivery`). */
export enum ModelDelivery {
    /** Baked into a TF Serving image of its own (the default). */
    Embedded = "embedded",
    /** A model-only artifact, mounted by an image volume beside the pinned TF Serving base (Kubernetes 1.35+, containerd 2.1+). */
    ImageVolume = "imageVolume",
}

/** The Kubernetes Service type of a model server. */
export enum ServiceType {
    LoadBalancer = "LoadBalancer",
    NodePort = "NodePort",
    ClusterIP = "ClusterIP",
}

/** Which node pool a model server's pods go to, as `GkeCluster` and `EksCluster` label them. */
export enum Pool {
    Cpu = "cpu",
    Gpu = "gpu",
}

/** Where a `ModelGateway` runs: the Gateway's platform-specific settings follow it. */
export enum GatewayPlatform {
    Generic = "generic",
    Gke = "gke",
    Eks = "eks",
}

/** Who scrapes a model server and evaluates its alert rules (`ModelMonitoring`'s `collector`). */
export enum Collector {
    /** GKE Managed Prometheus: `PodMonitoring` and `Rules`. */
    Gke = "gke",
    /** The Prometheus Operator: `PodMonitor` and `PrometheusRule`. */
    PrometheusOperator = "prometheus-operator",
    /** A Prometheus that scrapes the pods' `prometheus.io/*` annotations. */
    Annotations = "annotations",
    /** Nothing registered. */
    None = "none",
}

/** A GKE release channel. */
export enum ReleaseChannel {
    Rapid = "RAPID",
    Regular = "REGULAR",
    Stable = "STABLE",
    Extended = "EXTENDED",
}

/** A GKE node's boot disk type. */
export enum BootDiskType {
    PdBalanced = "pd-balanced",
    PdStandard = "pd-standard",
    PdSsd = "pd-ssd",
    HyperdiskBalanced = "hyperdisk-balanced",
}

/** The NVIDIA driver GKE installs on a GPU pool (changing it replaces the pool). */
export enum GpuDriverVersion {
    Default = "DEFAULT",
    Latest = "LATEST",
}

/** An EKS node group's capacity. */
export enum CapacityType {
    OnDemand = "ON_DEMAND",
    Spot = "SPOT",
}

/** Whether `EksCluster` creates its VPC or uses existing subnets. */
export enum NetworkKind {
    Create = "create",
    Existing = "existing",
}

/** NAT gateways of a created EKS VPC. */
export enum NatGateways {
    /** One NAT gateway for the VPC. */
    Single = "single",
    /** One NAT gateway per zone. */
    PerZone = "perZone",
}

/** How a created EKS VPC's subnets are carved. */
export enum SubnetScheme {
    Slots = "slots",
    ByCount = "byCount",
}

/** The controller that serves a generic `ModelGateway`'s class, when its own objects enforce source ranges and callers. */
export enum GatewayController {
    /** Traefik v3 with its Kubernetes CRD provider (its Middlewares). */
    Traefik = "traefik",
}
