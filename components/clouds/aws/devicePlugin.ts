/**
 * NVIDIA's Kubernetes device plugin, which EKS does not install: without it GPU nodes advertise no
 * `nvidia.com/gpu` and GPU pods stay Pending. Runs only on the GPU nodes (node selector), tolerates
 * their taint, and is system-node-critical so it is never evicted before the pods that need it.
 * GKE runs its own device plugin: never deploy this there. A NetworkPolicy denies the plugin's pods
 * all traffic. The cluster's Kubernetes provider comes in the resource options (`{ provider }`), as
 * for every component here.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GPU_TOLERATION } from "../../nodePlacement";

/**
 * Pinned release of NVIDIA's device plugin image, by digest as well as tag: the policy pack refuses
 * any container not pinned by digest, and a tag on a registry we do not control can be moved. The
 * digest is the published one for v0.17.1 (the image index, so it resolves on amd64 nodes).
 */
export const NVIDIA_DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.17.1@sha256:af31e2b7c7f89834c4e5219860def7ac2e49a207b3d4e8610d5a26772b7738e5";

import { DIGEST_PINNED_IMAGE } from "../../../contract/registry";
import { argsError } from "../../refusal";
import type { ArgsIssue } from "../../argsIssues";
import { labelKeyProblem, labelValueProblem } from "../../../contract/labels";

export { DIGEST_PINNED_IMAGE };

const DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins";
const PLUGIN_LABELS = { "app.kubernetes.io/name": "nvidia-device-plugin" };

export interface NvidiaDevicePluginArgs {
    /**
     * Labels of the GPU nodes; the DaemonSet runs there only (and tolerates the `nvidia.com/gpu` taint).
     * On clusters made here: `poolLabels("gpu")`.
     */
    nodeSelector: Record<string, string>;
    /**
     * Device plugin image, pinned by digest (`NAME[:TAG]@sha256:<64 hex>`, e.g. a mirror); anything else
     * throws at construction. Default `NVIDIA_DEVICE_PLUGIN_IMAGE` (v0.17.1).
     */
    image?: string;
}

/**
 * The DaemonSet spec (pure), as NVIDIA's static manifest has it plus the node selector, hardened: the
 * plugin talks only to the kubelet's socket (never to the API server, so no service account token)
 * and runs under the runtime's default seccomp profile.
 */
export function devicePluginSpec(image: string, nodeSelector: Record<string, string>): k8s.types.input.apps.v1.DaemonSetSpec {
    const labels = PLUGIN_LABELS;
    return {
        selector: { matchLabels: labels },
        updateStrategy: { type: "RollingUpdate" },
        template: {
            metadata: { labels },
            spec: {
                nodeSelector,
                tolerations: [{ ...GPU_TOLERATION }],
                priorityClassName: "system-node-critical",
                automountServiceAccountToken: false,
                securityContext: { seccompProfile: { type: "RuntimeDefault" } },
                containers: [{
                    name: "nvidia-device-plugin-ctr",
                    image,
                    // Keep running (and retry) on a node whose driver is still coming up, instead of crash-looping.
                    env: [{ name: "FAIL_ON_INIT_ERROR", value: "false" }],
                    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
                    resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
                    volumeMounts: [{ name: "device-plugin", mountPath: DEVICE_PLUGIN_DIR }],
                }],
                volumes: [{ name: "device-plugin", hostPath: { path: DEVICE_PLUGIN_DIR } }],
            },
        },
    };
}

/**
 * No ingress and no egress for the plugin's pods: it speaks gRPC to the kubelet over Unix sockets in
 * the host folder it mounts, never over the network (the VPC CNI add-on enforces network policies).
 */
export function devicePluginNetworkPolicySpec(): k8s.types.input.networking.v1.NetworkPolicySpec {
    return { podSelector: { matchLabels: PLUGIN_LABELS }, policyTypes: ["Ingress", "Egress"] };
}

/** What is wrong with the plugin's arguments, each under its field (pure). */
export function devicePluginIssues(args: NvidiaDevicePluginArgs): ArgsIssue[] {
    const image = args.image ?? NVIDIA_DEVICE_PLUGIN_IMAGE;
    const issues: ArgsIssue[] = [];
    if (typeof image !== "string" || !DIGEST_PINNED_IMAGE.test(image)) {
        // Config validation (eks.devicePluginImage) refuses this first; a direct user of the component gets it here.
        issues.push({ field: "image", value: image, message: `"${image}" is not pinned by digest: use NAME@sha256:<digest>` });
    }
    const selector = args.nodeSelector;
    if (selector === null || typeof selector !== "object" || Object.keys(selector).length === 0) {
        issues.push({ field: "nodeSelector", value: selector, message: "must hold the GPU nodes' labels (on clusters made here `poolLabels(\"gpu\")`): with none, the plugin would run on every node" });
    } else {
        for (const [key, value] of Object.entries(selector)) {
            const problem = labelKeyProblem(key) ?? (typeof value === "string" ? labelValueProblem(value) : "must be a label value (a string)");
            if (problem !== undefined) {
                issues.push({ field: `nodeSelector["${key}"]`, value, message: problem });
            }
        }
    }
    return issues;
}

export class NvidiaDevicePlugin extends pulumi.ComponentResource {
    readonly daemonSet: k8s.apps.v1.DaemonSet;

    constructor(name: string, args: NvidiaDevicePluginArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = devicePluginIssues(args);
        if (issues.length > 0) {
            throw argsError("NvidiaDevicePlugin", name, issues);
        }
        const image = args.image ?? NVIDIA_DEVICE_PLUGIN_IMAGE;
        super("tf-serving:index:NvidiaDevicePlugin", name, {}, opts);
        this.daemonSet = new k8s.apps.v1.DaemonSet(name, {
            metadata: { name: "nvidia-device-plugin-daemonset", namespace: "kube-system" },
            spec: devicePluginSpec(image, args.nodeSelector),
        }, { parent: this });
        new k8s.networking.v1.NetworkPolicy(name, {
            metadata: { name: "nvidia-device-plugin", namespace: "kube-system" },
            spec: devicePluginNetworkPolicySpec(),
        }, { parent: this });
        this.registerOutputs({ daemonSet: this.daemonSet.metadata.name });
    }
}
