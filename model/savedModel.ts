import * as fs from "fs";
import * as path from "path";
import { BadLink, FollowedLink, reasonOf, realPathOrNull, scanTree, TreeScan } from "./modelFiles";
import { linkProblemMessage } from "../contract/links";
import { isInside } from "../contract/paths";
import { plural } from "../contract/quantity";
import { DEFAULT_SIGNATURE, SignatureSpec, isInternalSignature } from "../contract/signature";
import { decodeSavedModel, isRefDtype, MetaGraphSpec, parseSavedModelText } from "./tfProto";
import { readWarmupFile, WARMUP_FILE, warmupProblems } from "./warmup";
import { defaultBaseImage } from "../serving/images";
import { baseImageServingVersion, formatLine, isNewerLine, parseTensorflowVersion, servingTensorflow } from "../serving/tensorflowVersion";

/** One numeric version folder, as TF Serving would find it. */
export interface VersionReport {
    /** The version number (the folder name read as an integer: `00000123` is 123). */
    version: number;
    /** Absolute path of the version folder. */
    path: string;
    /** The graph file TensorFlow would read (`.pb` wins over `.pbtxt`), null if there is none. */
    graphFile: "saved_model.pb" | "saved_model.pbtxt" | null;
    /** Bytes of every file under the version folder: a lower bound for the memory the version needs. */
    sizeBytes: number;
    /** Tags of the MetaGraph TF Serving would load (the one whose tag set equals the requested tags); [] if none. */
    tags: string[];
    /** SignatureDefs of that MetaGraph by name; {} if none was found or the graph file could not be read. */
    signatures: Record<string, SignatureSpec>;
    /** Whether TF Serving would load this version under the requested version policy. */
    served: boolean;
    /** Whether the version has a `variables/` folder. */
    hasVariables: boolean;
    /** Whether the loaded MetaGraph restores variables at load (it has a `saver_def`); false if it has none or the graph was not read. */
    restoresVariables?: boolean;
    /** Tag sets of every MetaGraph in the graph file, in file order. */
    metaGraphTags: string[][];
    /** The TensorFlow that exported the loaded MetaGraph (`meta_info_def.tensorflow_version`, e.g. "2.14.0"); null if unrecorded or unread. */
    tensorflowVersion: string | null;
    /** Its `meta_info_def.tensorflow_git_version` ("unknown" for pip builds, "v1.0.0-rc1-102-g1536a84" for others); null if unrecorded or unread. */
    tensorflowGitVersion: string | null;
    /**
     * Records in `assets.extra/tf_serving_warmup_requests` that TF Serving would read (up to the first it cannot);
     * absent when the version has no warmup file. Each is replayed at every load.
     */
    warmupRecords?: number;
}

/** The server the model was checked against. */
export interface ServerReport {
    /** The base image the server runs from. */
    baseImage: string;
    /** The TF Serving release its tag names ("2.21.0"), null when the tag names none (`latest`, a tag of one's own). */
    servingVersion: string | null;
    /** The TensorFlow release line that release is built on ("2.21"); null when unknown, and then exporters are not compared. */
    tensorflow: string | null;
}

/** One problem: `code` is stable (tests and tools match on it), `message` names the path and the fix. */
export interface Finding { code: string; message: string; path?: string }

export interface PreflightReport {
    /** True when TF Serving would load every served version and find the requested signature. */
    ok: boolean;
    /** Absolute path of the model base folder. */
    baseDir: string;
    /** Every numeric version folder, lowest first. */
    versions: VersionReport[];
    /** The highest served version, null if none would be served. */
    servedVersion: number | null;
    /** Every served version, lowest first. */
    servedVersions: number[];
    errors: Finding[];
    warnings: Finding[];
    /** The signature that was checked. */
    signature: string;
    /** The MetaGraph tag set that was looked for (TF Serving's `--saved_model_tags`). */
    tags: string[];
    server: ServerReport;
}

export interface PreflightOptions {
    /** Signature clients call; it must exist in every served version. Default "serving_default" (REST's default). */
    signature?: string;
    /** Versions to serve (a `specific` policy). Default: the highest only, like TF Serving's `latest { num_versions: 1 }`. */
    versions?: number[];
    /** MetaGraph tag set TF Serving loads (`--saved_model_tags`). Default ["serve"]. */
    tags?: string[];
    /** The image the server runs from; its tag tells which TensorFlow loads the graphs. Default the pinned release. */
    baseImage?: string;
    /** How the caller's user asks for a signature or tags, for the fixes messages suggest. Default: `tfs preflight`'s flags. */
    settings?: PreflightSettings;
}

/** Each renders the setting that asks for `value`: `--signature predict` on the command line, `tf-serving:signature: predict` in a stack. */
export interface PreflightSettings {
    signature(value: string): string;
    tags(value: string): string;
    /** Optional, so that settings written before it still type-check; without it a fix says "base image REF". */
    baseImage?(value: string): string;
}

