/**
 * Runs the `tfs` command as a user does (`node bin/tfs.js ARGS`) in a child process that ends with
 * the test (test/support/children.ts), and reads what it printed.
 */
import { execFile } from "child_process";
import * as path from "path";
import { ownChild } from "./children";

export const TFS_BIN = path.resolve(__dirname, "../../bin/tfs.js");

export interface TfsRun {
    /** The exit code; null when the command was killed (it outlived `timeoutMs`). */
    code: number | null;
    stdout: string;
    stderr: string;
}

export interface TfsRunOptions {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    /** Kill the command after this long; default 60 s (ts-node alone takes seconds on a busy machine). */
    timeoutMs?: number;
    /** Sees stderr as it comes (progress lines). */
    onStderr?: (text: string) => void;
}

export function runTfs(args: string[], options: TfsRunOptions = {}): Promise<TfsRun> {
    return new Promise((resolve) => {
        const child = ownChild(execFile(process.execPath, [TFS_BIN, ...args], {
            env: options.env ?? process.env, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 2 ** 20,
        }, (err, stdout, stderr) => {
            const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
            resolve({ code, stdout, stderr });
        }));
        child.stderr?.on("data", (chunk: Buffer) => options.onStderr?.(chunk.toString()));
    });
}
