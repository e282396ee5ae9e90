import { Command, InvalidArgumentError } from "commander";
import { DEFAULT_SIGNATURE } from "../contract/signature";
import { preflight } from "../model/savedModel";
import { formatReport } from "./preflightText";
import { collectVersion } from "./versionOption";
import { stageBuildContext, StagedContext, StagingError } from "../serving/buildContext";
import { artifactServerFlags } from "../serving/dockerfile";
import { defaultBaseImage, IMAGE_PLATFORM, MODEL_SERVER_BINARY, imageReferenceProblem } from "../serving/images";
import { modelNameProblem, versionLabelProblem } from "../serving/modelConfig";
import {
    DEFAULT_MODEL_DELIVERY, MODEL_DELIVERIES, MODEL_DELIVERY_DOC, ModelDelivery, artifactMountPath, modelDeliveryProblem,
} from "../serving/modelDelivery";
import { IMAGE_VOLUME_NEEDS } from "../serving/imageVolumeSupport";
import { flagArgs } from "../serving/serverFlag";
import { UserError } from "./errors";

interface BuildContextFlags {
    name: string;
    out: string;
    baseImage?: string;
    gpu?: boolean;
    version?: number[];
    label?: Record<string, number>;
    signature: string;
    delivery: string;
}

/**
 * `tfs build-context MODEL_BASE_DIR --name NAME --out DIR [--base-image REF] [--gpu] [--version N ...]
 * [--label NAME=VERSION ...] [--delivery embedded|imageVolume]`: checks the model like `tfs preflight`,
 * then writes the image's build context (the served versions, a Dockerfile, the model config) for users
 * who build images elsewhere. With `--delivery imageVolume` the context is the model-only artifact
 * (`FROM scratch`) an image volume mounts beside the base, as `ModelImage` builds it; the base is then
 * the server the preflight checks the model against, not part of the context. The command reads no
 * stack, so the default is `embedded`, as a model without `modelDelivery` gets.
 * Exit 0 when staged, 1 for a broken model or a bad value, 2 for bad flags.
 */
export function buildContextCommand(exit: (code: number) => void): Command {
    return new Command("build-context")
        .description("Write the model image's build context (served versions + Dockerfile) to a folder, for docker or buildah")
        .argument("<model-base-dir>", "the folder that holds numbered version folders (BASE/1/saved_model.pb)")
        .requiredOption("--name <name>", "TF Serving model name, a DNS label (e.g. half-plus-two)")
        .requiredOption("--out <dir>", "folder to write the context to: new, empty, or an earlier build-context output")
        .option("--base-image <ref>", `base image (default ${defaultBaseImage(false)}, or ${defaultBaseImage(true)} with --gpu)`)
        .option("--gpu", "use the pinned -gpu base image")
        .option("--version <n...>", "versions to bake and serve (default: the highest)", collectVersion)
        .option("--label <name=version...>", "a version label, e.g. stable=2 (needs --version listing that version)", collectLabel)
        .option("--signature <name>", "the signature clients call; the preflight checks it", DEFAULT_SIGNATURE)
        .option("--delivery <kind>", `${MODEL_DELIVERIES.join(" or ")}: the model baked into the base image, or a model-only `
            + "artifact (FROM scratch) an image volume mounts beside the base (the base then only checks the model)", DEFAULT_MODEL_DELIVERY)
        .exitOverride()
        .showHelpAfterError("(tfs build-context --help shows the usage)")
        .action((baseDir: string, flags: BuildContextFlags) => {
            const nameProblem = modelNameProblem(flags.name);
            if (nameProblem) {
                throw new UserError(`--name: ${nameProblem}`);
            }
            const deliveryProblem = modelDeliveryProblem(flags.delivery);
            if (deliveryProblem) {
                throw new UserError(`--delivery: "${flags.delivery}" ${deliveryProblem}`);
            }
            const delivery = flags.delivery as ModelDelivery;
            const baseImage = flags.baseImage ?? defaultBaseImage(flags.gpu ?? false);
            const refProblem = imageReferenceProblem(baseImage);
            if (refProblem) {
                throw new UserError(`--base-image: ${refProblem}`);
            }
            if (flags.label && !flags.version) {
                throw new UserError("--label needs --version naming the versions to serve (e.g. --version 1 2 --label stable=2)");
            }
            const report = preflight(baseDir, { signature: flags.signature, versions: flags.version, baseImage });
            if (!report.ok) {
                console.error(formatReport(report));
                console.error(`tfs: not staged: fix the model above, then run build-context again (tfs preflight ${baseDir} checks it alone).`);
                exit(1);
                return;
            }
            for (const warning of report.warnings) {
                console.error(`warning: ${warning.message}`);
            }
            let staged: StagedContext;
            try {
                staged = stageBuildContext({
                    writer: "tfs build-context", modelBaseDir: baseDir, modelName: flags.name, versions: report.servedVersions,
                    versionLabels: flags.label, outDir: flags.out, baseImage, delivery,
                });
            } catch (err) {
                if (err instanceof StagingError) {
                    throw new UserError(err.about === "out" ? `--out ${flags.out}: ${err.message}` : err.message);
                }
                throw err;
            }
            console.log(delivery === "imageVolume" ? describeArtifact(staged, flags.name, baseImage) : describe(staged, flags.name, baseImage));
            exit(0);
        });
}