const CLI_SETTINGS: PreflightSettings = { signature: (v) => `--signature ${v}`, tags: (v) => `--tags ${v}`, baseImage: (v) => `--base-image ${v}` };

const DEFAULT_TAGS = ["serve"];
/** In the order TensorFlow's reader tries them: a `.pb` hides a `.pbtxt` beside it. */
const GRAPH_FILES = ["saved_model.pb", "saved_model.pbtxt"] as const;
/** What an export writes next to its graph file: what a flat layout must move into a version folder. */
const SAVED_MODEL_PARTS = [...GRAPH_FILES, "variables", "assets", "assets.extra", "fingerprint.pb", "keras_metadata.pb"];
const INT64_MAX = 9223372036854775807n;
/** A serialized protobuf message cannot exceed 2 GiB; TensorFlow refuses a larger saved_model.pb. */
const PROTOBUF_MAX_BYTES = 2 ** 31 - 1;
/** Keras's own formats (Keras 3's `.keras` zip, HDF5): what `model.save` writes, which TF Serving cannot read. */
const KERAS_FILE = /\.(keras|h5|hdf5)$/;
/** A folder name TF Serving's strtoll-style parser would still read as a number ("+5", " 5", "-1"). */
const LOOSE_NUMBER = /^\s*[+-]?\d+\s*$/;
const SHARD = /^variables\.data-(\d+)-of-(\d+)$/;
const EXAMPLES_SHOWN = 3;
const FINDINGS_PER_CODE = 5;

interface VersionEntry { name: string; version: bigint }

type Sink = (code: string, message: string, where?: string) => void;

/**
 * Where one version's findings go. `fail` is for what stops TF Serving from loading the version: an error if the
 * version is served, a (marked) warning if it is not. `note` is always a warning.
 */
interface VersionSinks { fail: Sink; note: Sink; error: Sink; settings: PreflightSettings; server: ServerReport }

/**
 * Reads a model base folder the way TF Serving does and reports what it would serve and what would stop it.
 * Synchronous; never throws for a bad model: every problem is a Finding in the report.
 */
export function preflight(baseDir: string, options: PreflightOptions = {}): PreflightReport {
    const base = path.resolve(baseDir);
    const report: PreflightReport = {
        ok: false, baseDir: base, versions: [], servedVersion: null, servedVersions: [], errors: [], warnings: [],
        signature: options.signature ?? DEFAULT_SIGNATURE,
        tags: options.tags ?? DEFAULT_TAGS,
        server: serverOf(options.baseImage ?? defaultBaseImage(false)),
    };
    const error: Sink = (code, message, where) => report.errors.push(finding(code, message, where));
    const warn: Sink = (code, message, where) => report.warnings.push(finding(code, message, where));

    const names = readBase(base, error);
    if (names !== null) {
        const realBase = realPathOrNull(base) ?? base;
        const { versions, others } = findVersions(base, names, error, warn);
        const served = chooseServed(base, versions, options.versions, error);
        if (versions.length === 0) {
            explainNoVersions(base, names, error);
        } else {
            warnAboutOthers(base, names, others, warn);
        }
        const scans: TreeScan[] = [];
        const failed = new Set<bigint>();
        const mayNotLoad = new Set<bigint>();
        for (const entry of versions) {
            const isServed = served.has(entry.version);
            const marked: Sink = (code, message, where) => warn(code, `version ${entry.version} (not served): ${message}`, where);
            const failSink = isServed ? error : marked;
            const fail: Sink = (code, message, where) => { failed.add(entry.version); failSink(code, message, where); };
            const noteSink = isServed ? warn : marked;
            const note: Sink = (code, message, where) => { if (LOAD_RISKS.has(code)) { mayNotLoad.add(entry.version); } noteSink(code, message, where); };
            const sinks = { fail, note, error, settings: options.settings ?? CLI_SETTINGS, server: report.server };
            const scan = scanTree(path.join(base, entry.name), realBase);
            scans.push(scan);
            report.versions.push(readVersion(path.join(base, entry.name), entry.version, isServed, scan, report, sinks));
        }
        // Everything else under the base goes into the image too (ignored entries, a shadowed duplicate version).
        // With no version at all the folder is not a model (it may be /etc): NO_VERSIONS says so once, and
        // nothing suggests changing what lies in it.
        const versionNames = new Set(versions.map((v) => v.name));
        for (const name of versions.length === 0 ? [] : names.filter((n) => !versionNames.has(n))) {
            const scan = scanTree(path.join(base, name), realBase);
            reportLinks(scan.badLinks, warn, error);
            scans.push(scan);
        }
        if (versions.length > 0) {
            reportModes(base, scans, warn);
        }
        const unserved = versions.filter((v) => !served.has(v.version));
        if (unserved.length > 0 && served.size > 0) {
            warnUnserved(base, unserved, versions.flatMap((v, i) => (served.has(v.version) ? scans[i].followedLinks.map((link) => ({ ...link, by: v.version })) : [])),
                options.versions?.length ? "not among the requested versions" : "TF Serving's default policy serves only the highest", warn,
                {
                    failedServed: versions.filter((v) => served.has(v.version) && failed.has(v.version)).map((v) => v.version), failed,
                    riskyServed: versions.filter((v) => served.has(v.version) && mayNotLoad.has(v.version)).map((v) => v.version), mayNotLoad,
                });
        }
        report.servedVersions = [...served].sort(compareBig).map(Number);
        report.servedVersion = report.servedVersions.length > 0 ? report.servedVersions[report.servedVersions.length - 1] : null;
    }
    report.ok = report.errors.length === 0;
    report.errors = bounded(report.errors);
    report.warnings = bounded(report.warnings);
    return report;
}

