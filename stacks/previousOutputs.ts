/**
 * What this stack exported at its last update, read back through a `StackReference` to itself:
 * how the program knows, at preview, what a change changes from (the settings a running cluster
 * must keep, the image each model ran). A stack never updated, or one run under mocks, has none;
 * offline (`tfs plan`: no engine, no backend) nothing is read. One per program run: it registers
 * the reference.
 */
import * as pulumi from "@pulumi/pulumi";

export class PreviousOutputs {
    private readonly self?: pulumi.StackReference;
    private readonly name?: string;
    private checkpoint?: pulumi.Output<Record<string, CheckpointResource>>;

    constructor(readonly offline: boolean) {
        if (!offline) {
            this.name = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
            this.self = new pulumi.StackReference("previous-outputs", { name: this.name });
        }
    }

    /**
     * The output `name` of the last update (undefined when there is none). One output, not
     * `outputs`: the whole map is secret as soon as one output is (a kubeconfig), and a secret would
     * turn every input derived from it into one.
     */
    output(name: string): pulumi.Output<unknown> {
        return this.self === undefined ? pulumi.output(undefined) : this.self.getOutput(name);
    }

    /**
     * Every resource's outputs in the stack's latest checkpoint, by URN. Unlike the stack's outputs,
     * which only an update that succeeded writes, the checkpoint also holds what a failed update did
     * change before it failed (an Image rebuilt for a canary that was rolled back). Read once, through
     * the engine's `pulumi:pulumi:readStackResourceOutputs`; empty offline, for a new stack, or when the
     * engine cannot answer.
     */
    resources(): pulumi.Output<Record<string, CheckpointResource>> {
        if (this.name === undefined) {
            return pulumi.output({}) as pulumi.Output<Record<string, CheckpointResource>>;
        }
        if (this.checkpoint === undefined) {
            const read: Promise<Record<string, CheckpointResource>> = pulumi.runtime.invoke("pulumi:pulumi:readStackResourceOutputs", { stackName: this.name })
                .then((answer) => readCheckpoint(answer), (err) => {
                    pulumi.log.debug(`the stack's checkpoint could not be read (${err instanceof Error ? err.message : String(err)}); treated as empty`);
                    return {};
                });
            this.checkpoint = pulumi.output(read) as pulumi.Output<Record<string, CheckpointResource>>;
        }
        return this.checkpoint;
    }

    /** The same, awaited before anything else is registered. */
    async value(name: string): Promise<unknown> {
        return this.self === undefined ? undefined : (await this.self.getOutputDetails(name)).value;
    }
}

/** One resource of a checkpoint: its type token and its outputs. */
export interface CheckpointResource {
    type: string;
    outputs: Record<string, unknown>;
}

/** The engine's answer (`{ name, outputs: { URN: { type, outputs } } }`), any shape: what is not a resource is left out. */
export function readCheckpoint(answer: unknown): Record<string, CheckpointResource> {
    const resources = (answer as { outputs?: unknown } | undefined)?.outputs;
    if (resources === null || typeof resources !== "object") {
        return {};
    }
    return Object.fromEntries(Object.entries(resources as Record<string, unknown>).flatMap(([urn, value]) => {
        const { type, outputs } = (value ?? {}) as Record<string, unknown>;
        return typeof type === "string" && outputs !== null && typeof outputs === "object" ? [[urn, { type, outputs: outputs as Record<string, unknown> }]] : [];
    }));
}
