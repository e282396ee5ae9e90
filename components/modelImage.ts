/**
 * ModelImage: the model baked into a pinned `tensorflow/serving` base, built and pushed with
 * `@pulumi/docker`, exposed pinned by the digest the registry holds; or, with `modelDelivery:
 * imageVolume`, the model alone as an artifact of its own (`FROM scratch`) that `ModelServer` mounts
 * beside the base, which it exposes pinned as well (`serverImage`).
 *
 * The build context is staged (only the served version folders, a rendered Dockerfile) in a
 * stable folder inside the project and named relative to it, so `docker.Image`'s inputs and its
 * context hash change only when the model does, whichever checkout or machine runs the update:
 * an unchanged model builds and rolls nothing.
 */
import * as docker from "@pulumi/docker";
import * as pulumi from "@pulumi/pulumi";
import { preflight } from "../model/savedModel";
import { GoldenError, readGoldenFile } from "../contract/golden";
import { warmupFilesFor, warmupSourcesOf } from "../model/stagedWarmup";
import { WarmupSource } from "../model/warmup";
import { stageBuildContext, StagingError } from "../serving/buildContext";
import { contentTag } from "../serving/contentTag";
import { defaultBaseImage, imageReferenceProblem, isDigestPinned, pinnedReference } from "../serving/images";
import type { ModelDelivery } from "../serving/modelDelivery";
import { resolveModelImageArgs } from "./modelImageArgs";
import { argsError, refusing } from "./refusal";
import { heldDigest, pushedImageName } from "./pushedImage";
import { ImageBuildRecord, PreviousImage, pushDecision } from "../serving/pushDecision";

export interface RegistryCredentials {
    /** Registry host the build logs into (`localhost:5001`, `us-docker.pkg.dev`, `ACCOUNT.dkr.ecr.REGION.amazonaws.com`). */
    server: pulumi.Input<string>;
    /**
     * User to log in as. Default: none (an anonymous push, or the Docker client's own login). With a
     * user, the digest lookup gets a Docker provider of its own logged in with these credentials.
     */
    username?: pulumi.Input<string>;
    /** Password or token for `username`; kept secret in state. Default: none. */
    password?: pulumi.Input<string>;
}

/**
 * Asks the registry which manifest digest (`sha256:...`) it holds for `tag` of the pushed image.
 * `image` is the pushed Image: the lookup must take its arguments through `pushedImageName(image)`,
 * so it runs after the push, and never in a preview of a push.
 */
export type RegistryDigestLookup = (tag: string, image: docker.Image) => pulumi.Output<string>;


/**
 * Asks the registry, before anything is built, which digest it already holds for `tag` of the
 * image: undefined when it holds none, or cannot say (no repository yet, no access): then the
 * image is pushed as usual.
 */
export type RegistryTagProbe = (tag: string) => pulumi.Output<string | undefined>;

/**
 * The model an image bakes, by the names the configuration (`modelName`/`modelPath`, `models[i]`),
 * `ModelGateway` and `ModelMonitoring` use: `model` and `modelPath`. The 0.2.0 names, `modelName` and
 * `modelBaseDir`, still work together until the next release.
 */
export type ModelImageSource = {
    /**
     * TF Serving model name (a DNS label); the model lands in `/models/<model>/<version>/` and the
     * ENTRYPOINT serves it under this name. `ModelServer`'s `model.name` must be the same.
     */
    model: string;
    /** The model base folder on disk, numeric version folders inside (absolute, or relative to the working directory). */
    modelPath: string;
    modelName?: never;
    modelBaseDir?: never;
} | {
    /** @deprecated Since 0.3.0: use `model`; removed in the next release. */
    modelName: string;
    /** @deprecated Since 0.3.0: use `modelPath`; removed in the next release. */
    modelBaseDir: string;
    model?: never;
    modelPath?: never;
};

