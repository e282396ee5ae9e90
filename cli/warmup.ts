import { Command, InvalidArgumentError } from "commander";
import * as fs from "fs";
import * as path from "path";
import { GoldenError, readGoldenFile } from "../contract/golden";
import { preflight } from "../model/savedModel";
import { warmupSourcesOf } from "../model/stagedWarmup";
import { buildWarmupFile, WARMUP_FILE, WarmupSource, warmupRequests } from "../model/warmup";
import { parseVersion } from "../serving/modelConfig";
import { UserError } from "./errors";
import { readPredictBodyFile } from "./requestFile";

interface WarmupFlags { version?: number; input?: string[]; golden?: string; force?: boolean }

const USAGE_EXIT = 2;
const DOCS = "see docs/guides/model-contract.md#warmup-records";

/**
 * `tfs warmup MODEL_BASE_DIR [--version N] (--golden FILE | --input BODY.json ...) [--force]`: writes the version's
 * `assets.extra/tf_serving_warmup_requests` from a golden file's cases (their expected outputs as the logged
 * answers) or from `:predict` bodies, after checking each against the version's signatures. Exit 0 when written,
 * 1 for a request TF Serving would refuse or a model it cannot load, 2 for bad flags or an unreadable file.
 */
export function warmupCommand(exit: (code: number) => void): Command {
    return new Command("warmup")
        .description("Write a version's warmup file (assets.extra/tf_serving_warmup_requests) from predict bodies, checked against its signatures")
        .argument("<model-base-dir>", "the folder that holds numbered version folders (BASE/1/saved_model.pb)")
        .option("--version <n>", "the version to write it into (default: the highest)", (value: string) => {
            const parsed = parseVersion(value);
            if ("problem" in parsed) {
                throw new InvalidArgumentError(`"${value}" ${parsed.problem}.`);
            }
            return parsed.version;
        })
        .option("--golden <file>", "a golden file (JSON lines): one record per case, with its expected outputs as the logged answer")
        .option("--input <file...>", "a JSON predict body ({\"instances\": ...} or {\"inputs\": ...}); one record per file, in order")
        .option("--force", "replace a warmup file the version already has")
        .exitOverride()
        .showHelpAfterError("(tfs warmup --help shows the usage)")
        .action((baseDir: string, flags: WarmupFlags) => {
            const inputs = flags.input ?? [];
            if ((flags.golden === undefined) === (inputs.length === 0)) {
                throw new UserError(`give the requests to record with either --golden FILE or --input BODY.json (one or more) (${DOCS})`, USAGE_EXIT);
            }
            const sources = flags.golden !== undefined ? readGolden(flags.golden) : inputs.map(readSource);
            const written = writeWarmup(baseDir, flags.version, sources, flags.force === true);
            console.log(`wrote ${written.records} warmup record${written.records === 1 ? "" : "s"} to ${written.file}`);
            exit(0);
        });
}

function readGolden(file: string): WarmupSource[] {
    try {
        return warmupSourcesOf(readGoldenFile(file), file);
    } catch (err) {
        if (err instanceof GoldenError) {
            throw new UserError(`--golden ${err.message}`, USAGE_EXIT);
        }
        throw err;
    }
}

function readSource(file: string): WarmupSource {
    return { name: file, body: readPredictBodyFile(file, USAGE_EXIT) };
}

/**
 * Checks `sources` against the version's signatures and writes its warmup file; every problem at once (one line
 * each) as a UserError. The version must load as TF Serving would, except for the warmup file being replaced.
 */
export function writeWarmup(baseDir: string, version: number | undefined, sources: readonly WarmupSource[], force: boolean): { file: string; records: number } {
    const report = preflight(baseDir, version === undefined ? {} : { versions: [version] });
    const chosen = report.versions.find((v) => v.version === (version ?? report.servedVersion));
    const blocking = report.errors.filter((e) => e.code !== "WARMUP_INVALID" && e.code !== "SIGNATURE_MISSING");
    if (chosen === undefined || chosen.tags.length === 0 || blocking.length > 0) {
        const reasons = blocking.length > 0 ? blocking.map((e) => e.message) : [`${report.baseDir} has no version TF Serving would load`];
        throw new UserError(`cannot write warmup records for ${report.baseDir}: ${reasons.join(" ")} (run tfs preflight ${baseDir})`);
    }
    const file = path.join(chosen.path, WARMUP_FILE);
    if (fs.existsSync(file) && !force) {
        throw new UserError(`${file} exists already (${chosen.warmupRecords ?? 0} records): pass --force to replace it (${DOCS})`);
    }
    const { requests, problems, warnings } = warmupRequests(sources, chosen.signatures);
    for (const warning of warnings) {
        console.error(`tfs: warning: ${warning} (${DOCS})`);
    }
    if (problems.length > 0) {
        throw new UserError(`nothing written: ${problems.length === 1 ? "a request" : `${problems.length} requests`} TF Serving would refuse at load `
            + `(version ${chosen.version}, ${DOCS}):\n${problems.map((p) => `  ${p}`).join("\n")}`);
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, buildWarmupFile(requests));
    return { file, records: requests.length };
}