/**
 * The warnings that say a version may fail to load on the server (the rest say it loads, with a
 * caveat): while a served version has one, an unserved version without is the one known to load.
 */
const LOAD_RISKS = new Set(["NEWER_TENSORFLOW"]);

/**
 * VERSIONS_NOT_SERVED: each unserved version may be removed, unless a served version links into it
 * (`2/variables -> ../1/variables`): removing it would break the served one, so that one is kept; or
 * unless a served version cannot load, or may not (a LOAD_RISKS warning), and this one passes without:
 * it is the way back, so the advice is to keep it, or serve it.
 */
function warnUnserved(base: string, unserved: VersionEntry[], servedLinks: (FollowedLink & { by: bigint })[], why: string, warn: Sink,
    loads: { failedServed: bigint[]; failed: Set<bigint>; riskyServed: bigint[]; mayNotLoad: Set<bigint> }): void {
    const linkInto = (entry: VersionEntry) => {
        const real = realPathOrNull(path.join(base, entry.name));
        return real === null ? undefined : servedLinks.find((link) => isInside(link.real, real));
    };
    // While a served version cannot load (or may not), an unserved one that passes is the way out, not a file to delete.
    const fallback = (entry: VersionEntry) => (loads.failedServed.length > 0 && !loads.failed.has(entry.version))
        || (loads.riskyServed.length > 0 && !loads.failed.has(entry.version) && !loads.mayNotLoad.has(entry.version));
    const kept = unserved.map((entry) => ({ entry, link: linkInto(entry) }));
    const removable = kept.filter((k) => k.link === undefined && !fallback(k.entry)).map((k) => k.entry.version);
    const loadable = kept.filter((k) => k.link === undefined && fallback(k.entry)).map((k) => k.entry.version);
    const one = unserved.length === 1;
    const them = loadable.length === 1 ? "it" : "them";
    const serve = `serve ${them} (config key "versions": [${loadable.join(", ")}], or --version ${loadable[loadable.length - 1]} on the command line)`;
    const keep = loadable.length === 0 ? [] : loads.failedServed.length > 0
        ? [`keep ${one ? "it" : loadable.join(", ")}: unlike served version ${loads.failedServed.join(", ")}, which cannot load, ${loadable.length === 1 ? "it passes" : "they pass"} this check; `
            + `${serve} until ${loads.failedServed.join(", ")} is fixed`]
        : [`keep ${one ? "it" : loadable.join(", ")}: served version ${loads.riskyServed.join(", ")} may not load (see its NEWER_TENSORFLOW warning), `
            + `and ${loadable.length === 1 ? "it has" : "they have"} no such warning; ${serve} if ${loads.riskyServed.join(", ")} fails to load`];
    const advice = [
        ...keep,
        ...(removable.length === 0 ? [] : [`remove ${one ? "it" : removable.join(", ")} to keep the image small, or serve ${removable.length === 1 ? "it" : "them"} too (config key "versions", or --version on the command line)`]),
        ...kept.filter((k) => k.link !== undefined).map(({ entry, link }) =>
            `keep ${one ? "it" : entry.version}: served version ${link!.by} links into it (${link!.path} -> ${link!.target})`),
    ];
    warn("VERSIONS_NOT_SERVED", `${one ? "Version" : "Versions"} ${unserved.map((v) => v.version).join(", ")} in ${base} ${one ? "is" : "are"} not served `
        + `(${why}): ${advice.join("; ")}.`, base);
}

/** At most FINDINGS_PER_CODE findings of each code, then one that counts the rest: the answer stays readable. */
function bounded(findings: Finding[]): Finding[] {
    const seen = new Map<string, number>();
    const kept = findings.filter((f) => {
        const n = (seen.get(f.code) ?? 0) + 1;
        seen.set(f.code, n);
        return n <= FINDINGS_PER_CODE;
    });
    for (const [code, n] of seen) {
        if (n > FINDINGS_PER_CODE) {
            kept.push({ code, message: `... and ${n - FINDINGS_PER_CODE} more ${code} problems like those above.` });
        }
    }
    return kept;
}

