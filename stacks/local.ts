/**
 * The local stack: an existing cluster (kind, minikube, the e2e environment, any kubeconfig) and a
 * registry it can pull from. Nothing is provisioned but the model's image and server.
 */
import * as path from "path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GPU_TOLERATION } from "../components/nodePlacement";
import { readClusterRuntime } from "../components/clouds/local/clusterRuntime";
import { localImageVolumeIssues } from "../components/clouds/local/imageVolumes";
import { ConfigFor } from "../config/config";
import { ConfigError } from "../config/configReader";
import { PreparedModel, StackOutputs, deployModels } from "./deploy";
import { PreviousOutputs } from "./previousOutputs";

/**
 * Registers the local stack. A model with `modelDelivery: imageVolume` first has the cluster asked what
 * it runs (its version, its nodes' runtimes), unless `offline` (`tfs plan`): one it cannot mount the
 * artifact on stops the run before anything is registered, naming the key.
 */
export async function deployLocal(config: ConfigFor<"local">, models: PreparedModel[], previous: PreviousOutputs, options: { offline: boolean }): Promise<StackOutputs> {
    const local = config.local;
    // The GPU resource request itself keeps GPU pods on GPU nodes; the taint keeps CPU pods off them.
    const placement = { cpu: {}, gpu: { tolerations: [GPU_TOLERATION] } };
    const issues = options.offline ? [] : await localImageVolumeIssues(models.map((m) => m.settings),
        () => readClusterRuntime({
            ...(local.kubeconfig === undefined ? {} : { kubeconfigFile: local.kubeconfig, kubeconfigLabel: `tf-serving:kubeconfig (${local.kubeconfig})` }),
            context: local.context,
        }),
        // Only the nodes a model's pods may land on: a tainted GPU node has no say for a CPU model.
        (m) => (m.gpu ? placement.gpu.tolerations : []));
    if (issues.length > 0) {
        throw new ConfigError(issues, pulumi.getProject());
    }
    // Without a kubeconfig the provider uses the ambient one (KUBECONFIG or ~/.kube/config). With
    // one, the path goes in as written: an absolute path would differ between machines and checkouts.
    const provider = new k8s.Provider("local", {
        kubeconfig: local.kubeconfigAsWritten,
        context: local.context,
    });
    const { server, repositoryPrefix, username, password } = local.registry;
    return deployModels({
        config,
        models,
        previous,
        provider,
        registry: {
            server,
            username,
            password,
            // The nodes pull from the user's registry with the login the build pushes with.
            pullWithLogin: true,
            imageName: (model) => `${server}/${repositoryPrefix}/${model}`,
        },
        placement,
        // A canary's own API calls run in the provider's process, wherever that starts: the file as an absolute path.
        cluster: {
            kubeconfig: local.kubeconfigAsWritten === undefined ? undefined : path.resolve(config.projectDir, local.kubeconfigAsWritten),
            context: local.context,
        },
    });
}
