/**
 * What an existing cluster says about image volumes, read at preview when a model asks for one
 * (`modelDelivery: imageVolume` on cloud local): the API server's version (`GET /version`) and each
 * amd64 Linux node's kubelet, container runtime and taints (`GET /api/v1/nodes`, `status.nodeInfo`, `spec.taints`), through
 * `@kubernetes/client-node`, loaded only then (it is large). The kubeconfig is the stack's
 * (`kubeconfig`, `kubeContext`), else the ambient one, as the Kubernetes provider reads it. The rule
 * that judges the answer is `serving/imageVolumeSupport.ts`; `imageVolumes.ts` turns it into issues.
 */
import type * as K8s from "@kubernetes/client-node";
import { KubeconfigSource, apiConfiguration, loadKubeConfig } from "../../../contract/kubeAccess";
import type { ClusterRuntime } from "../../../serving/imageVolumeSupport";

/** The cluster could not be read: which read, and why. `imageVolumes.ts` turns it into the refusal's reason. */
export class ClusterReadError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "ClusterReadError";
    }
}

/** The nodes a model server's pods may land on: its Deployment's own node selector (`components/modelServer.ts`). */
const SERVER_NODES = "kubernetes.io/arch=amd64,kubernetes.io/os=linux";

/** Why a read failed, in a few words: the API's status line and message, or the client's error. */
function reason(err: unknown): string {
    const e = err as { code?: unknown; body?: unknown; message?: unknown };
    if (typeof e.code === "number") {
        let message: unknown;
        try {
            message = typeof e.body === "string" ? (JSON.parse(e.body) as { message?: unknown }).message : undefined;
        } catch {
            message = undefined;
        }
        return `HTTP ${e.code}${typeof message === "string" ? `: ${message}` : ""}`;
    }
    return String(e.message ?? err).split("\n")[0];
}

/** The cluster's version and its nodes' kubelets and runtimes; a `ClusterReadError` (or the kubeconfig's `TargetError`) says which read failed and why. */
export async function readClusterRuntime(target: KubeconfigSource, timeoutMs = 15_000): Promise<ClusterRuntime> {
    const k8s: typeof K8s = await import("@kubernetes/client-node");
    const kc = loadKubeConfig(k8s, target);
    const cluster = kc.getCurrentCluster();
    if (cluster === null) {
        throw new ClusterReadError(`kubeconfig context "${kc.getCurrentContext()}" names no cluster`);
    }
    const config = apiConfiguration(k8s, kc, cluster.server, timeoutMs);
    const at = `${cluster.server} (context ${kc.getCurrentContext()})`;
    const read = <T>(what: string, request: () => Promise<T>) => request().catch((err: unknown) => {
        throw new ClusterReadError(`${what} at ${at}: ${reason(err)}`);
    });
    const [version, nodes] = await Promise.all([
        read("reading the version", () => new k8s.VersionApi(config).getCode()),
        read("listing the nodes", () => new k8s.CoreV1Api(config).listNode({ labelSelector: SERVER_NODES })),
    ]);
    if (typeof version?.gitVersion !== "string" || !Array.isArray(nodes?.items)) {
        throw new ClusterReadError(`${at} answered, but not as a Kubernetes API server: check the kubeconfig's server address`);
    }
    return {
        serverVersion: version.gitVersion,
        nodes: nodes.items.map((n) => ({
            name: n.metadata?.name ?? "",
            kubeletVersion: n.status?.nodeInfo?.kubeletVersion ?? "",
            containerRuntimeVersion: n.status?.nodeInfo?.containerRuntimeVersion ?? "",
            ...(n.spec?.taints?.length ? { taints: n.spec.taints.map((t) => ({ key: t.key, effect: t.effect, ...(t.value === undefined ? {} : { value: t.value }) })) } : {}),
        })),
    };
}
