/**
 * Runs `tfs ARGS` in this process (the CLI's `main`), capturing what it prints: for unit tests of a
 * command's wording and exit codes without starting a process.
 */
import { main } from "../../cli/main";

export async function tfsInProcess(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = "";
    let stderr = "";
    const saved = { log: console.log, error: console.error, write: process.stderr.write };
    console.log = (...parts: unknown[]) => { stdout += parts.join(" ") + "\n"; };
    console.error = (...parts: unknown[]) => { stderr += parts.join(" ") + "\n"; };
    // Commander reports usage errors straight to stderr.
    process.stderr.write = ((chunk: string | Uint8Array) => { stderr += chunk.toString(); return true; }) as typeof process.stderr.write;
    try {
        const code = await main(["node", "tfs", ...args]);
        return { code, stdout, stderr };
    } finally {
        console.log = saved.log;
        console.error = saved.error;
        process.stderr.write = saved.write;
    }
}
