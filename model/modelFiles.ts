import * as fs from "fs";
import * as path from "path";
import { LinkProblem, judgeLink } from "../contract/links";

/** A symbolic link found under the model folder that the image build could not copy as it is. */
export interface BadLink {
    /** The link itself. */
    path: string;
    /** What it points to, as written in the link. */
    target: string;
    /** The real path it resolves to, when it resolves. */
    real?: string;
    problem: LinkProblem;
}

/** A symbolic link the walk followed: it stays inside the model folder. */
export interface FollowedLink {
    path: string;
    /** What it points to, as written in the link. */
    target: string;
    /** The real path it resolves to. */
    real: string;
}

/** What a walk of one folder (a version, or any other entry of the base folder) found. */
export interface TreeScan {
    /** Bytes of every regular file under the folder, following links that stay inside the model folder. */
    sizeBytes: number;
    badLinks: BadLink[];
    followedLinks: FollowedLink[];
    /** Files and folders another user cannot read (files lack o+r, folders o+rx). */
    notWorldReadable: string[];
    /** Entries that are neither a file nor a folder (a socket, pipe or device): no image can hold them. */
    special: string[];
    /** Folders or files this process could not read at all, with the system's reason. */
    unreadable: { path: string; reason: string }[];
}

const OTHERS_READ = 0o004;
const OTHERS_READ_EXECUTE = 0o005;
// Windows has no POSIX mode bits: fs.Stat reports made-up ones there.
const CHECK_MODES = process.platform !== "win32";

/**
 * Walks `root` the way a copy into an image would see it. Links are followed only while they stay
 * inside `modelRoot` (the real path of the base folder); each real folder is entered once per walk,
 * so a link cycle ends.
 */
export function scanTree(root: string, modelRoot: string): TreeScan {
    const scan: TreeScan = { sizeBytes: 0, badLinks: [], followedLinks: [], notWorldReadable: [], unreadable: [], special: [] };
    const visited = new Set<string>();

    const visit = (entry: string, ancestors: ReadonlySet<string>): void => {
        let stat: fs.Stats;
        try {
            stat = fs.lstatSync(entry);
            if (stat.isSymbolicLink()) {
                const verdict = judgeLink(entry, modelRoot, ancestors);
                if (!verdict.ok) {
                    scan.badLinks.push({ path: entry, target: verdict.target, real: verdict.real, problem: verdict.problem });
                    return;
                }
                scan.followedLinks.push({ path: entry, target: verdict.target, real: verdict.real });
                stat = verdict.stat;
            }
        } catch (err) {
            scan.unreadable.push({ path: entry, reason: reasonOf(err) });
            return;
        }
        if (stat.isDirectory()) {
            visitFolder(entry, stat, ancestors);
        } else if (stat.isFile()) {
            scan.sizeBytes += stat.size;
            if (CHECK_MODES && (stat.mode & OTHERS_READ) === 0) {
                scan.notWorldReadable.push(entry);
            }
        } else {
            scan.special.push(entry);
        }
    };

    const visitFolder = (folder: string, stat: fs.Stats, ancestors: ReadonlySet<string>): void => {
        const real = fs.realpathSync(folder);
        if (visited.has(real)) {
            return;
        }
        visited.add(real);
        if (CHECK_MODES && (stat.mode & OTHERS_READ_EXECUTE) !== OTHERS_READ_EXECUTE) {
            scan.notWorldReadable.push(folder);
        }
        let names: string[];
        try {
            names = fs.readdirSync(folder);
        } catch (err) {
            scan.unreadable.push({ path: folder, reason: reasonOf(err) });
            return;
        }
        const below = new Set(ancestors).add(real);
        for (const name of names.sort()) {
            visit(path.join(folder, name), below);
        }
    };

    visit(root, new Set());
    return scan;
}

export function realPathOrNull(entry: string): string | null {
    try {
        return fs.realpathSync(entry);
    } catch {
        return null;
    }
}

/** The short system reason of a file-system error ("EACCES: permission denied"), without the stack. */
export function reasonOf(err: unknown): string {
    if (err instanceof Error) {
        const code = (err as NodeJS.ErrnoException).code;
        return code ? `${code}: ${err.message.replace(/^[A-Z]+: /, "").replace(/,.*$/, "")}` : err.message;
    }
    return String(err);
}
