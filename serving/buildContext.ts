/**
 * Stages the build context of a model image: the served version folders and nothing else from
 * the user's disk, plus the Dockerfile and (when needed) the model config. The same inputs always
 * give the same bytes, names and modes, so an image builder that hashes the context (as
 * `@pulumi/docker` does) sees an unchanged model as unchanged and rebuilds nothing.
 */
import * as fs from "fs";
import * as path from "path";
import { judgeLink, linkProblemMessage } from "../contract/links";
import { isInside } from "../contract/paths";
import { contextDigest } from "./contextDigest";
import { ContextWriter, DOCKERFILE_HEADERS, ModelImageSpec, modelBasePath, renderModelDockerfile, usesModelConfig } from "./dockerfile";
import { DEFAULT_MODEL_DELIVERY, ModelDelivery } from "./modelDelivery";
import { normalizeVersions, renderModelConfig } from "./modelConfig";
import { RecordedFile, fingerprint, forgetRecord, nowNs, readRecord, settled, writeRecord } from "./stagingRecord";
import { StagingError } from "./stagingError";

export { StagingError };

export interface StageOptions {
    /** Who stages it (`tfs build-context` or `ModelImage`): the Dockerfile's first line says so. */
    writer: ContextWriter;
    /** The model base folder: numeric version folders inside (`00000123` is version 123). */
    modelBaseDir: string;
    /** TF Serving model name (a DNS label). */
    modelName: string;
    /** Versions to bake and serve; each must have a version folder. */
    versions: readonly number[];
    /**
     * The context folder. Created if missing; if it exists it must be empty or an earlier staging by
     * either writer (its Dockerfile starts with one of our headers): everything in it that this staging does not write is
     * deleted. Keep it at a stable path so the builder's context hash is stable too.
     */
    outDir: string;
    /** Base image reference, e.g. `defaultBaseImage(gpu)`; not read for `imageVolume`, whose artifact has no base. */
    baseImage: string;
    /**
     * `embedded` (default): the Dockerfile bakes the model into `baseImage`. `imageVolume`: a model-only
     * artifact (`serving/dockerfile.ts`, `renderArtifactDockerfile`), with the model config file always.
     */
    delivery?: ModelDelivery;
    /** Version labels (`stable: 2`); each must name one of `versions`. Labels imply a model config file. */
    versionLabels?: Readonly<Record<string, number>>;
    /**
     * A file outside `outDir` where staging records what it saw (`serving/stagingRecord.ts`). With it,
     * a model file whose fingerprint still matches is neither compared nor hashed again, so an
     * unchanged model costs a few `stat` calls instead of reading its bytes three times. Default
     * none: every file is compared with its staged copy and the context is hashed.
     */
    recordFile?: string;
    /**
     * Warmup files by version (`model/stagedWarmup.ts`), staged as the version's
     * `assets.extra/tf_serving_warmup_requests` in place of any the model folder holds; the model folder
     * itself is never written. Each must name one of `versions`. Default none: the folder's own file, if any.
     */
    warmupFiles?: Readonly<Record<number, Uint8Array>>;
}

/** Where a version's warmup file sits in it (saved_model_warmup_util.h). */
const WARMUP_PATH = ["assets.extra", "tf_serving_warmup_requests"] as const;

/** One file of the staged context. */
export interface StagedFile {
    /** Path relative to the context folder, '/'-separated (e.g. `models/m/1/saved_model.pb`). */
    path: string;
    bytes: number;
}

export interface StagedContext {
    /** Absolute path of the context folder. */
    outDir: string;
    /** Absolute path of the Dockerfile inside it. */
    dockerfile: string;
    /** Every file of the context, sorted by path. */
    files: StagedFile[];
    /** Sum of `files[].bytes`. */
    totalBytes: number;
    /** How many files had to be written; 0 when an earlier staging was already identical. */
    written: number;
    /** How many model files were compared byte for byte with their staged copy (the others: written, or unchanged by the record). */
    compared: number;
    /** `contextDigest` of the staged context: file paths, modes and bytes. */
    digest: string;
    /** The digest came from the record (nothing in the context changed), not from reading the context. */
    digestReused: boolean;
    /** The versions baked in, ascending. */
    versions: number[];
}


