import { Command } from "commander";
import { DEFAULT_SIGNATURE } from "../contract/signature";
import { preflight } from "../model/savedModel";
import { defaultBaseImage, imageReferenceProblem } from "../serving/images";
import { UserError } from "./errors";
import { formatReport } from "./preflightText";
import { collectVersion } from "./versionOption";

interface PreflightFlags { signature: string; version?: number[]; tags: string; baseImage: string; json?: boolean }

/**
 * `tfs preflight MODEL_BASE_DIR [--signature NAME] [--version N ...] [--tags T,...] [--base-image REF] [--json]`:
 * reads the model folder as TF Serving would; exit 0 if it would serve it, 1 if not.
 */
export function preflightCommand(exit: (code: number) => void): Command {
    return new Command("preflight")
        .description("Check a SavedModel base folder the way TF Serving will read it (exit 0: servable, 1: broken)")
        .argument("<model-base-dir>", "the folder that holds numbered version folders (BASE/1/saved_model.pb)")
        .option("--signature <name>", "the signature clients call; it must exist in every served version", DEFAULT_SIGNATURE)
        .option("--version <n...>", "versions to serve (default: the highest, like TF Serving's default policy)", collectVersion)
        .option("--tags <tags>", "the MetaGraph tag set TF Serving loads, comma-separated (its --saved_model_tags)", "serve")
        .option("--base-image <ref>", "the image the server runs from; its tag tells which TensorFlow loads the model", defaultBaseImage(false))
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
            console.log(flags.json ? JSON.stringify(report) : formatReport(report));
            exit(report.ok ? 0 : 1);
        });
}