function readBase(base: string, error: Sink): string[] | null {
    if (base.includes("\0")) {
        // Node refuses such a path before asking the system (ERR_INVALID_ARG_VALUE): not a permissions problem.
        error("BASE_INVALID_PATH", `${JSON.stringify(base)} contains a NUL byte (\\0), which no file name can hold: fix the path (a stray escape in a config value?).`, base);
        return null;
    }
    let stat: fs.Stats;
    try {
        stat = fs.statSync(base);
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") {
            error("BASE_NOT_FOUND", `Model folder ${base} does not exist: pass the model's base folder, the one that holds numbered version folders (${path.join(base, "1", "saved_model.pb")}).`, base);
        } else {
            error("BASE_UNREADABLE", `Cannot read model folder ${base} (${reasonOf(err)}): fix its permissions.`, base);
        }
        return null;
    }
    if (!stat.isDirectory()) {
        const hint = isGraphFile(path.basename(base))
            ? ` Pass the base folder above the version folder instead: ${path.dirname(path.dirname(base))} if this file sits in a version folder, otherwise move it into a new version folder (${path.join(path.dirname(base), "1")}/).`
            : KERAS_FILE.test(base)
                ? ` ${kerasExport(base, path.join(path.dirname(base), "1"))} Then pass ${path.dirname(base)} as the model folder.`
                : "";
        error("BASE_NOT_A_FOLDER", `${base} is a file, not a folder: pass the model's base folder, the one that holds numbered version folders such as 1/.${hint}`, base);
        return null;
    }
    try {
        return fs.readdirSync(base).sort();
    } catch (err) {
        error("BASE_UNREADABLE", `Cannot list model folder ${base} (${reasonOf(err)}): fix its permissions.`, base);
        return null;
    }
}

/** Splits the base folder's entries into versions (numeric names, int64) and the rest, as TF Serving does. */
function findVersions(base: string, names: string[], error: Sink, warn: Sink): { versions: VersionEntry[]; others: string[] } {
    const byVersion = new Map<bigint, string>();
    const others: string[] = [];
    // Sorted names: when two names read as the same number, TF Serving keeps the later one.
    for (const name of names) {
        const version = /^\d+$/.test(name) ? BigInt(name) : null;
        if (version === null || version > INT64_MAX) {
            others.push(name);
            if (version === null && LOOSE_NUMBER.test(name)) {
                error("ODD_VERSION_NAME", `TF Serving reads the folder name "${name}" in ${base} as a version number: rename it to a plain positive number such as ${name.trim().replace(/^[+-]/, "")}.`, path.join(base, name));
            }
            continue;
        }
        const previous = byVersion.get(version);
        if (previous !== undefined) {
            warn("DUPLICATE_VERSION", `${path.join(base, previous)} and ${path.join(base, name)} are both version ${version}; TF Serving loads ${name} and ignores ${previous}: remove one.`, path.join(base, previous));
        }
        byVersion.set(version, name);
    }
    const versions = [...byVersion.entries()].map(([version, name]) => ({ name, version })).sort((a, b) => compareBig(a.version, b.version));
    return { versions, others };
}

function chooseServed(base: string, versions: VersionEntry[], requested: number[] | undefined, error: Sink): Set<bigint> {
    if (!requested || requested.length === 0 || versions.length === 0) {
        // With no version at all, NO_VERSIONS or FLAT_LAYOUT already says what is wrong.
        return new Set(versions.length > 0 ? [versions[versions.length - 1].version] : []);
    }
    const present = new Set(versions.map((v) => v.version));
    const served = new Set<bigint>();
    for (const wanted of requested) {
        const version = Number.isSafeInteger(wanted) ? BigInt(wanted) : null;
        if (version !== null && present.has(version)) {
            served.add(version);
        } else {
            error("VERSION_NOT_FOUND", `Version ${wanted} was requested but ${base} has no folder for it (it has ${versions.map((v) => v.version).join(", ")}): add ${path.join(base, String(wanted))}/ or request a version that exists.`, base);
        }
    }
    return served;
}

function explainNoVersions(base: string, names: string[], error: Sink): void {
    const flat = names.filter(isTopOfExport);
    if (flat.length > 0) {
        const target = path.join(base, "1");
        const parts = names.filter((name) => SAVED_MODEL_PARTS.includes(name)).map((name) => path.join(base, name));
        // A numeric base is most likely a version folder passed by mistake: then the fix is the parent.
        const fix = /^\d+$/.test(path.basename(base))
            ? `this looks like a version folder itself: pass its parent, ${path.dirname(base)}`
            : `move them into ${target}/ (mkdir ${target} && mv ${parts.join(" ")} ${target}/)`;
        error("FLAT_LAYOUT", `${base} holds ${flat.join(" and ")} directly, but TF Serving only looks inside numbered version folders and would wait forever for a version: ${fix}.`, base);
        return;
    }
    const nested = names.filter((name) => isDirectory(path.join(base, name)) && listOrEmpty(path.join(base, name)).some((child) => /^\d+$/.test(child)));
    const unversioned = names.filter((name) => GRAPH_FILES.some((file) => fs.existsSync(path.join(base, name, file))));
    const hints = [
        ...nested.map((name) => `${path.join(base, name)} holds numbered folders: did you mean that folder as the base?`),
        ...unversioned.map((name) => `${path.join(base, name)} holds a SavedModel: rename it to a number (${path.join(base, "1")}).`),
    ];
    const found = names.length > 0 ? `found only ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", ..." : ""}` : "it is empty";
    const keras = names.find((name) => KERAS_FILE.test(name) && isFile(path.join(base, name)));
    const fix = keras !== undefined
        ? kerasExport(path.join(base, keras), path.join(base, "1"))
        : `Put the SavedModel in ${path.join(base, "1")}/ (saved_model.pb and variables/).`;
    error("NO_VERSIONS", `No numeric version folder in ${base} (${found}); TF Serving would log "No versions of servable ... found" and wait forever. `
        + `${fix}${hints.length > 0 ? " " + hints.join(" ") : ""}`, base);
}

