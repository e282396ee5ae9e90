/**
 * tf-serving: a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes.
 *
 * Reads and validates the whole configuration, preflights and sizes every model, and only then
 * registers the stack for the configured cloud. A user mistake stops here, at preview, with a
 * message naming the key or path, before anything is created.
 */
import * as pulumi from "@pulumi/pulumi";
import { ConfigError } from "./stacks/configReader";
import { ServingConfig, readConfig } from "./stacks/config";
import { credentialProblems } from "./stacks/credentials";
import { deployAws } from "./stacks/aws";
import { PreparedModel, StackOutputs } from "./stacks/deploy";
import { deployGcp } from "./stacks/gcp";
import { deployLocal } from "./stacks/local";
import { PreparationError, prepareModels } from "./stacks/prepare";

type Deployer = (config: ServingConfig, models: PreparedModel[], options: { offline: boolean }) => StackOutputs | Promise<StackOutputs>;

const deployers: Record<ServingConfig["cloud"], Deployer> = {
    local: deployLocal,
    gcp: deployGcp,
    aws: deployAws,
};

// Async: a stack may have to ask its cloud something (EKS: who is running) before it registers anything.
async function run(): Promise<StackOutputs> {
    const project = pulumi.getProject();
    try {
        const config = readConfig(pulumi.runtime.allConfig(), project, process.cwd());
        // `tfs plan` runs offline on purpose: it needs no credentials.
        const offline = process.env.TFS_OFFLINE === "1";
        const missing = offline ? [] : credentialProblems(config);
        if (missing.length > 0) {
            throw new PreparationError(missing);
        }
        const { models, warnings } = prepareModels(config, project);
        warnings.forEach((w) => pulumi.log.warn(w));
        return await deployers[config.cloud](config, models, { offline });
    } catch (err) {
        // User mistakes end the run with their message only: no stack trace, nothing registered.
        if (err instanceof ConfigError || err instanceof PreparationError) {
            throw new pulumi.RunError(err.message);
        }
        throw err;
    }
}

// Every stack exports the same names; `kubeconfig` and `clusterName` only where it creates a cluster.
export = run().then((outputs) => Object.fromEntries(Object.entries(outputs).filter(([, value]) => value !== undefined)));
