/**
 * What a staging saw, kept beside its context folder so the next one can skip the model's bytes:
 * each source file's and staged file's fingerprint (device, inode, size, modification and change
 * times, in nanoseconds) and the context digest they gave.
 *
 * What a matching fingerprint guarantees. Writing a file moves its change time (ctime) to the
 * current time, and no user call can set a ctime back (`touch -d`, `cp -p`, `tar x`, `rsync -t`
 * restore the modification time, not the change time); replacing a file changes its inode. So a
 * file whose fingerprint still matches has not been written since it was recorded, with one
 * exception: a write in the same tick of the file system's clock as the file's previous change,
 * after staging looked at it. A source file changed less than `RACY_MARGIN` before staging looked
 * at it is therefore recorded as unsettled and compared byte for byte the next time (git's "racily
 * clean" entries). Staged files need no margin: staging pins their modification time to 2000, and
 * any write moves it to now.
 */
import * as fs from "fs";
import * as path from "path";

const FORMAT = 1;
/** File systems with sub-second times tick in milliseconds at most; with whole seconds (FAT: 2 s), wait out two. */
const RACY_MARGIN_NS = { subSecond: 100_000_000n, wholeSeconds: 2_000_000_000n };

export interface RecordedFile {
    /** The file staged from (absolute), for a model file; none for generated text (Dockerfile, model config). */
    source?: string;
    sourceFingerprint?: string;
    /** The source had not changed for `RACY_MARGIN` when staging looked at it: its fingerprint alone can be trusted. */
    settled?: boolean;
    stagedFingerprint: string;
}

export interface StagingRecord {
    outDir: string;
    /** Every folder of the context, relative, sorted. */
    dirs: string[];
    /** Every file of the context by relative path. */
    files: Record<string, RecordedFile>;
    /** `contextDigest` of the context these fingerprints describe. */
    digest: string;
}

/** A file's fingerprint (see the module comment), or undefined when it does not exist or is not a file. */
export function fingerprint(file: string): string | undefined {
    const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) {
        return undefined;
    }
    return [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs, stat.mode & 0o7777n].join(":");
}

/** Whether a fingerprint taken at `seenAtNs` (wall clock, taken before the stat) is outside the racy window. */
export function settled(print: string, seenAtNs: bigint): boolean {
    const [, , , mtime, ctime] = print.split(":").map(BigInt);
    const subSecond = mtime % 1_000_000_000n !== 0n || ctime % 1_000_000_000n !== 0n;
    const margin = subSecond ? RACY_MARGIN_NS.subSecond : RACY_MARGIN_NS.wholeSeconds;
    const lastChange = mtime > ctime ? mtime : ctime;
    return lastChange < seenAtNs - margin;
}

/** The wall clock in nanoseconds, as file times count it. */
export function nowNs(): bigint {
    return BigInt(Date.now()) * 1_000_000n;
}

/** The record of an earlier staging into `outDir`, or undefined when there is none or it is unreadable. */
export function readRecord(file: string, outDir: string): StagingRecord | undefined {
    try {
        const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as { format?: number } & StagingRecord;
        const whole = parsed.format === FORMAT && parsed.outDir === outDir && typeof parsed.digest === "string"
            && Array.isArray(parsed.dirs) && typeof parsed.files === "object" && parsed.files !== null;
        return whole ? parsed : undefined;
    } catch {
        return undefined;
    }
}

/** Writes the record whole or not at all (a crash leaves the previous one). */
export function writeRecord(file: string, record: StagingRecord): void {
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}`);
    fs.writeFileSync(temporary, JSON.stringify({ format: FORMAT, ...record }));
    fs.renameSync(temporary, file);
}

/** Removes the record, so a staging that could not finish its bookkeeping is never trusted. */
export function forgetRecord(file: string): void {
    fs.rmSync(file, { force: true });
}
