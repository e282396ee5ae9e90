/**
 * Table-driven tests of user mistakes against the real `tfs` command: each case runs
 * `node bin/tfs.js ...` as a user would and is judged as a user would judge the answer.
 * "clear": a non-zero exit, no stack trace, bounded output naming every key or path the case lists;
 * "vague": the same, but a name is missing; "bad": exit 0, a trace, an internal error, a hang,
 * unbounded output, or a suggestion the case forbids.
 */
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

const TFS = path.resolve(__dirname, "../../bin/tfs.js");
/** A hang is a bad outcome, not a stuck suite. */
const RUN_TIMEOUT_MS = 60_000;
/** More than this is not an answer a user reads (the /etc case once printed half a megabyte). */
export const OUTPUT_LIMIT = 16 * 1024;

export interface Run { status: number | null; signal: string | null; stdout: string; stderr: string }

export interface Mistake {
    name: string;
    args: string[];
    /** Strings the answer must contain: the key, path or flag that is wrong (and the value, where it helps). */
    mentions: string[];
    /** Patterns the answer must not contain (a command that writes outside the model folder, a wrong diagnosis). */
    forbid?: RegExp[];
    /** Paths that must not exist after the run (a half-written output folder). */
    absent?: string[];
    /** Run the command as this user and group id (root reads every file: a file only others cannot read). */
    asUser?: number;
}

export type Outcome = "clear" | "vague" | "bad";

/** Whether a user who is neither owner nor group of `file` and of every folder above it may run it. */
export function othersMayRun(file: string): boolean {
    for (let p = file; ; p = path.dirname(p)) {
        if ((fs.statSync(p).mode & 0o001) === 0) {
            return false;
        }
        if (p === path.dirname(p)) {
            return true;
        }
    }
}

/**
 * The node another user runs `tfs` with: this process's, or, when a folder above it is closed to others
 * (scripts/lib/node.sh installs Node.js under the caller's home, and root's is 0700), a hard link to it
 * (a copy across file systems) in `dir`, which that user can reach: the command runs there.
 */
export function nodeForOthers(dir: string): string {
    if (othersMayRun(process.execPath)) {
        return process.execPath;
    }
    const own = path.join(dir, ".node", "node");
    if (!fs.existsSync(own)) {
        fs.mkdirSync(path.dirname(own), { recursive: true, mode: 0o755 });
        try {
            fs.linkSync(process.execPath, own);
        } catch {
            fs.copyFileSync(process.execPath, own);
            fs.chmodSync(own, 0o755);
        }
    }
    return own;
}

/** Runs `tfs ARGS` in `cwd` as a child process (as user `asUser`); a run over the time limit is killed and reported with its signal. */
export function runTfs(args: string[], cwd: string, asUser?: number): Promise<Run> {
    const user = asUser === undefined ? {} : { uid: asUser, gid: asUser, env: { ...process.env, HOME: cwd } };
    const node = asUser === undefined ? process.execPath : nodeForOthers(cwd);
    return new Promise((resolve) => {
        execFile(node, [TFS, ...args], { cwd, encoding: "utf8", timeout: RUN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, killSignal: "SIGKILL", ...user },
            (err, stdout, stderr) => {
                const e = err as (NodeJS.ErrnoException & { code?: number | string; signal?: string }) | null;
                resolve({ status: e ? (typeof e.code === "number" ? e.code : null) : 0, signal: e?.signal ?? null, stdout, stderr });
            });
    });
}

const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

/** The outcome of one run of a mistake, and why it is not clear. */
export function judge(run: Run, mistake: Mistake): { outcome: Outcome; why: string } {
    const text = `${run.stdout}\n${run.stderr}`;
    if (run.status === null) {
        return { outcome: "bad", why: `did not finish (${run.signal ?? "killed"})` };
    }
    if (run.status === 0) {
        return { outcome: "bad", why: "exit 0" };
    }
    if (STACK_FRAME.test(text) || /internal error/.test(text)) {
        return { outcome: "bad", why: "stack trace or internal error" };
    }
    if (text.length > OUTPUT_LIMIT) {
        return { outcome: "bad", why: `${text.length} characters of output` };
    }
    const forbidden = (mistake.forbid ?? []).find((re) => re.test(text));
    if (forbidden) {
        return { outcome: "bad", why: `says ${forbidden}` };
    }
    const left = (mistake.absent ?? []).filter((p) => fs.existsSync(p));
    if (left.length > 0) {
        return { outcome: "bad", why: `left ${left.join(", ")} behind` };
    }
    const missing = mistake.mentions.filter((m) => !text.includes(m));
    if (missing.length > 0) {
        return { outcome: "vague", why: `does not name ${missing.map((m) => JSON.stringify(m)).join(", ")}` };
    }
    return { outcome: "clear", why: "" };
}

