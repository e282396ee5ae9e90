/**
 * The program, run the same way by every entry point: `index.ts` under the engine and `tfs plan`
 * under the mock runtime (`tfs deploy` runs the preparation itself, then the engine runs this).
 * It prepares the stack (`prepareStack`), and only then composes the stack for the configured cloud.
 */
import * as pulumi from "@pulumi/pulumi";
import { ConfigError } from "../config/configReader";
import { Cloud, ConfigFor, ServingConfig } from "../config/config";
import { StagingError } from "../serving/buildContext";
import { PreparedModel, StackOutputs } from "./deploy";
import { LifecycleOptions, PreparationError, StackInput, prepareStack } from "./prepare";
import { PreviousOutputs } from "./previousOutputs";
import { checkRecordSchemas } from "./stateRecords";
import { SERVED_SIGNATURES_OUTPUT, checkSignatureChanges, signatureRecord } from "./signatureRecords";

/**
 * Registers the stack for the configured cloud. Async: a stack may ask its cloud something first
 * (EKS: who is running). The GKE and EKS stacks are loaded only when configured: `@pulumi/gcp`,
 * `@pulumi/aws` and their components cost a local stack about a second of every run to load.
 */
export async function composeStack(config: ServingConfig, models: PreparedModel[], options: LifecycleOptions): Promise<StackOutputs> {
    const previous = new PreviousOutputs(options.offline);
    // Read before anything is registered: a backend that cannot answer stops the run here, cleanly.
    await previous.read();
    await checkRecordSchemas(previous);
    await checkSignatureChanges(previous, models, pulumi.getProject());
    // The entry for config.cloud takes that cloud's config; TypeScript cannot relate the two through the union (hence the cast).
    const outputs = await (await COMPOSITIONS[config.cloud]())(config as never, models, { ...options, previous });
    // Written only by an update that succeeds: the next preview compares its versions with what then serves.
    const signatures = Object.fromEntries(models.map((m) => [m.settings.name, signatureRecord(m.report)]));
    return { ...outputs, [SERVED_SIGNATURES_OUTPUT]: pulumi.output(signatures) };
}

/** A cloud's thin composition (`stacks/<cloud>.ts`): its cluster, registry and the models on them. */
type Composition<C extends Cloud> = (config: ConfigFor<C>, models: PreparedModel[], options: LifecycleOptions & { previous: PreviousOutputs }) => Promise<StackOutputs>;

/** Each cloud's composition, loaded only when configured (with its components and provider SDK). */
const COMPOSITIONS: { [C in Cloud]: () => Promise<Composition<C>> } = {
    local: async () => async (config, models, { previous, offline }) => (await import("./local")).deployLocal(config, models, previous, { offline }),
    gcp: async () => (await import("./gcp")).deployGcp,
    aws: async () => (await import("./aws")).deployAws,
};

/**
 * Prepares and composes the stack; returns its outputs. Every stack exports the same names;
 * `kubeconfig` and `clusterName` only where it creates a cluster.
 */
export async function runProgram(input: StackInput, options: LifecycleOptions): Promise<Partial<StackOutputs>> {
    try {
        const { config, models, warnings } = prepareStack(input, options);
        warnings.forEach((w) => pulumi.log.warn(w));
        const outputs = await composeStack(config, models, options);
        return Object.fromEntries(Object.entries(outputs).filter(([, value]) => value !== undefined));
    } catch (err) {
        // User mistakes end the run with their message only: no stack trace, nothing registered.
        if (err instanceof ConfigError || err instanceof PreparationError || err instanceof StagingError) {
            throw new pulumi.RunError(err.message);
        }
        throw err;
    }
}