/** Modes written into the context, whatever the user's umask or the source modes were. */
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
/**
 * Every staged file and folder gets this modification time (2000-01-01T00:00:00Z). Builders that
 * keep source times in COPY layers (BuildKit) then produce the same layer for the same model.
 */
const STAGED_MTIME = 946684800;
const COMPARE_CHUNK = 1 << 20;

type Planned = { kind: "copy"; source: string; bytes: number } | { kind: "write"; content: Buffer; bytes: number };

/** Stages the context (see the module comment). Throws `StagingError` for a problem the user can fix. */
export function stageBuildContext(options: StageOptions): StagedContext {
    const { spec, versions, dockerfile, modelConfig } = renderGenerated(options);
    const modelBase = realFolder(options.modelBaseDir, "model folder");
    const outDir = path.resolve(options.outDir);
    refuseOverlap(outDir, path.resolve(options.modelBaseDir), modelBase);

    const files = new Map<string, Planned>();
    const dirs = new Set<string>(["models", `models/${spec.modelName}`]);
    const text = (content: string): Planned => {
        const buffer = Buffer.from(content, "utf8");
        return { kind: "write", content: buffer, bytes: buffer.length };
    };
    files.set("Dockerfile", text(dockerfile));
    if (modelConfig !== undefined) {
        files.set("models/models.config", text(modelConfig));
    }
    const folders = versionFolders(modelBase);
    for (const version of versions) {
        const names = folders.get(version) ?? [];
        if (names.length !== 1) {
            const found = [...folders.values()].flat().sort();
            throw new StagingError(names.length === 0
                ? `${modelBase} has no folder for version ${version} (version folders found: ${found.join(", ") || "none"}); serve one of those or add the version`
                : `${modelBase} has several folders for version ${version} (${names.join(", ")}); TF Serving would pick one at random: keep one`);
        }
        collect(path.join(modelBase, names[0]), `models/${spec.modelName}/${version}`, modelBase, new Set(), files, dirs);
    }
    for (const [key, content] of Object.entries(options.warmupFiles ?? {})) {
        const version = Number(key);
        if (!versions.includes(version)) {
            throw new StagingError(`a warmup file was generated for version ${version}, which is not among the versions staged (${versions.join(", ")}): generate it for a staged version`);
        }
        const dir = `models/${spec.modelName}/${version}/${WARMUP_PATH[0]}`;
        const rel = `${dir}/${WARMUP_PATH[1]}`;
        // The generated file replaces the folder's own, and a folder's file or link at that path gives way too.
        for (const planned of [...files.keys()].filter((p) => p === dir || p.startsWith(`${rel}/`))) {
            files.delete(planned);
        }
        for (const planned of [...dirs].filter((d) => d === rel || d.startsWith(`${rel}/`))) {
            dirs.delete(planned);
        }
        dirs.add(dir);
        const buffer = Buffer.from(content);
        files.set(rel, { kind: "write", content: buffer, bytes: buffer.length });
    }

    // Every source is opened before the output folder is touched: a file this user cannot read
    // (the preflight reads names and sizes, not bytes) stops the staging with nothing written.
    for (const planned of files.values()) {
        if (planned.kind === "copy") {
            checkReadable(planned.source);
        }
    }
    const created = highestMissing(outDir);
    try {
        return stageInto(outDir, options, { files, dirs, versions });
    } catch (err) {
        // A folder this staging created is not left half-written (an earlier staging's is restaged next time).
        if (created !== undefined && fs.existsSync(created)) {
            fs.rmSync(created, { recursive: true, force: true });
        }
        throw err;
    }
}

function checkReadable(source: string): void {
    try {
        fs.closeSync(fs.openSync(source, "r"));
    } catch (err) {
        const e = err as NodeJS.ErrnoException;
        throw new StagingError(`cannot read ${source} (${e.code ?? e.message}); nothing was staged: make it readable by this user (chmod a+r ${source}) and stage again`);
    }
}

/** The highest folder of `dir`'s path that does not exist yet (what staging would create), or undefined. */
function highestMissing(dir: string): string | undefined {
    let missing: string | undefined;
    for (let at = dir; !fs.existsSync(at) && path.dirname(at) !== at; at = path.dirname(at)) {
        missing = at;
    }
    return missing;
}

