/**
 * The records a stack keeps about itself in its outputs and reads back from its latest checkpoint at
 * the next run (`PreviousOutputs`: the engine reads the backend; the config file alone cannot say
 * what runs):
 * - `deployedSettings` (GKE and EKS stacks): the settings a running stack must keep, checked against
 *   the new config before any other resource is registered (`config/liveChanges.ts`);
 * - `imageBuilds` (every stack): per model, the content tag its image was declared with and whether
 *   that update pushed it (`serving/pushDecision.ts`).
 *
 * Both carry one schema version, `STATE_SCHEMA`, bumped when either shape changes. A record names its
 * version in a `schema` field; one without (an `imageBuilds` entry, a record written before the field)
 * is version 1. A version newer than this program reads stops the run before anything is registered:
 * guessing at a later shape could refuse a good change or allow a bad one.
 */
import * as pulumi from "@pulumi/pulumi";
import { ConfigError } from "../config/configReader";
import { DeployedSettings, DeployedState, liveChanges } from "../config/liveChanges";
import { imageTag } from "../serving/images";
import { ImageBuildRecord, PreviousImage } from "../serving/pushDecision";
import { CheckpointResource, PreviousOutputs } from "./previousOutputs";

/** The version of both records' shape (see the module comment). */
export const STATE_SCHEMA = 1;

/** The stack output holding the settings record. */
export const DEPLOYED_SETTINGS_OUTPUT = "deployedSettings";
/** The stack output holding the image records, by model name. */
export const IMAGE_BUILDS_OUTPUT = "imageBuilds";

const DOCS = "docs/concepts/changing-a-stack.md#the-records-a-stack-keeps";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The schema version of a record read from the stack output `output` (1 when it names none); one
 * line naming the output and both versions when the record is newer than this program reads.
 */
export function recordSchema(output: string, record: Record<string, unknown>): number {
    const schema = record.schema ?? 1;
    if (typeof schema !== "number" || !Number.isInteger(schema) || schema < 1) {
        throw new pulumi.RunError(`stack output ${output} has schema ${JSON.stringify(schema)}, which no version of this program writes: ` +
            `the stack's outputs were edited by hand; restore them with \`pulumi stack export\`/\`import\` from a backup (see ${DOCS})`);
    }
    if (schema > STATE_SCHEMA) {
        throw new pulumi.RunError(`stack output ${output} has schema ${schema}, newer than this program reads (${STATE_SCHEMA}): ` +
            `a later version of tf-serving last updated this stack; run that version or a later one (see ${DOCS})`);
    }
    return schema;
}

/** The settings record read back (any shape; undefined unless it is one). Throws for a newer schema. */
export function readDeployedSettings(value: unknown): DeployedSettings | undefined {
    if (!isObject(value)) {
        return undefined;
    }
    recordSchema(DEPLOYED_SETTINGS_OUTPUT, value);
    const whole = (value.cloud === "gcp" && isObject(value.gke)) || (value.cloud === "aws" && isObject(value.eks));
    return whole ? { ...value, schema: STATE_SCHEMA } as DeployedSettings : undefined;
}

/** One model's image record read back (any shape; undefined unless it is one). Throws for a newer schema. */
export function readImageBuild(value: unknown): ImageBuildRecord | undefined {
    if (!isObject(value)) {
        return undefined;
    }
    recordSchema(IMAGE_BUILDS_OUTPUT, value);
    const { tag, pushed } = value;
    return typeof tag === "string" && typeof pushed === "boolean" ? { tag, pushed } : undefined;
}

/**
 * Reads both records of the last update, so that one of a newer schema stops the run before
 * anything is registered (the image records are read again where each model's image is declared).
 */
export async function checkRecordSchemas(previous: PreviousOutputs): Promise<void> {
    readDeployedSettings(await previous.value(DEPLOYED_SETTINGS_OUTPUT));
    const builds = await previous.value(IMAGE_BUILDS_OUTPUT);
    if (isObject(builds)) {
        Object.values(builds).forEach(readImageBuild);
    }
}

/**
 * What the last update's outputs (`imageBuilds`, `models`) say about a model's image, and the tag
 * its Image holds in the latest checkpoint (`ModelImage` names its Image after the model).
 */
export function previousImage(builds: unknown, models: unknown, resources: Record<string, CheckpointResource>, model: string): PreviousImage | undefined {
    const record = readImageBuild((builds as Record<string, unknown> | undefined)?.[model]);
    const imageRef = (models as Record<string, { imageRef?: unknown } | undefined> | undefined)?.[model]?.imageRef;
    const deployedDigest = typeof imageRef === "string" ? /@(sha256:[0-9a-f]{64})$/.exec(imageRef)?.[1] : undefined;
    const image = Object.entries(resources).find(([urn, r]) => r.type === "docker:index/image:Image" && urn.endsWith(`$docker:index/image:Image::${model}`))?.[1];
    const imageName = image?.outputs.imageName;
    const checkpointTag = typeof imageName === "string" ? imageTag(imageName) : undefined;
    const checkpoint = checkpointTag === undefined ? undefined : { tag: checkpointTag, pushed: image?.outputs.skipPush !== true };
    return record === undefined && deployedDigest === undefined ? undefined : { record, deployedDigest, checkpoint };
}

/**
 * Reads this stack's last outputs. Offline (`tfs plan`: no engine, no backend) the state is `unknown`.
 * A stack with outputs but no record was deployed by an earlier version.
 */
export async function readDeployedState(previous: PreviousOutputs): Promise<DeployedState> {
    if (previous.offline) {
        return { kind: "unknown" };
    }
    const settings = readDeployedSettings(await previous.value(DEPLOYED_SETTINGS_OUTPUT));
    if (settings !== undefined) {
        return { kind: "recorded", settings };
    }
    // Every stack exports clusterName; without it the stack has never been deployed.
    const clusterName = await previous.value("clusterName");
    return clusterName === undefined ? { kind: "new" } : { kind: "unrecorded" };
}

/**
 * Refuses the change from the recorded settings to `next` (a `ConfigError`, which stops the preview
 * with every refused key), and logs the allowed changes worth a warning. Nothing to compare unless
 * the state is `recorded`; an `unrecorded` stack is told its next update records the settings.
 */
export function checkLiveChanges(state: DeployedState, next: DeployedSettings): void {
    if (state.kind === "unrecorded") {
        pulumi.log.warn("this stack was deployed by an earlier version, which did not record the settings a running stack must keep; " +
            "this update records them, and later changes are checked against them (docs/concepts/changing-a-stack.md)");
    }
    if (state.kind !== "recorded") {
        return;
    }
    const { issues, warnings } = liveChanges(state.settings, next);
    warnings.forEach((w) => pulumi.log.warn(w));
    if (issues.length > 0) {
        throw new ConfigError(issues, pulumi.getProject());
    }
}