/** `source`'s model name and folder, whichever names it was given under. */
export function modelImageSource(source: ModelImageSource): { model: string; modelPath: string } {
    return source.model !== undefined ? { model: source.model, modelPath: source.modelPath } : { model: source.modelName, modelPath: source.modelBaseDir };
}

export type ModelImageArgs = ModelImageSource & ModelImageSettings;

/** Everything `ModelImageArgs` holds beside the model's name and folder. */
export interface ModelImageSettings {
    /**
     * Versions to bake (folder numbers: `00000123` is 123); they must exist (run the preflight first:
     * `PreflightReport.servedVersions`). One version and no labels: the server serves it by name and
     * path. Several, or `versionLabels`: a model config file serving exactly these versions.
     */
    versions: number[];
    /** Version labels (`stable: 123`; names `[a-zA-Z0-9_]+`, versions among `versions`), served through the model config file. Default: none. */
    versionLabels?: Record<string, number>;
    /**
     * How the model reaches the server. `embedded` (default): baked into the base, one image per model
     * (`imageRef`). `imageVolume`: a model-only artifact (`FROM scratch`: the version folders and the model
     * config file at its root), content-tagged from the model alone, so a new base builds and pushes nothing;
     * `ModelServer` runs `serverImage` with it mounted by an image volume (its `modelDelivery` and
     * `modelArtifact`). Needs Kubernetes 1.35 and containerd 2.1 or CRI-O 1.31 on the nodes (docs/concepts/model-image.md).
     */
    modelDelivery?: ModelDelivery;
    /** Build on the `-gpu` (CUDA) base of the pinned release. Default false. Ignored when `baseImage` is set. */
    gpu?: boolean;
    /** Base image, e.g. a mirror of `tensorflow/serving`; it must hold `/usr/bin/tensorflow_model_server`. Default the pinned release (`tensorflow/serving:2.21.0`, `-gpu` with `gpu`). */
    baseImage?: string;
    /** Image name without a tag (`REGISTRY/REPO/NAME`); the tag is `ctx-` and the build context's digest, so an unchanged model pushes nothing. */
    imageName: pulumi.Input<string>;
    /** Where to push, and the login for the push and for the digest lookup. */
    registry: RegistryCredentials;
    /** The project root: the Pulumi program's working directory, where the Docker provider resolves relative paths (usually `process.cwd()`). */
    projectDir: string;
    /**
     * Folder to stage the build context in, relative to `projectDir` and inside it (an error otherwise),
     * e.g. `.tfs/build/<stack>/<model>`. Keep it stable and one per stack and model: its path is an input
     * of the Image, and the component owns what is in it (stale files are removed). Beside it, `<contextDir>.staging.json`
     * records what the staging saw, so an unchanged model is not read again at the next run.
     */
    contextDir: string;
    /**
     * How to ask the registry for the pushed tag's digest. Default: the Docker provider's
     * `getRegistryImage` (the registry's v2 API, with `registry`'s credentials). ECR: `Ecr.registryDigest(model)`.
     */
    registryDigest?: RegistryDigestLookup;
    /**
     * How to ask the registry whether it holds the content tag already (then nothing is pushed, and
     * the pods run the digest it holds). Default: the Docker provider's `getRegistryImage`, with
     * `registry`'s credentials. ECR: `Ecr.registryProbe(model)`; Artifact Registry: `ArtifactRegistry.registryProbe(model)`.
     */
    registryProbe?: RegistryTagProbe;
    /**
     * What the stack's last update left (this component's `build`, the digest its pods ran), so an
     * unchanged model keeps the decision it had and previews no change. Default: none (a first deployment).
     */
    previousImage?: pulumi.Input<PreviousImage | undefined>;
    /**
     * Requests (or a golden file's cases) to generate each baked version's warmup file
     * (`assets.extra/tf_serving_warmup_requests`) from, at staging: into the staged copy, replacing any file the
     * model folder holds there, so the model folder is never written. Each request is first checked against each
     * version's signatures; a `StagingError` lists every one TF Serving would refuse at load. At most 1,000.
     * `ModelServer`'s `model.warmupRecords` counts them: the requests (cases) times the served versions.
     * Default: none (the folder's own file, if it has one).
     */
    warmup?: ModelImageWarmup;
}