/** Writes the planned files and folders into `outDir` and reports the staging. */
function stageInto(outDir: string, options: StageOptions, plan: { files: Map<string, Planned>; dirs: Set<string>; versions: number[] }): StagedContext {
    const { files, dirs, versions } = plan;
    const previous = options.recordFile === undefined ? undefined : readRecord(options.recordFile, outDir);
    prepareOutDir(outDir);
    const removed = removeStale(outDir, "", files, dirs);
    const sortedDirs = [...dirs].sort();
    for (const dir of sortedDirs) {
        makeFolder(path.join(outDir, dir));
    }
    const sorted = [...files.keys()].sort();
    const recorded: Record<string, RecordedFile> = {};
    let written = 0;
    let compared = 0;
    for (const rel of sorted) {
        const outcome = stageFile(path.join(outDir, rel), files.get(rel)!, previous?.files[rel]);
        recorded[rel] = outcome.record;
        written += outcome.how === "written" ? 1 : 0;
        compared += outcome.how === "compared" ? 1 : 0;
    }
    // Deepest first: writing into a folder changes its time, so folders are stamped after their contents.
    for (const dir of [...sortedDirs].reverse()) {
        const full = path.join(outDir, dir);
        fs.chmodSync(full, DIR_MODE);
        fs.utimesSync(full, STAGED_MTIME, STAGED_MTIME);
    }
    const unchanged = previous !== undefined && written === 0 && removed === 0
        && sameList(previous.dirs, sortedDirs) && sameList(Object.keys(previous.files).sort(), sorted)
        && sorted.every((rel) => previous.files[rel].stagedFingerprint === recorded[rel].stagedFingerprint);
    const digest = unchanged ? previous.digest : contextDigest(outDir);
    if (options.recordFile !== undefined) {
        // A staged file that moved while it was hashed would pair the digest with the wrong bytes: record nothing then.
        const stable = sorted.every((rel) => fingerprint(path.join(outDir, rel)) === recorded[rel].stagedFingerprint);
        if (stable) {
            writeRecord(options.recordFile, { outDir, dirs: sortedDirs, files: recorded, digest });
        } else {
            forgetRecord(options.recordFile);
        }
    }
    const staged = sorted.map((rel) => ({ path: rel, bytes: files.get(rel)!.bytes }));
    return {
        outDir,
        dockerfile: path.join(outDir, "Dockerfile"),
        files: staged,
        totalBytes: staged.reduce((sum, f) => sum + f.bytes, 0),
        written,
        compared,
        digest,
        digestReused: unchanged,
        versions,
    };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
    return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The Dockerfile and model config text; an invalid name, version or label becomes a StagingError. */
function renderGenerated(options: StageOptions): { spec: ModelImageSpec; versions: number[]; dockerfile: string; modelConfig?: string } {
    try {
        const versions = normalizeVersions(options.versions);
        const spec: ModelImageSpec = {
            writer: options.writer, baseImage: options.baseImage, modelName: options.modelName, versions, versionLabels: options.versionLabels,
        };
        const delivery = options.delivery ?? DEFAULT_MODEL_DELIVERY;
        // The artifact's config names the same base path: the pod mounts the artifact there.
        const modelConfig = delivery === "imageVolume" || usesModelConfig(spec)
            ? renderModelConfig([{ name: spec.modelName, basePath: modelBasePath(spec.modelName), versions, labels: { ...options.versionLabels } }])
            : undefined;
        return { spec, versions, dockerfile: renderModelDockerfile(spec, delivery), modelConfig };
    } catch (err) {
        throw new StagingError((err as Error).message);
    }
}

/** Numeric version folders of the model, by version number (TF Serving reads `00000123` as 123). */
function versionFolders(modelBase: string): Map<number, string[]> {
    const folders = new Map<number, string[]>();
    for (const name of fs.readdirSync(modelBase).sort()) {
        const version = Number(name);
        if (/^\d+$/.test(name) && Number.isSafeInteger(version)) {
            folders.set(version, [...(folders.get(version) ?? []), name]);
        }
    }
    return folders;
}

/**
 * Adds `source` (a file or folder) to the plan under `rel`. Links are followed only to a real path
 * inside the model; `ancestors` holds the real folders above, so a link back up is a cycle.
 */
function collect(source: string, rel: string, modelBase: string, ancestors: Set<string>, files: Map<string, Planned>, dirs: Set<string>): void {
    let stat = fs.lstatSync(source);
    if (stat.isSymbolicLink()) {
        const verdict = judgeLink(source, modelBase, ancestors);
        if (!verdict.ok) {
            throw new StagingError(linkProblemMessage(source, verdict));
        }
        stat = verdict.stat;
    }
    if (stat.isDirectory()) {
        const real = fs.realpathSync(source);
        dirs.add(rel);
        const below = new Set(ancestors).add(real);
        for (const name of fs.readdirSync(source).sort()) {
            collect(path.join(source, name), `${rel}/${name}`, modelBase, below, files, dirs);
        }
    } else if (stat.isFile()) {
        files.set(rel, { kind: "copy", source, bytes: stat.size });
    } else {
        throw new StagingError(`${source} is neither a file nor a folder (a socket, pipe or device): remove it from the model`);
    }
}

function realFolder(folder: string, what: string): string {
    let real: string;
    try {
        real = fs.realpathSync(folder);
    } catch {
        throw new StagingError(`${what} ${path.resolve(folder)} does not exist: pass the folder that holds the numeric version folders`);
    }
    if (!fs.statSync(real).isDirectory()) {
        throw new StagingError(`${what} ${path.resolve(folder)} is a file, not a folder: pass the folder that holds the numeric version folders`);
    }
    return real;
}

/** Refuses an output folder inside the model (it would be copied into itself) or around it (staging would delete the model). */
function refuseOverlap(outDir: string, modelBase: string, realModelBase: string): void {
    const realOut = fs.existsSync(outDir) ? fs.realpathSync(outDir) : outDir;
    for (const out of new Set([outDir, realOut])) {
        for (const model of new Set([modelBase, realModelBase])) {
            if (isInside(out, model) || isInside(model, out)) {
                throw new StagingError(`output folder ${outDir} overlaps the model folder ${modelBase}: choose an output folder outside the model (e.g. ./build/<model-name>)`, "out");
            }
        }
    }
}

/** Creates the output folder, or checks that an existing one is empty or ours to overwrite. */
function prepareOutDir(outDir: string): void {
    if (!fs.existsSync(outDir)) {
        makeFolder(outDir);
        return;
    }
    if (!fs.statSync(outDir).isDirectory()) {
        throw new StagingError(`output folder ${outDir} is not a folder: choose a folder path`, "out");
    }
    if (fs.readdirSync(outDir).length === 0) {
        return;
    }
    const dockerfile = path.join(outDir, "Dockerfile");
    const written = fs.existsSync(dockerfile) && fs.statSync(dockerfile).isFile() ? fs.readFileSync(dockerfile, "utf8") : "";
    if (!DOCKERFILE_HEADERS.some((header) => written.startsWith(header))) {
        throw new StagingError(`output folder ${outDir} is not empty and was not written by tfs build-context or a ModelImage; choose a new or empty folder (staging deletes whatever it did not write)`, "out");
    }
}

/**
 * `mkdir -p` one level at a time. Node's recursive mode retries without end where a parent exists
 * but refuses new entries with ENOENT (under /proc); here every failure is one clear error.
 */
function makeFolder(dir: string): void {
    const missing: string[] = [];
    for (let at = dir; !fs.existsSync(at); at = path.dirname(at)) {
        missing.unshift(at);
        if (path.dirname(at) === at) {
            break;
        }
    }
    for (const folder of missing) {
        try {
            fs.mkdirSync(folder);
        } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            if (code === "EEXIST" && fs.statSync(folder).isDirectory()) {
                continue;
            }
            const parent = path.dirname(folder);
            const why = code === "ENOTDIR" ? `${firstFileAbove(folder)} is a file, not a folder`
                : code === "EACCES" || code === "EPERM" ? `${parent} is not writable by this user`
                : code === "EROFS" ? `${parent} is on a read-only file system`
                : `${parent} does not take new folders (${code ?? "error"}: a system or virtual file system)`;
            throw new StagingError(`cannot create the output folder ${dir}: ${why}; choose a folder you can write, e.g. ./build/<model-name>`, "out");
        }
    }
}

