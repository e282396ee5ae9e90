/**
 * Turning autoscaling off hands the replica count back to the config, and the HPA has to be gone
 * before the Deployment takes the count: an HPA still there moves it again, and nothing moves it back.
 *
 * Why it would still be there: the engine deletes what the program no longer registers once the
 * program has exited, after every create and update of the run (pulumi/pulumi,
 * `pkg/resource/deploy/deployment_executor.go`: `GenerateDeletes`). Meanwhile the HPA controller
 * rescales a target below `minReplicas` or above `maxReplicas` at its next sync, whatever the HPA's
 * `behavior` (kubernetes/kubernetes, `pkg/controller/podautoscaler/horizontal.go`,
 * `reconcileAutoscaler`: "Current number of replicas below Spec.MinReplicas"), and within its bounds
 * from the metrics. So a hook before the Deployment's update deletes the HPA and waits until it is
 * gone; the engine's own delete at the end finds nothing, which pulumi-kubernetes takes as deleted
 * (`provider/pkg/await/await.go`, `Deletion`: a 404 is no error).
 *
 * An update hook on the Deployment, not a delete hook on the HPA: delete hooks make `pulumi destroy`
 * refuse to run without `--run-program` (pulumi/pulumi#19933).
 */
import type * as K8s from "@kubernetes/client-node";
import * as pulumi from "@pulumi/pulumi";
import { apiConfiguration, loadGivenKubeConfig } from "../contract/kubeAccess";
import { turnsAutoscalingOff } from "../serving/autoscaling";

/** How the hook reaches the cluster: a kubeconfig (contents or file) and context; neither, the ambient kubeconfig. */
export interface ClusterAccess {
    kubeconfig?: pulumi.Input<string>;
    context?: string;
}

/** The page that explains turning autoscaling off. */
const AUTOSCALING_DOC = "docs/guides/autoscaling.md#turning-it-on-and-off";

/** The calls the hand-back makes; `kubernetesApi` talks to a cluster, a test passes its own. */
export interface HandbackApi {
    /** The live Deployment's uid, undefined when there is none. */
    deploymentUid(namespace: string, name: string): Promise<string | undefined>;
    /** Whether the HPA exists and scales the Deployment `target`. */
    scales(namespace: string, hpa: string, target: string): Promise<boolean>;
    /** Deletes the HPA; one already gone is no error. */
    deleteHpa(namespace: string, hpa: string): Promise<void>;
}

export interface HandbackTarget {
    namespace: string;
    /** The Deployment's name, also the name of the HPA the component made for it. */
    name: string;
    /** The Deployment's uid in the stack's state: the cluster the API reaches must hold this Deployment. */
    uid: string;
}

export type HandbackResult =
    | { kind: "deleted" }
    | { kind: "none" }
    | { kind: "other-cluster"; liveUid: string | undefined };

/** What kept the hand-back from its work; the hook turns it into a warning, never a failed update. */
export class HandbackFailed extends Error {}

/** How often and how long the hand-back looks for the HPA to be gone. */
export const GONE_POLL_MS = 250;
export const GONE_WITHIN_MS = 30_000;

/**
 * Deletes the Deployment's HPA and waits until it is gone, on the cluster that holds the very
 * Deployment the stack updates (its uid): the ambient kubeconfig may name another cluster, where a
 * Deployment of the same name is not this one.
 */
