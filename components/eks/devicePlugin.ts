/**
 * NVIDIA's Kubernetes device plugin, which EKS does not install: without it GPU nodes advertise no
 * `nvidia.com/gpu` and GPU pods stay Pending. Runs only on the GPU nodes (node selector), tolerates
 * their taint, and is system-node-critical so it is never evicted before the pods that need it.
 * GKE runs its own device plugin: never deploy this there.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GPU_TOLERATION } from "../nodePlacement";

/** Pinned release of NVIDIA's device plugin image. */
export const NVIDIA_DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.17.1";

const DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins";

export interface NvidiaDevicePluginArgs {
    /** Provider of the cluster to install into. */
    provider: k8s.Provider;
    /** Labels of the GPU nodes; the DaemonSet runs there only. */
    nodeSelector: Record<string, string>;
    /** Device plugin image; default the pinned `NVIDIA_DEVICE_PLUGIN_IMAGE`. */
    image?: string;
}

/** The DaemonSet spec (pure), as NVIDIA's static manifest has it plus the node selector. */
export function devicePluginSpec(image: string, nodeSelector: Record<string, string>): k8s.types.input.apps.v1.DaemonSetSpec {
    const labels = { "app.kubernetes.io/name": "nvidia-device-plugin" };
    return {
        selector: { matchLabels: labels },
        updateStrategy: { type: "RollingUpdate" },
        template: {
            metadata: { labels },
            spec: {
                nodeSelector,
                tolerations: [{ ...GPU_TOLERATION }],
                priorityClassName: "system-node-critical",
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

export class NvidiaDevicePlugin extends pulumi.ComponentResource {
    readonly daemonSet: k8s.apps.v1.DaemonSet;

    constructor(name: string, args: NvidiaDevicePluginArgs, opts?: pulumi.ComponentResourceOptions) {
        super("tf-serving:index:NvidiaDevicePlugin", name, {}, opts);
        this.daemonSet = new k8s.apps.v1.DaemonSet(name, {
            metadata: { name: "nvidia-device-plugin-daemonset", namespace: "kube-system" },
            spec: devicePluginSpec(args.image ?? NVIDIA_DEVICE_PLUGIN_IMAGE, args.nodeSelector),
        }, { parent: this, provider: args.provider });
        this.registerOutputs({ daemonSet: this.daemonSet.metadata.name });
    }
}
