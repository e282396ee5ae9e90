import * as assert from "assert";
import * as path from "path";
import * as vm from "vm";
import { installLeanPromiseStacks, isPromiseRecord, leanPromiseStacks } from "../../../stacks/promiseStacks";

type Prepare = (error: Error, frames: NodeJS.CallSite[]) => unknown;

/** Real V8 call sites of a call to a function named `name`, compiled as if it lived in `file`. */
function framesOf(name: string, file: string): NodeJS.CallSite[] {
    const capture = vm.runInThisContext(`(function ${name}() { return new Error(); })`, { filename: file }) as () => Error;
    const saved = Error.prepareStackTrace;
    Error.prepareStackTrace = (_error, frames) => frames;
    try {
        return capture().stack as unknown as NodeJS.CallSite[];
    } finally {
        Error.prepareStackTrace = saved;
    }
}

/** A formatter that records what reached it. */
function recording(): { prepare: Prepare; seen: string[] } {
    const seen: string[] = [];
    return { seen, prepare: (error, frames) => { seen.push(String(frames[0]?.getFunctionName())); return `${error} (mapped)`; } };
}

describe("the SDK's per-promise stack traces, left unformatted", () => {
    const SDK_FILE = path.join("/app", "node_modules", "@pulumi", "pulumi", "runtime", "debuggable.js");

    it("a trace taken by the SDK's debuggablePromise is the error line alone; the formatter never sees it", () => {
        const inner = recording();
        const lean = leanPromiseStacks(inner.prepare);
        assert.strictEqual(lean(new Error(), framesOf("debuggablePromise", SDK_FILE)), "Error");
        assert.deepStrictEqual(inner.seen, []);
    });

    it("every other trace goes to the installed formatter, the same name in another file included", () => {
        const inner = recording();
        const lean = leanPromiseStacks(inner.prepare);
        assert.strictEqual(lean(new Error("boom"), framesOf("readModel", "/app/model/savedModel.ts")), "Error: boom (mapped)");
        assert.strictEqual(lean(new Error("mine"), framesOf("debuggablePromise", "/app/stacks/debuggable.js")), "Error: mine (mapped)");
        assert.strictEqual(lean(new Error("empty"), []), "Error: empty (mapped)", "no frames (Error.stackTraceLimit = 0)");
        assert.deepStrictEqual(inner.seen, ["readModel", "debuggablePromise", "undefined"]);
    });

    it("the real SDK's recorder is recognised: a promise it wraps keeps the bare line", () => {
        // If an SDK upgrade renames or moves the recorder, this fails, and the saving is gone.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { debuggablePromise } = require("@pulumi/pulumi/runtime/debuggable") as { debuggablePromise: (p: Promise<unknown>, ctx: string) => Promise<unknown> };
        const inner = recording();
        const saved = Error.prepareStackTrace;
        const p = Promise.resolve(1) as Promise<number> & { _debugStackTrace?: string };
        Error.prepareStackTrace = leanPromiseStacks(inner.prepare);
        try {
            void debuggablePromise(p, "test");
        } finally {
            Error.prepareStackTrace = saved;
        }
        assert.strictEqual(p._debugStackTrace, "Error");
        assert.deepStrictEqual(inner.seen, []);
        const direct = framesOf("debuggablePromise", require.resolve("@pulumi/pulumi/runtime/debuggable"));
        assert.ok(isPromiseRecord(direct));
    });

    it("installs over the formatter in place, not with PULUMI_DEBUG_PROMISE_LEAKS set nor over Node's own", () => {
        const inner = recording();
        const errors: { prepareStackTrace?: Prepare } = { prepareStackTrace: inner.prepare };
        assert.strictEqual(installLeanPromiseStacks(errors, { PULUMI_DEBUG_PROMISE_LEAKS: "true" }), false);
        assert.strictEqual(errors.prepareStackTrace, inner.prepare);
        assert.strictEqual(installLeanPromiseStacks({}, {}), false);
        assert.strictEqual(installLeanPromiseStacks(errors, {}), true);
        assert.notStrictEqual(errors.prepareStackTrace, inner.prepare);
        assert.strictEqual(errors.prepareStackTrace!(new Error(), framesOf("debuggablePromise", SDK_FILE)), "Error");
        assert.strictEqual(errors.prepareStackTrace!(new Error("x"), framesOf("other", SDK_FILE)), "Error: x (mapped)");
    });
});