export async function handBack(api: HandbackApi, target: HandbackTarget, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<HandbackResult> {
    const liveUid = await api.deploymentUid(target.namespace, target.name);
    if (liveUid !== target.uid) {
        return { kind: "other-cluster", liveUid };
    }
    if (!await api.scales(target.namespace, target.name, target.name)) {
        return { kind: "none" };
    }
    await api.deleteHpa(target.namespace, target.name);
    for (let waited = 0; await api.scales(target.namespace, target.name, target.name); waited += GONE_POLL_MS) {
        if (waited >= GONE_WITHIN_MS) {
            throw new HandbackFailed(`HorizontalPodAutoscaler ${target.namespace}/${target.name} was still there ${GONE_WITHIN_MS / 1000} s after its deletion`);
        }
        await sleep(GONE_POLL_MS);
    }
    return { kind: "deleted" };
}

/** The hook's target from the Deployment's outputs in the state; undefined when they lack one. */
export function handbackTarget(oldOutputs: Record<string, unknown> | undefined): HandbackTarget | undefined {
    const metadata = (oldOutputs?.metadata ?? {}) as { namespace?: unknown; name?: unknown; uid?: unknown };
    const { namespace, name, uid } = metadata;
    return typeof namespace === "string" && typeof name === "string" && typeof uid === "string" && uid !== "" ? { namespace, name, uid } : undefined;
}

/** What the hook says when it could not delete the HPA first, and what to do about it. */
export function handbackWarning(model: string, cause: string): string {
    return `model "${model}": autoscaling is turned off, but the HorizontalPodAutoscaler could not be deleted before the Deployment takes the count back (${cause}); ` +
        `the engine deletes it at the end of this update, and if it moved the count in between, \`pulumi up --refresh\` takes the count back (${AUTOSCALING_DOC})`;
}

function isNotFound(err: unknown): boolean {
    return (err as { code?: number }).code === 404;
}

/** The hand-back's calls on a cluster, through the Kubernetes client the canary also uses. */
export async function kubernetesApi(access: { kubeconfig?: string; context?: string }): Promise<HandbackApi> {
    const k8s: typeof K8s = await import("@kubernetes/client-node");
    const kc = loadGivenKubeConfig(k8s, access.kubeconfig, access.context);
    const cluster = kc.getCurrentCluster();
    if (!cluster) {
        throw new HandbackFailed(`kubeconfig context "${kc.getCurrentContext()}" names no cluster`);
    }
    const config = apiConfiguration(k8s, kc, cluster.server, 15_000);
    const apps = new k8s.AppsV1Api(config);
    const autoscaling = new k8s.AutoscalingV2Api(config);
    return {
        async deploymentUid(namespace, name) {
            try {
                return (await apps.readNamespacedDeployment({ namespace, name })).metadata?.uid;
            } catch (err) {
                if (isNotFound(err)) {
                    return undefined;
                }
                throw err;
            }
        },
        async scales(namespace, hpa, target) {
            try {
                const ref = (await autoscaling.readNamespacedHorizontalPodAutoscaler({ namespace, name: hpa })).spec?.scaleTargetRef;
                return ref?.kind === "Deployment" && ref.name === target;
            } catch (err) {
                if (isNotFound(err)) {
                    return false;
                }
                throw err;
            }
        },
        async deleteHpa(namespace, hpa) {
            try {
                await autoscaling.deleteNamespacedHorizontalPodAutoscaler({ namespace, name: hpa });
            } catch (err) {
                if (!isNotFound(err)) {
                    throw err;
                }
            }
        },
    };
}

/**
 * Whether this process can register resource hooks: a program the engine runs can; Pulumi's mocks
 * (unit tests) implement no hook registration, and a hook there would fail the resource.
 */
export function hooksSupported(monitor: unknown = pulumi.runtime.getMonitor()): boolean {
    return typeof (monitor as { registerResourceHook?: unknown } | undefined)?.registerResourceHook === "function";
}

/**
 * The Deployment's hook before an update: when the update turns autoscaling off, the HPA is deleted
 * first. Undefined where hooks cannot be registered. It never fails the update: what it could not
 * do is a warning with the way out.
 */
export function replicaHandbackHook(model: string, access: ClusterAccess | undefined): pulumi.ResourceHookFunction | undefined {
    if (!hooksSupported()) {
        return undefined;
    }
    // Resolved while the program runs; the hook awaits it only during an update, when it is known.
    const plain = new Promise<{ kubeconfig?: string; context?: string }>((resolve) => {
        pulumi.output(access?.kubeconfig).apply((kubeconfig) => resolve({ kubeconfig: kubeconfig ?? undefined, context: access?.context }));
    });
    return async (hook) => {
        if (!turnsAutoscalingOff(hook.oldInputs, hook.newInputs)) {
            return;
        }
        const target = handbackTarget(hook.oldOutputs);
        if (target === undefined) {
            pulumi.log.warn(handbackWarning(model, "the state holds no uid of the Deployment"));
            return;
        }
        let result: HandbackResult;
        try {
            result = await handBack(await kubernetesApi(await plain), target);
        } catch (err) {
            pulumi.log.warn(handbackWarning(model, err instanceof Error ? err.message : String(err)));
            return;
        }
        if (result.kind === "other-cluster") {
            pulumi.log.warn(handbackWarning(model, `the kubeconfig reaches a cluster where ${target.namespace}/${target.name} ` +
                `${result.liveUid === undefined ? "does not exist" : `is another Deployment (uid ${result.liveUid}, not ${target.uid})`}; ` +
                "give the component the cluster's kubeconfig (`cluster.kubeconfig`)"));
        } else if (result.kind === "deleted") {
            pulumi.log.info(`model "${model}": deleted the HorizontalPodAutoscaler before the Deployment takes the replica count back`);
        }
    };
}