function warnAboutOthers(base: string, names: string[], others: string[], warn: Sink): void {
    const stray = names.filter(isTopOfExport);
    if (stray.length > 0) {
        warn("STRAY_MODEL_FILES", `${stray.map((n) => path.join(base, n)).join(" and ")} sit${stray.length === 1 ? "s" : ""} outside any version folder; TF Serving ignores ${stray.length === 1 ? "it" : "them"}: move into a version folder or delete.`, base);
    }
    // Names TF Serving would read as numbers were reported as ODD_VERSION_NAME already.
    const ignored = others.filter((name) => !stray.includes(name) && (/^\d+$/.test(name) || !LOOSE_NUMBER.test(name)));
    if (ignored.length > 0) {
        warn("IGNORED_ENTRIES", `TF Serving ignores ${ignored.map((n) => `"${n}"`).join(", ")} in ${base}: only numeric folder names are versions.`, base);
    }
}

function readVersion(dir: string, version: bigint, served: boolean, scan: TreeScan, report: PreflightReport, sinks: VersionSinks): VersionReport {
    const { fail, note } = sinks;
    const result: VersionReport = {
        version: Number(version), path: dir, graphFile: null, sizeBytes: scan.sizeBytes, tags: [], signatures: {}, served, hasVariables: false, metaGraphTags: [],
        tensorflowVersion: null, tensorflowGitVersion: null,
    };
    reportLinks(scan.badLinks, fail, sinks.error);
    for (const where of scan.special) {
        fail("SPECIAL_FILE", `${where} is neither a file nor a folder (a socket, pipe or device), which no image can hold: remove it from the model.`, where);
    }
    for (const { path: where, reason } of scan.unreadable) {
        fail("UNREADABLE", `Cannot read ${where} (${reason}): fix its permissions (chmod -R a+rX ${report.baseDir}).`, where);
    }
    if (!isDirectory(dir)) {
        if (fs.existsSync(dir)) {
            fail("VERSION_NOT_A_FOLDER", `${dir} is a file, but its numeric name makes TF Serving take it for version ${version}: delete or rename it.`, dir);
        }
        return result;
    }
    result.graphFile = GRAPH_FILES.find((file) => isFile(path.join(dir, file))) ?? null;
    if (result.graphFile === null) {
        fail("NO_GRAPH_FILE", `${dir} has no saved_model.pb (or saved_model.pbtxt), so TensorFlow cannot load version ${version}: ${graphFileHint(dir)}`, dir);
    } else {
        if (result.graphFile === "saved_model.pb" && isFile(path.join(dir, "saved_model.pbtxt"))) {
            note("PBTXT_IGNORED", `${dir} has both saved_model.pb and saved_model.pbtxt; TensorFlow reads only the .pb: delete the one you do not mean.`, dir);
        }
        readGraph(path.join(dir, result.graphFile), result, report, sinks);
    }
    result.hasVariables = isDirectory(path.join(dir, "variables"));
    checkVariables(dir, result.hasVariables, result.restoresVariables === true, sinks);
    checkWarmup(dir, version, result, report.baseDir, sinks);
    return result;
}

/**
 * The warmup file, as TF Serving's load reads it: a record it cannot read or run fails the load of the version
 * (WARMUP_INVALID); a file it reads through is a note with its record count, since every load replays it.
 */
