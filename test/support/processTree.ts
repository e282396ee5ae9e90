/**
 * A process's descendants, found by parentage in /proc: the Pulumi CLI starts its plugins (the
 * language host, the providers) in process groups of their own, so killing a test's process group
 * leaves them behind; they are found this way and ended with it.
 */
import * as fs from "fs";

/** Every live descendant of `pid`, nearest first. */
export function descendants(pid: number): number[] {
    const parents = new Map<number, number>();
    for (const entry of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
        try {
            // The command name is in parentheses and may hold spaces: the parent pid follows its last ")".
            const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
            parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
        } catch {
            // gone meanwhile
        }
    }
    const found: number[] = [];
    for (let frontier = [pid]; frontier.length > 0;) {
        frontier = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
        found.push(...frontier);
    }
    return found;
}

/** Sends `signal` to each of `pids` that still lives. */
export function signalAll(pids: number[], signal: NodeJS.Signals): void {
    for (const pid of pids) {
        try {
            process.kill(pid, signal);
        } catch {
            // gone meanwhile
        }
    }
}