/**
 * Where generated warmup records come from: `:predict` bodies, each named for messages (a file, a golden file's
 * line), or a golden file (`contract/golden.ts`), one record per case with its expected outputs as the logged answer.
 */
export type ModelImageWarmup = { requests: readonly WarmupSource[]; golden?: never } | { golden: string; requests?: never };

/**
 * The warmup file of each of `versions` for `warmup`'s requests; a StagingError naming every request a version's
 * signatures refuse (see docs/guides/model-contract.md#warmup-records).
 */
export function modelImageWarmupFiles(modelPath: string, model: string, versions: number[], warmup: ModelImageWarmup | undefined): Record<number, Buffer> | undefined {
    if (warmup === undefined) {
        return undefined;
    }
    let sources: readonly WarmupSource[];
    try {
        sources = warmup.golden !== undefined ? warmupSourcesOf(readGoldenFile(warmup.golden), warmup.golden) : warmup.requests;
    } catch (err) {
        throw err instanceof GoldenError ? new StagingError(`cannot generate the warmup file of model ${model}: ${err.message}`) : err;
    }
    const { files, problems } = warmupFilesFor(preflight(modelPath, { versions }), sources, model);
    if (problems.length > 0) {
        throw new StagingError(`cannot generate the warmup file of model ${model}: TF Serving would refuse ${problems.length === 1 ? "a request" : `${problems.length} requests`} at load `
            + `(see docs/guides/model-contract.md#warmup-records): ${problems.join("; ")}`);
    }
    return files;
}

export class ModelImage extends pulumi.ComponentResource {
    /**
     * `name@sha256:...` with the registry's own digest for the pushed tag: what the pod spec uses (the
     * image the pods run; with `imageVolume`, the artifact they mount: `ModelServer`'s `modelArtifact`).
     */
    readonly imageRef: pulumi.Output<string>;
    /**
     * The image the server's container runs, pinned by digest: `imageRef` when embedded; with `imageVolume`
     * the base, as given when it names a digest, else with the digest its registry holds for its tag (asked
     * at every run, so a base re-pushed under its tag rolls the pods onto it, and no model is rebuilt).
     */
    readonly serverImage: pulumi.Output<string>;
    /** How the model reaches the server, as resolved (default `embedded`). */
    readonly modelDelivery: ModelDelivery;
    /** The tag pushed (`ctx-` and the context digest's prefix), for humans and registries' UIs. */
    readonly tag: string;
    readonly image: docker.Image;
    /** Whether this update pushes the content tag or reuses the registry's copy: record it for the next run (`previousImage`). */
    readonly build: pulumi.Output<ImageBuildRecord>;