function checkWarmup(dir: string, version: bigint, result: VersionReport, baseDir: string, { fail, note }: VersionSinks): void {
    const file = path.join(dir, WARMUP_FILE);
    if (!fs.existsSync(file)) {
        return;
    }
    let read: ReturnType<typeof readWarmupFile>;
    try {
        read = readWarmupFile(file);
    } catch (err) {
        fail("UNREADABLE", `Cannot read ${file} (${reasonOf(err)}): fix its permissions.`, file);
        return;
    }
    result.warmupRecords = read.records.length;
    // Without the loaded MetaGraph (reported already) the requests cannot be held against a signature.
    const found = warmupProblems(read, result.tags.length > 0 ? result.signatures : null);
    const problems = found.filter((p) => p.severity === "error");
    const fix = `regenerate it with \`tfs warmup ${baseDir} --version ${version} --golden FILE\` (or --input BODY.json ...), `
        + "or set enableWarmup: false to skip warmup (see docs/guides/model-contract.md#warmup-records).";
    for (const problem of problems) {
        fail("WARMUP_INVALID", `${file}: ${problem.message}. TF Serving fails the load of version ${version} on it: ${fix}`, file);
    }
    for (const shape of found.filter((p) => p.severity === "warning")) {
        note("WARMUP_SHAPE", `${file}: ${shape.message}: check that the model answers such a request (tfs smoke --input), or ${fix}`, file);
    }
    if (problems.length === 0) {
        // TensorFlow's reader takes a short tail for the end of the file: loadable, but likely a copy cut short.
        const tail = read.trailingBytes === undefined ? ""
            : ` It ends with ${plural(read.trailingBytes, "byte", "bytes")} too few for a record, which TF Serving ignores: if records are missing, the file was cut short (regenerate it with \`tfs warmup\`).`;
        note("WARMUP_REQUESTS", `${file} holds ${plural(read.records.length, "warmup record", "warmup records")}: TF Serving replays them at every load (--enable_model_warmup, on by default), `
            + `so loading takes longer; the startup probe's budget counts them, or set enableWarmup: false (--enable_model_warmup=false) to skip them.${tail}`, file);
    }
}

function graphFileHint(dir: string): string {
    const names = listOrEmpty(dir);
    if (names.includes("saved_model.cpb")) {
        return "it holds saved_model.cpb (a chunked SavedModel), which open-source TensorFlow Serving does not read; export it under 2 GB as saved_model.pb.";
    }
    const nested = names.find((name) => GRAPH_FILES.some((file) => isFile(path.join(dir, name, file))));
    if (nested !== undefined) {
        return `the SavedModel is one level down in ${path.join(dir, nested)}: move its contents up into ${dir}/.`;
    }
    const keras = names.find((name) => KERAS_FILE.test(name));
    if (keras !== undefined) {
        return kerasExport(path.join(dir, keras), dir);
    }
    const otherPb = names.find((name) => name.endsWith(".pb"));
    if (otherPb !== undefined) {
        return `${otherPb} is not read (TensorFlow looks only for saved_model.pb); a frozen graph is not a SavedModel: export with tf.saved_model.save.`;
    }
    return "copy the complete SavedModel export (saved_model.pb and variables/) into it.";
}

function readGraph(file: string, result: VersionReport, report: PreflightReport, { fail, note, settings, server }: VersionSinks): void {
    if ((statOrNull(file)?.size ?? 0) > PROTOBUF_MAX_BYTES) {
        fail("UNDECODABLE_GRAPH", `${file} is larger than 2 GiB, the protobuf size limit, so TensorFlow cannot read it either: keep large constants in variables/ (tf.Variable) rather than in the graph, and export again.`, file);
        return;
    }
    let bytes: Buffer;
    try {
        bytes = fs.readFileSync(file);
    } catch (err) {
        fail("UNREADABLE", `Cannot read ${file} (${reasonOf(err)}): fix its permissions.`, file);
        return;
    }
    const reexport = "export the model again and copy the file in binary mode (no text conversion, no truncation).";
    if (bytes.length === 0) {
        fail("EMPTY_GRAPH", `${file} is empty (0 bytes): the export or the copy was cut short; ${reexport}`, file);
        return;
    }
    let metaGraphs: MetaGraphSpec[];
    try {
        metaGraphs = result.graphFile === "saved_model.pb" ? decodeSavedModel(bytes) : parseSavedModelText(bytes.toString("utf8"));
    } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // protobufjs reports a file cut short as reading past the end.
        const reason = /index out of range/.test(message) ? `${message}: the file looks truncated` : message;
        if (result.graphFile === "saved_model.pbtxt" && /unknown field/.test(reason)) {
            // A field newer than this schema: TensorFlow may well read the file, so do not fail on it.
            note("GRAPH_NOT_CHECKED", `${file} uses a field this tool does not know (${reason}); its signatures were not checked.`, file);
            return;
        }
        fail("UNDECODABLE_GRAPH", `${file} is not a valid SavedModel ${result.graphFile === "saved_model.pb" ? "protobuf" : "text proto"} (${reason}): ${reexport}`, file);
        return;
    }
    result.metaGraphTags = metaGraphs.map((graph) => graph.tags);
    if (metaGraphs.length === 0) {
        fail("EMPTY_GRAPH", `${file} holds no MetaGraph, so there is nothing to serve: ${reexport}`, file);
        return;
    }
    const wanted = new Set(report.tags);
    const chosen = metaGraphs.find((graph) => new Set(graph.tags).size === wanted.size && graph.tags.every((tag) => wanted.has(tag)));
    // One export writes every MetaGraph of a file: without the loaded one, the first tells the exporter as well.
    const exporter = chosen ?? metaGraphs[0];
    result.tensorflowVersion = exporter.tensorflowVersion;
    result.tensorflowGitVersion = exporter.tensorflowGitVersion;
    checkExporter(file, exporter.tensorflowVersion, server, note, settings);
    if (chosen === undefined) {
        fail("NO_SERVE_TAG", noServeTagMessage(file, report.tags, metaGraphs, settings), file);
        return;
    }
    result.tags = chosen.tags;
    result.signatures = chosen.signatures;
    result.restoresVariables = chosen.restoreOp !== null;
    if (!(report.signature in chosen.signatures)) {
        const callable = Object.keys(chosen.signatures).filter((name) => !isInternalSignature(name));
        fail("SIGNATURE_MISSING", `${file} has no signature "${report.signature}" (${callable.length > 0 ? `it has ${callable.join(", ")}` : "it has no signature at all"}): `
            + (callable.length > 0 ? `ask for one it has (${settings.signature(callable[0])}) and send signature_name with each request, or re-export with a "${report.signature}" signature.` : "re-export the model with a serving signature."), file);
    }
    const refs = Object.entries(chosen.signatures).flatMap(([name, sig]) =>
        [...Object.entries(sig.inputs), ...Object.entries(sig.outputs)].filter(([, t]) => isRefDtype(t.dtype)).map(([tensor, t]) => `${name}.${tensor}: ${t.dtype}`));
    if (refs.length > 0) {
        note("REF_DTYPE", `${file} has signature tensors with reference dtypes (${refs.slice(0, EXAMPLES_SHOWN).join(", ")}${refs.length > EXAMPLES_SHOWN ? ", ..." : ""}): `
            + "they expose TF1 reference variables directly, so the model relies on deprecated TF1 behaviour and may keep state between requests; "
            + "clients see the value dtype (DT_FLOAT for DT_FLOAT_REF). Re-export with value dtypes unless this is intended.", file);
    }
}