function firstFileAbove(entry: string): string {
    for (let at = path.dirname(entry); path.dirname(at) !== at; at = path.dirname(at)) {
        if (fs.existsSync(at) && !fs.statSync(at).isDirectory()) {
            return at;
        }
    }
    return path.dirname(entry);
}

/** Deletes everything under `outDir/rel` that the plan does not hold, including files where a folder is planned and links; returns how many entries it deleted. */
function removeStale(outDir: string, rel: string, files: Map<string, Planned>, dirs: Set<string>): number {
    let removed = 0;
    for (const name of fs.readdirSync(path.join(outDir, rel))) {
        const childRel = rel === "" ? name : `${rel}/${name}`;
        const full = path.join(outDir, childRel);
        const stat = fs.lstatSync(full);
        if (stat.isDirectory() && dirs.has(childRel)) {
            removed += removeStale(outDir, childRel, files, dirs);
        } else if (!(stat.isFile() && files.has(childRel))) {
            fs.rmSync(full, { recursive: true, force: true });
            removed++;
        }
    }
    return removed;
}

/**
 * Stages one planned file: kept as it is when the record vouches for the source and the staged copy,
 * else kept after a byte-for-byte comparison, else written. Mode and time are fixed only when they
 * differ, so an untouched staged file keeps its fingerprint.
 */
