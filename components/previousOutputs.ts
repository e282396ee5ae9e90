/**
 * What this stack left at its last update, read back from the stack's latest checkpoint: how the
 * program knows, at preview, what a change changes from (the settings a running cluster must keep,
 * the image each model ran). One read per program run, through the engine's builtin
 * `pulumi:pulumi:readStackResourceOutputs`, which answers every resource's outputs by URN; the
 * stack's own outputs are those of its root resource (`pulumi:pulumi:Stack`), the very values a
 * `StackReference` to itself would read (the engine takes both from the same checkpoint), without
 * a resource of its own to register and diff. A stack never updated has none; offline (`tfs plan`:
 * no engine, no backend) nothing is read.
 */
import * as pulumi from "@pulumi/pulumi";

/** One resource of a checkpoint: its type token and its outputs. */
export interface CheckpointResource {
    type: string;
    outputs: Record<string, unknown>;
}

/** The latest checkpoint as the program uses it. */
export interface Checkpoint {
    /** The stack's outputs at its last update that succeeded (the root resource's). */
    stackOutputs: Record<string, unknown>;
    /** Every resource's outputs by URN, also what a failed update changed before it failed. */
    resources: Record<string, CheckpointResource>;
}

/** The engine's builtin that answers a stack's checkpoint. */
export const READ_CHECKPOINT = "pulumi:pulumi:readStackResourceOutputs";

const EMPTY: Checkpoint = { stackOutputs: {}, resources: {} };
const STACK_TYPE = "pulumi:pulumi:Stack";
/** Reads of the checkpoint before the run stops; the engine may be writing it when the program starts. */
const ATTEMPTS = 3;
const RETRY_MS = 300;

export class PreviousOutputs {
    private readonly name?: string;
    private checkpoint?: Promise<Checkpoint>;

    constructor(readonly offline: boolean) {
        if (!offline) {
            this.name = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
        }
    }

    /** The latest checkpoint, read once per run (empty offline and for a new stack). */
    read(): Promise<Checkpoint> {
        if (this.checkpoint === undefined) {
            this.checkpoint = this.name === undefined ? Promise.resolve(EMPTY) : readWithRetries(this.name);
        }
        return this.checkpoint;
    }

    /**
     * The stack output `name` of the last update (undefined when there is none). One output, not
     * all: the program reads only outputs that hold no secret (the engine hands the checkpoint
     * back decrypted).
     */
    output(name: string): pulumi.Output<unknown> {
        return pulumi.output(this.value(name));
    }

    /** The same, as a promise: awaited before anything else is registered. */
    async value(name: string): Promise<unknown> {
        return (await this.read()).stackOutputs[name];
    }

    /**
     * Every resource's outputs in the stack's latest checkpoint, by URN. Unlike the stack's outputs,
     * which only an update that succeeded writes, the checkpoint also holds what a failed update did
     * change before it failed (an Image rebuilt for a canary that was rolled back).
     */
    resources(): pulumi.Output<Record<string, CheckpointResource>> {
        return pulumi.output(this.read().then((c) => c.resources)) as pulumi.Output<Record<string, CheckpointResource>>;
    }
}

/**
 * The engine's answer, retried a bounded number of times; then the run stops with what failed, since
 * going on without it would skip the checks of a change to a running stack.
 */
async function readWithRetries(stackName: string): Promise<Checkpoint> {
    let last: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        try {
            return readCheckpoint(await pulumi.runtime.invoke(READ_CHECKPOINT, { stackName }));
        } catch (err) {
            last = err;
            pulumi.log.debug(`reading the stack's checkpoint, attempt ${attempt} of ${ATTEMPTS}: ${describe(err)}`);
            if (attempt < ATTEMPTS) {
                await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
            }
        }
    }
    throw new pulumi.RunError(`could not read stack ${stackName}'s last state from its backend (${describe(last)}); ` +
        "nothing was changed. The program needs it to check a change against what runs: run the command again, and if it keeps failing, " +
        "check that `pulumi stack export` can read the stack");
}

function describe(err: unknown): string {
    return err instanceof Error && err.message !== "" ? err.message : String(err);
}

/**
 * The engine's answer (`{ name, outputs: { URN: { type, outputs } } }`), any shape: what is not a
 * resource is left out; the root resource's outputs are the stack's.
 */
export function readCheckpoint(answer: unknown): Checkpoint {
    const entries = (answer as { outputs?: unknown } | undefined)?.outputs;
    if (entries === null || typeof entries !== "object") {
        return EMPTY;
    }
    const resources = Object.fromEntries(Object.entries(entries as Record<string, unknown>).flatMap(([urn, value]) => {
        const { type, outputs } = (value ?? {}) as Record<string, unknown>;
        return typeof type === "string" && outputs !== null && typeof outputs === "object" ? [[urn, { type, outputs: outputs as Record<string, unknown> }]] : [];
    }));
    const root = Object.values(resources).find((r) => r.type === STACK_TYPE);
    return { stackOutputs: root?.outputs ?? {}, resources };
}
