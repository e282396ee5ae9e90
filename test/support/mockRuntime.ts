/**
 * The mock runtime for tests that construct components directly: the plan's recorder
 * (`ops/planRuntime.ts`) with a stack left open, so resources a test creates after
 * `startMockRuntime` are the stack's children and recorded like a program's.
 */
import * as pulumi from "@pulumi/pulumi";
import { MockOptions, Recorder, installMocks } from "../../ops/planRuntime";

export interface MockRun extends Recorder {
    /** Closes the stack and waits until every registration has been answered. */
    settle(): Promise<void>;
}

/** Installs the mock runtime and opens a stack; call before constructing resources. */
export async function startMockRuntime(options: MockOptions = {}): Promise<MockRun> {
    const recorder = new Recorder();
    // A stack of this worker's own: a stack's build contexts are staged under .tfs/build/<stack>/, and
    // mocha's two workers would otherwise write each other's Dockerfiles there.
    const record = await installMocks({ stack: `test-${process.pid}`, ...options }, recorder);
    let close: () => void = () => undefined;
    let stack: Promise<unknown> = Promise.resolve();
    await new Promise<void>((opened) => {
        stack = pulumi.runtime.runInPulumiStack(() => {
            pulumi.runtime.registerStackTransformation(record);
            opened();
            return new Promise((resolve) => { close = () => resolve({}); });
        });
    });
    return Object.assign(recorder, {
        async settle(): Promise<void> {
            close();
            await stack;
            await pulumi.runtime.disconnect();
        },
    });
}

/** Resolves an Output under the mock runtime (an update: every output is known). */
export function settleOutput<T>(output: pulumi.Output<T>): Promise<T> {
    return new Promise((resolve) => output.apply((v) => {
        resolve(v);
        return v;
    }));
}