function stageFile(dest: string, planned: Planned, previous: RecordedFile | undefined): { how: "kept" | "compared" | "written"; record: RecordedFile } {
    let how: "kept" | "compared" | "written";
    let source: Pick<RecordedFile, "source" | "sourceFingerprint" | "settled"> = {};
    if (planned.kind === "write") {
        how = fs.existsSync(dest) && fs.readFileSync(dest).equals(planned.content) ? "kept" : "written";
        if (how === "written") {
            fs.writeFileSync(dest, planned.content);
        }
    } else {
        // Looked at before the bytes are read: a write during the copy then shows at the next staging.
        const seenAt = nowNs();
        const sourceFingerprint = fingerprint(planned.source);
        if (sourceFingerprint === undefined) {
            throw new StagingError(`${planned.source} disappeared while the build context was staged: stage again once the model folder is complete`);
        }
        source = { source: planned.source, sourceFingerprint, settled: settled(sourceFingerprint, seenAt) };
        const vouched = previous !== undefined && previous.settled === true && previous.source === planned.source
            && previous.sourceFingerprint === sourceFingerprint && previous.stagedFingerprint === fingerprint(dest);
        if (vouched) {
            how = "kept";
        } else if (fs.existsSync(dest) && fs.statSync(dest).size === planned.bytes && sameContent(dest, planned.source)) {
            how = "compared";
        } else {
            try {
                fs.copyFileSync(planned.source, dest, fs.constants.COPYFILE_FICLONE);
            } catch (err) {
                throw new StagingError(`cannot copy ${planned.source} into the build context: ${(err as Error).message}`);
            }
            how = "written";
        }
    }
    const stat = fs.statSync(dest);
    if ((stat.mode & 0o7777) !== FILE_MODE) {
        fs.chmodSync(dest, FILE_MODE);
    }
    // Not the access time: reading the context (the builder does) moves it, and it is in no layer.
    if (stat.mtimeMs !== STAGED_MTIME * 1000) {
        fs.utimesSync(dest, STAGED_MTIME, STAGED_MTIME);
    }
    return { how, record: { ...source, stagedFingerprint: fingerprint(dest)! } };
}

function sameContent(a: string, b: string): boolean {
    const fa = fs.openSync(a, "r");
    try {
        const fb = fs.openSync(b, "r");
        try {
            const bufA = Buffer.alloc(COMPARE_CHUNK);
            const bufB = Buffer.alloc(COMPARE_CHUNK);
            for (;;) {
                const readA = fs.readSync(fa, bufA, 0, COMPARE_CHUNK, null);
                const readB = fs.readSync(fb, bufB, 0, COMPARE_CHUNK, null);
                if (readA !== readB || !bufA.subarray(0, readA).equals(bufB.subarray(0, readB))) {
                    return false;
                }
                if (readA === 0) {
                    return true;
                }
            }
        } finally {
            fs.closeSync(fb);
        }
    } finally {
        fs.closeSync(fa);
    }
}
