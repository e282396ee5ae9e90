import { Command } from "commander";
import { DEFAULT_SIGNATURE } from "../contract/signature";
import { PreflightReport, preflight } from "../model/savedModel";
import { VersionChanges, servedVersionChanges } from "../contract/signatureChange";
import { servedSignaturesOf } from "../model/servedSignatures";
import { defaultBaseImage, imageReferenceProblem } from "../serving/images";
import { UserError } from "./errors";
import { formatReport } from "./preflightText";
import { collectVersion } from "./versionOption";

interface PreflightFlags { signature: string; version?: number[]; tags: string; baseImage: string; json?: boolean; against?: string; againstVersion?: number[] }

/** `--against`: the new versions break what the old ones' clients call (the model itself is servable). */
export const SIGNATURE_BREAK_EXIT = 3;

/**
 * `tfs preflight MODEL_BASE_DIR [--signature NAME] [--version N ...] [--tags T,...] [--base-image REF] [--json]`:
 * reads the model folder as TF Serving would; exit 0 if it would serve it, 1 if not. With `--against OLD_DIR`,
 * also compares the served versions' signatures with those OLD_DIR serves (as `pulumi preview` compares
 * them with the stack's record): exit 3 when a change breaks what clients call.
 */
export function preflightCommand(exit: (code: number) => void): Command {
    return new Command("preflight")
        .description("Check a SavedModel base folder the way TF Serving will read it (exit 0: servable, 1: broken)")
        .argument("<model-base-dir>", "the folder that holds numbered version folders (BASE/1/saved_model.pb)")
        .option("--signature <name>", "the signature clients call; it must exist in every served version", DEFAULT_SIGNATURE)
        .option("--version <n...>", "versions to serve (default: the highest, like TF Serving's default policy)", collectVersion)
        .option("--tags <tags>", "the MetaGraph tag set TF Serving loads, comma-separated (its --saved_model_tags)", "serve")
        .option("--base-image <ref>", "the image the server runs from; its tag tells which TensorFlow loads the model", defaultBaseImage(false))
        .option("--against <old-model-base-dir>", "compare the signatures with the versions this folder serves (the version clients call now); exit 3 on a breaking change")
        .option("--against-version <n...>", "the versions the --against folder serves (default: its highest)", collectVersion)
        .option("--json", "print one JSON object instead of text")
        // Commander does not pass these down from the parent: without them a bad flag would exit the process directly.
        .exitOverride()
        .showHelpAfterError("(tfs preflight --help shows the usage)")
        .action((baseDir: string, flags: PreflightFlags) => {
            const refProblem = imageReferenceProblem(flags.baseImage);
            if (refProblem) {
                throw new UserError(`--base-image: ${refProblem}`);
            }
            const report = preflight(baseDir, {
                signature: flags.signature,
                versions: flags.version,
                tags: flags.tags.split(",").map((tag) => tag.trim()).filter((tag) => tag !== ""),
                baseImage: flags.baseImage,
            });
            const against = flags.against === undefined ? undefined : compareAgainst(report, flags);
            if (flags.json) {
                console.log(JSON.stringify(against === undefined ? report : { ...report, against }));
            } else {
                console.log(formatReport(report));
                if (against !== undefined) {
                    console.log(formatChanges(against));
                }
            }
            const breaks = against?.changes.some((c) => c.changes.some((x) => x.breaking)) ?? false;
            exit(!report.ok ? 1 : breaks ? SIGNATURE_BREAK_EXIT : 0);
        });
}

/** What `--against` found: the old folder and its served versions, and each changed pair. */
interface AgainstReport { baseDir: string; servedVersions: number[]; changes: VersionChanges[] }

/** The old folder read with the same tags and signature; a folder TF Serving could not serve is a usage error (nothing to compare). */
function compareAgainst(report: PreflightReport, flags: PreflightFlags): AgainstReport {
    const old = preflight(flags.against as string, { signature: flags.signature, versions: flags.againstVersion, tags: report.tags, baseImage: flags.baseImage });
    if (!old.ok) {
        throw new UserError(`--against ${flags.against}: TF Serving would not serve this folder (${old.errors[0].message}); ` +
            "point it at the model folder clients call now (see docs/guides/model-contract.md#signatures-at-preview)");
    }
    return { baseDir: old.baseDir, servedVersions: old.servedVersions, changes: servedVersionChanges(servedSignaturesOf(old), servedSignaturesOf(report)) };
}

function formatChanges(against: AgainstReport): string {
    if (against.changes.length === 0) {
        return `signatures: the same as ${against.baseDir} (version ${against.servedVersions.join(", ")}) serves`;
    }
    return against.changes.map((c) => {
        const head = `signatures: version ${c.after} against version ${c.before} of ${against.baseDir}:`;
        return [head, ...c.changes.map((x) => `  ${x.breaking ? "BREAKING" : "note    "} signature "${x.signature}": ${x.detail}`)].join("\n");
    }).join("\n") + (against.changes.some((c) => c.changes.some((x) => x.breaking))
        ? "\nclients of the old version would be refused: keep the old signature beside the new one (see docs/guides/model-contract.md#signatures-at-preview)"
        : "");
}
