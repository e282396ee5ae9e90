import * as fs from "fs";
import * as path from "path";
import { isInside } from "../contract/paths";

/** A symbolic link found under the model folder that the image build could not copy as it is. */
export interface BadLink {
    /** The link itself. */
    path: string;
    /** What it points to, as written in the link. */
    target: string;
    /** "outside": resolves to a path outside the model folder; "broken": resolves to nothing. */
    problem: "outside" | "broken";
}

/** What a walk of one folder (a version, or any other entry of the base folder) found. */
export interface TreeScan {
    /** Bytes of every regular file under the folder, following links that stay inside the model folder. */
    sizeBytes: number;
    badLinks: BadLink[];
    /** Files and folders another user cannot read (files lack o+r, folders o+rx). */
    notWorldReadable: string[];
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
    const scan: TreeScan = { sizeBytes: 0, badLinks: [], notWorldReadable: [], unreadable: [] };
    const visited = new Set<string>();

    const visit = (entry: string): void => {
        let stat: fs.Stats;
        try {
            stat = fs.lstatSync(entry);
            if (stat.isSymbolicLink()) {
                const target = fs.readlinkSync(entry);
                const real = realPathOrNull(entry);
                if (real === null) {
                    scan.badLinks.push({ path: entry, target, problem: "broken" });
                    return;
                }
                if (!isInside(real, modelRoot)) {
                    scan.badLinks.push({ path: entry, target, problem: "outside" });
                    return;
                }
                stat = fs.statSync(entry);
            }
        } catch (err) {
            scan.unreadable.push({ path: entry, reason: reasonOf(err) });
            return;
        }
        if (stat.isDirectory()) {
            visitFolder(entry, stat);
        } else if (stat.isFile()) {
            scan.sizeBytes += stat.size;
            if (CHECK_MODES && (stat.mode & OTHERS_READ) === 0) {
                scan.notWorldReadable.push(entry);
            }
        }
    };

    const visitFolder = (folder: string, stat: fs.Stats): void => {
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
        for (const name of names.sort()) {
            visit(path.join(folder, name));
        }
    };

    visit(root);
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