    constructor(name: string, args: ModelImageArgs, opts?: pulumi.ComponentResourceOptions) {
        // Checked and resolved once (`modelImageArgs.ts`), before anything is staged or registered.
        const { location, modelDelivery } = resolveModelImageArgs(name, args);
        const { model, modelPath } = modelImageSource(args);
        const baseImage = args.baseImage ?? defaultBaseImage(args.gpu ?? false);
        const baseProblem = imageReferenceProblem(baseImage);
        if (baseProblem !== undefined) {
            throw argsError("ModelImage", name, [{ field: "baseImage", value: baseImage, message: baseProblem }]);
        }
        const warmupFiles = refusing("ModelImage", name, "warmup", () => modelImageWarmupFiles(modelPath, model, args.versions, args.warmup));
        const staged = refusing("ModelImage", name, (err) => (err.about === "out" ? "contextDir" : "modelPath"), () => stageBuildContext({
            writer: "ModelImage",
            modelBaseDir: modelPath,
            modelName: model,
            versions: args.versions,
            versionLabels: args.versionLabels,
            baseImage,
            ...(modelDelivery === "imageVolume" ? { delivery: modelDelivery } : {}),
            outDir: location.stagingDir,
            recordFile: `${location.stagingDir}.staging.json`,
            warmupFiles,
        }));
        super("tf-serving:index:ModelImage", name, {}, opts);
        this.modelDelivery = modelDelivery;
        this.tag = contentTag(staged.digest);

        // Only the Docker provider's own lookups log in with the credentials: the cloud registries'
        // passwords change on every run, and a provider holding one would preview an update each time.
        const registryProvider = args.registryDigest !== undefined && args.registryProbe !== undefined ? undefined : this.registryProvider(name, args.registry);
        const probe: RegistryTagProbe = args.registryProbe ?? ((tag) => this.dockerRegistryTagProbe(args.imageName, tag, registryProvider));
        const held = probe(this.tag);
        this.build = pulumi.all([args.previousImage, held]).apply(([previous, digest]) => pushDecision(this.tag, previous, digest));

        this.image = new docker.Image(name, {
            imageName: pulumi.interpolate`${args.imageName}:${this.tag}`,
            build: {
                context: location.context,
                dockerfile: location.dockerfile,
                platform: "linux/amd64",
            },
            // Absent, not false, when pushing: the inputs of every Image pushed before this existed.
            skipPush: this.build.apply((b) => (b.pushed ? undefined : true)),
            registry: {
                server: args.registry.server,
                username: args.registry.username,
                password: args.registry.password === undefined ? undefined : pulumi.secret(args.registry.password),
            },
        }, { parent: this });

        // Not `image.repoDigest`: when the push reports no digest (podman's Docker API), the Docker
        // provider falls back to the local store's digest, which the registry does not know.
        const lookup: RegistryDigestLookup = args.registryDigest
            ?? ((_tag, image) => docker.getRegistryImageOutput({ name: pushedImageName(image) }, { parent: this, provider: registryProvider, dependsOn: [image] }).sha256Digest);
        const pushedDigest = lookup(this.tag, this.image);
        // A reused tag: the digest the registry held before this run, known in the preview too.
        const digest = pulumi.all([this.build, held]).apply(([b, h]) => (!b.pushed && h !== undefined ? pulumi.output(h) : pushedDigest));
        this.imageRef = pulumi.interpolate`${args.imageName}@${digest}`;
        if (modelDelivery === "imageVolume") {
            this.serverImage = this.pinnedBase(baseImage);
            this.registerOutputs({ imageRef: this.imageRef, serverImage: this.serverImage });
        } else {
            this.serverImage = this.imageRef;
            this.registerOutputs({ imageRef: this.imageRef });
        }
    }

    /** `baseImage` pinned by digest: as given when it names one, else by the digest its registry holds for it (the Docker provider's defaults). */
    private pinnedBase(baseImage: string): pulumi.Output<string> {
        return isDigestPinned(baseImage)
            ? pulumi.output(baseImage)
            : docker.getRegistryImageOutput({ name: baseImage }, { parent: this }).sha256Digest.apply((digest) => pinnedReference(baseImage, digest));
    }

    /** A Docker provider logged in with `registry`'s credentials, when it has them (else the default provider). */
    private registryProvider(name: string, registry: RegistryCredentials): docker.Provider | undefined {
        return registry.username === undefined ? undefined : new docker.Provider(`${name}-registry`, {
            registryAuth: [{
                address: registry.server,
                username: registry.username,
                password: registry.password === undefined ? undefined : pulumi.secret(registry.password),
            }],
        }, { parent: this });
    }

    /** The registry's digest for `imageName:tag` through the Docker provider, undefined when it has none. */
    private dockerRegistryTagProbe(imageName: pulumi.Input<string>, tag: string, provider: docker.Provider | undefined): pulumi.Output<string | undefined> {
        return pulumi.output(imageName).apply((image) => heldDigest(`${image}:${tag}`,
            () => docker.getRegistryImage({ name: `${image}:${tag}` }, { parent: this, provider }).then((r) => r.sha256Digest)));
    }
}
