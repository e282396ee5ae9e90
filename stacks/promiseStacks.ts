/**
 * `@pulumi/pulumi` records a stack trace for every promise it makes (`debuggablePromise`: a
 * `new Error().stack` kept on the promise), and prints those traces only in its promise-leak report,
 * and only when `PULUMI_DEBUG_PROMISE_LEAKS` is set. Under ts-node every one of them is formatted
 * through ts-node's source-map support, frame by frame: 563 traces and 0.15-0.18 s of each no-op
 * preview of the dev stack, about a sixth of the program's own time, for text nobody reads.
 *
 * `leanPromiseStacks` wraps the installed formatter so that those traces alone come back as the bare
 * error line; every other stack (a user's error, the SDK's resource source positions) is formatted
 * as before, mapped to its `.ts` lines. With `PULUMI_DEBUG_PROMISE_LEAKS` set nothing is wrapped and
 * the leak report keeps its traces.
 */

type PrepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => unknown;

/** The SDK's function and file whose traces are dropped. */
const RECORDER = "debuggablePromise";
const RECORDER_FILE = /[\\/]@pulumi[\\/]pulumi[\\/]runtime[\\/]debuggable\.js$/;

/** True when the trace was taken by the SDK's per-promise recorder. */
export function isPromiseRecord(frames: NodeJS.CallSite[]): boolean {
    const top = frames[0];
    return top !== undefined && top.getFunctionName() === RECORDER && RECORDER_FILE.test(top.getFileName() ?? "");
}

/** `inner`, except that the SDK's per-promise traces come back as the error line alone. */
export function leanPromiseStacks(inner: PrepareStackTrace): PrepareStackTrace {
    return function (this: unknown, error, frames) {
        return isPromiseRecord(frames) ? String(error) : inner.call(this, error, frames);
    };
}

/**
 * Wraps `errors.prepareStackTrace` (the global `Error` in the program) unless the SDK is asked to
 * report leaks with their traces, or no formatter is installed (Node's own is native and cheap).
 * Returns whether it wrapped.
 */
export function installLeanPromiseStacks(
    errors: { prepareStackTrace?: PrepareStackTrace },
    env: NodeJS.ProcessEnv,
): boolean {
    const inner = errors.prepareStackTrace;
    if (env.PULUMI_DEBUG_PROMISE_LEAKS || inner === undefined) {
        return false;
    }
    errors.prepareStackTrace = leanPromiseStacks(inner);
    return true;
}