function describe(staged: StagedContext, name: string, baseImage: string): string {
    const lines = [
        `Staged model ${name}, ${versionList(staged)}, on ${baseImage}`,
        ...stagedFiles(staged),
        ...buildCommands(staged, name),
        `Then \`docker run -p 8501:8501 REGISTRY/${name}:TAG\` serves it at http://localhost:8501/v1/models/${name}.`,
    ];
    return lines.join("\n");
}

/** What `--delivery imageVolume` staged: the artifact, and how the server's pod mounts it beside the base. */
function describeArtifact(staged: StagedContext, name: string, baseImage: string): string {
    const lines = [
        `Staged model ${name}, ${versionList(staged)}, as a model-only artifact (FROM scratch) for an image volume, served by ${baseImage}`,
        ...stagedFiles(staged),
        ...buildCommands(staged, name),
        `Then mount REGISTRY/${name}:TAG (pinned by digest) read-only by an \`image\` volume at ${artifactMountPath(name)}, with no subPath, `
            + `in a pod that runs ${baseImage} as \`${[MODEL_SERVER_BINARY, ...flagArgs(artifactServerFlags(name))].join(" ")}\`; `
            + `it needs ${IMAGE_VOLUME_NEEDS} (${MODEL_DELIVERY_DOC}).`,
    ];
    return lines.join("\n");
}

function versionList(staged: StagedContext): string {
    return `version${staged.versions.length > 1 ? "s" : ""} ${staged.versions.join(", ")}`;
}

function stagedFiles(staged: StagedContext): string[] {
    const unchanged = staged.written === 0 ? " (unchanged: nothing rewritten)" : ` (${staged.written} written)`;
    return [
        `into ${staged.outDir}: ${staged.files.length} files, ${staged.totalBytes} bytes${unchanged}`,
        ...staged.files.map((f) => `  ${f.path}  ${f.bytes}`),
    ];
}

function buildCommands(staged: StagedContext, name: string): string[] {
    return [
        "",
        `Build and push it for ${IMAGE_PLATFORM} (replace REGISTRY and TAG):`,
        `  docker build --platform ${IMAGE_PLATFORM} -t REGISTRY/${name}:TAG ${staged.outDir}`,
        `  buildah bud --platform ${IMAGE_PLATFORM} --layers --timestamp 0 -t REGISTRY/${name}:TAG ${staged.outDir}`,
    ];
}


function collectLabel(value: string, previous: Record<string, number> | undefined): Record<string, number> {
    const match = /^([^=]+)=(\d+)$/.exec(value);
    if (!match) {
        throw new InvalidArgumentError(`"${value}" is not NAME=VERSION (e.g. stable=2).`);
    }
    const problem = versionLabelProblem(match[1]);
    if (problem) {
        throw new InvalidArgumentError(problem);
    }
    return { ...previous, [match[1]]: Number(match[2]) };
}