/** NEWER_TENSORFLOW: a warning, since a graph that uses nothing new still loads; its fix is an older exporter or a newer server. */
function checkExporter(file: string, exported: string | null, server: ServerReport, note: Sink, settings: PreflightSettings): void {
    const graphLine = exported === null ? undefined : parseTensorflowVersion(exported);
    const serverLine = server.servingVersion === null ? undefined : servingTensorflow(server.servingVersion);
    if (graphLine === undefined || serverLine === undefined || !isNewerLine(graphLine, serverLine)) {
        return;
    }
    const graph = formatLine(graphLine);
    note("NEWER_TENSORFLOW", `${file} was exported by TensorFlow ${exported} (its meta_info_def.tensorflow_version), newer than the TensorFlow ${server.tensorflow} `
        + `that ${server.baseImage} (TF Serving ${server.servingVersion}) runs. TensorFlow promises to load graphs from older releases, not from newer ones: `
        + `an op or attribute added since ${server.tensorflow} fails the load ("Op type not registered" or "NodeDef mentions attr ... not in Op"). `
        + `Export it again with TensorFlow ${server.tensorflow} or older (pip install "tensorflow==${server.tensorflow}.*", then model.export(...) or tf.saved_model.save(...)), `
        + `or serve it with a TF Serving built on TensorFlow ${graph} or later (${(settings.baseImage ?? ((v: string) => `base image ${v}`))(`tensorflow/serving:${graph}.0`)}, once that release is published).`, file);
}

function serverOf(baseImage: string): ServerReport {
    const servingVersion = baseImageServingVersion(baseImage) ?? null;
    const line = servingVersion === null ? undefined : servingTensorflow(servingVersion);
    return { baseImage, servingVersion, tensorflow: line === undefined ? null : formatLine(line) };
}

/** The fix for a Keras file where a SavedModel belongs: load it and export a SavedModel into `target`. */
function kerasExport(file: string, target: string): string {
    return `${file} is a Keras file, not a SavedModel, and TF Serving reads only SavedModels: export one into ${target}/ with `
        + `keras.models.load_model("${file}").export("${target}") (Keras 3), or tf.saved_model.save(tf.keras.models.load_model("${file}"), "${target}") (tf.keras 2).`;
}

function noServeTagMessage(file: string, tags: string[], metaGraphs: MetaGraphSpec[], settings: PreflightSettings): string {
    const sets = metaGraphs.map((graph) => `{${graph.tags.join(", ")}}`).join(", ");
    const superset = metaGraphs.find((graph) => tags.every((tag) => graph.tags.includes(tag)));
    const fix = superset !== undefined
        ? `start TF Serving with --saved_model_tags=${superset.tags.join(",")} (and ask for ${settings.tags(superset.tags.join(","))}), or re-export with tags {${tags.join(", ")}}.`
        : `ask for one of those tag sets, or re-export with tags {${tags.join(", ")}} (tf.saved_model.save tags the graph "serve").`;
    return `${file} has no MetaGraph tagged exactly {${tags.join(", ")}} (asked for with ${settings.tags(tags.join(","))}; it has ${sets}); TF Serving loads only the MetaGraph whose tag set equals --saved_model_tags: ${fix}`;
}