/** Runs `jobs` with at most `limit` at a time (the machine is shared: each run starts node and ts-node). */
export async function inPool<T>(jobs: (() => Promise<T>)[], limit = 2): Promise<T[]> {
    const results: T[] = new Array(jobs.length);
    let next = 0;
    const worker = async (): Promise<void> => {
        while (next < jobs.length) {
            const i = next++;
            results[i] = await jobs[i]();
        }
    };
    await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
    return results;
}

/** One `it` per mistake; the message says which way an unclear answer fell short, with the answer. */
export function describeMistakes(title: string, mistakes: Mistake[], run: (m: Mistake) => Promise<Run>, cleanup?: () => void): void {
    describe(title, function () {
        this.timeout(20 * 60_000);
        const runs = new Map<string, Run>();
        if (cleanup) {
            after(cleanup);
        }
        before(async () => {
            const results = await inPool(mistakes.map((m) => () => run(m)));
            mistakes.forEach((m, i) => runs.set(m.name, results[i]));
        });
        for (const mistake of mistakes) {
            it(mistake.name, () => {
                const result = runs.get(mistake.name)!;
                const { outcome, why } = judge(result, mistake);
                if (outcome !== "clear") {
                    const shown = `${result.stdout}\n${result.stderr}`.slice(0, 3000);
                    throw new Error(`${outcome.toUpperCase()}: ${why}; exit ${result.status}\n${shown}`);
                }
            });
        }
    });
}

/** The broken model folders the cases point at, built under `root` from the repository's fixture. */
export interface BrokenModels {
    good: string;
    zeroShard: string;
    selfLink: string;
    linkLoop: string;
    brokenLink: string;
    flat: string;
    empty: string;
    truncatedGraph: string;
    noIndex: string;
    missingShard: string;
    /** A folder like /etc: hundreds of entries, links out of it, nothing of a model. */
    notAModel: string;
    /** A regular file where the base folder belongs. */
    file: string;
    /** A named pipe in the version folder: neither a file nor a folder. */
    namedPipe: string;
}

export function makeBrokenModels(root: string, fixture: string): BrokenModels {
    const copy = (name: string): string => {
        const dest = path.join(root, name);
        fs.cpSync(fixture, dest, { recursive: true });
        return dest;
    };
    const version = (base: string): string => path.join(base, fs.readdirSync(base).find((n) => /^\d+$/.test(n))!);
    const models: BrokenModels = {
        good: copy("good"), zeroShard: copy("zero-shard"), selfLink: copy("self-link"), linkLoop: copy("link-loop"),
        brokenLink: copy("broken-link"), flat: path.join(root, "flat"), empty: path.join(root, "empty"),
        truncatedGraph: copy("truncated-graph"), noIndex: copy("no-index"), missingShard: copy("missing-shard"),
        notAModel: path.join(root, "etc-like"), file: path.join(root, "a-file.pb"), namedPipe: copy("named-pipe"),
    };
    const shard = (base: string): string => path.join(version(base), "variables", "variables.data-00000-of-00001");
    fs.truncateSync(shard(models.zeroShard), 0);
    fs.symlinkSync("..", path.join(version(models.selfLink), "assets", "back-to-version"));
    fs.symlinkSync("b", path.join(version(models.linkLoop), "assets", "a"));
    fs.symlinkSync("a", path.join(version(models.linkLoop), "assets", "b"));
    fs.symlinkSync("gone.txt", path.join(version(models.brokenLink), "assets", "vocab.txt"));
    fs.cpSync(version(fixture), models.flat, { recursive: true });
    fs.mkdirSync(models.empty);
    const graph = path.join(version(models.truncatedGraph), "saved_model.pb");
    fs.truncateSync(graph, Math.floor(fs.statSync(graph).size / 2));
    fs.rmSync(path.join(version(models.noIndex), "variables", "variables.index"));
    fs.renameSync(shard(models.missingShard), path.join(version(models.missingShard), "variables", "variables.data-00000-of-00002"));
    fs.mkdirSync(models.notAModel);
    for (let i = 0; i < 300; i++) {
        const dir = path.join(models.notAModel, `service${i}.d`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, "conf"), "x=1\n", { mode: 0o600 });
        fs.symlinkSync("/usr/share/zoneinfo/UTC", path.join(dir, "localtime"));
    }
    fs.writeFileSync(models.file, "not a folder");
    execFileSync("mkfifo", [path.join(version(models.namedPipe), "assets", "pipe")]);
    return models;
}