function checkVariables(dir: string, hasVariables: boolean, restoresVariables: boolean, { fail, note }: VersionSinks): void {
    const variables = path.join(dir, "variables");
    if (!hasVariables) {
        note("NO_VARIABLES", `${dir} has no variables/ folder: fine for a model without variables, but a trained model's weights were left behind; copy the export's variables/ into ${dir}/.`, dir);
        return;
    }
    const names = listOrEmpty(variables);
    const hasIndex = names.includes("variables.index");
    const shards = names.map((name) => SHARD.exec(name)).filter((m): m is RegExpExecArray => m !== null);
    const incomplete = (what: string): void =>
        fail("VARIABLES_INCOMPLETE", `${variables} ${what}, so TensorFlow cannot restore the weights: copy the complete variables/ folder of the export.`, variables);
    if (!hasIndex && shards.length === 0 && restoresVariables) {
        // TensorFlow loads such a version without restoring anything (loader.cc: no variables.index, no restore), then every call fails on the uninitialized weights.
        fail("VARIABLES_INCOMPLETE", `${variables} is empty, but the graph restores its weights from it at load: TensorFlow then loads the version without them and every predict fails; `
            + "copy the export's variables/ folder (variables.index and variables.data-*) into it (see docs/concepts/model-image.md#the-model-folder).", variables);
    } else if (!hasIndex && shards.length > 0) {
        incomplete("has data files but no variables.index");
    } else if (hasIndex && shards.length === 0) {
        incomplete("has variables.index but no variables.data-*-of-* file");
    } else if (shards.length > 0) {
        const total = Number(shards[0][2]);
        const present = new Set(shards.map((m) => Number(m[1])));
        const missing = Array.from({ length: total }, (_, i) => i).filter((i) => !present.has(i));
        if (missing.length > 0) {
            incomplete(`lacks data shard${missing.length === 1 ? "" : "s"} ${missing.slice(0, EXAMPLES_SHOWN).join(", ")} of ${total}`);
        }
    }
    // An export never writes an empty index or shard (the index has a header and footer, a shard holds the
    // bytes the index points into): zero bytes is a copy cut short, and TensorFlow fails to restore it.
    const empty = [...(hasIndex ? ["variables.index"] : []), ...shards.map((m) => m[0])]
        .map((name) => path.join(variables, name)).filter((file) => statOrNull(file)?.size === 0);
    for (const file of empty) {
        fail("VARIABLES_INCOMPLETE", `${file} is empty (0 bytes), so TensorFlow cannot restore the weights from it: the export or the copy was cut short; copy the complete variables/ folder of the export again.`, file);
    }
}

function reportLinks(links: BadLink[], brokenSink: Sink, outsideSink: Sink): void {
    for (const link of links) {
        const code = { outside: "LINK_OUTSIDE_MODEL", broken: "BROKEN_LINK", loop: "LINK_LOOP", cycle: "LINK_LOOP" }[link.problem];
        const sink = link.problem === "broken" ? brokenSink : outsideSink;
        sink(code, linkProblemMessage(link.path, { ok: false, ...link }), link.path);
    }
}

function reportModes(base: string, scans: TreeScan[], warn: Sink): void {
    const baseMode = statOrNull(base)?.mode ?? 0o777;
    const closed = [...(process.platform !== "win32" && (baseMode & 0o005) !== 0o005 ? [base] : []), ...scans.flatMap((scan) => scan.notWorldReadable)];
    if (closed.length > 0) {
        warn("NOT_WORLD_READABLE", `${plural(closed.length, "file or folder", "files or folders")} under ${base} cannot be read by other users (${closed.slice(0, EXAMPLES_SHOWN).join(", ")}${closed.length > EXAMPLES_SHOWN ? ", ..." : ""}); `
            + `the server runs as a non-root user: chmod -R o+rX ${base}.`, closed[0]);
    }
}

function isGraphFile(name: string): boolean {
    return (GRAPH_FILES as readonly string[]).includes(name);
}

/** The entries that show a SavedModel export sits right here rather than in a version folder. */
function isTopOfExport(name: string): boolean {
    return isGraphFile(name) || name === "variables";
}

function finding(code: string, message: string, where?: string): Finding {
    return where === undefined ? { code, message } : { code, message, path: where };
}

function compareBig(a: bigint, b: bigint): number {
    return a < b ? -1 : a > b ? 1 : 0;
}

function isDirectory(entry: string): boolean {
    return statOrNull(entry)?.isDirectory() ?? false;
}

function isFile(entry: string): boolean {
    return statOrNull(entry)?.isFile() ?? false;
}

/** Follows links; null for anything that cannot be stat'ed (missing, a file in the path, no permission). */
function statOrNull(entry: string): fs.Stats | null {
    try {
        return fs.statSync(entry);
    } catch {
        return null;
    }
}

function listOrEmpty(folder: string): string[] {
    try {
        return fs.readdirSync(folder);
    } catch {
        return [];
    }
}
