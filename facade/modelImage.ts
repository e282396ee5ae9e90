/**
 * `ModelImage` for every Pulumi language: the library's `ModelImage` (components/modelImage.ts) with
 * arguments the schema analyzer accepts. The model folder is read here (`preflight`); the registry's
 * digest is looked up the library's default way (the registry's v2 API with these credentials), and
 * what the last update pushed is read from the stack's checkpoint (facade/previousImage.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import * as library from "../lib/modelImage";
import { PreviousOutputs } from "../components/previousOutputs";
import { facadePreviousImage } from "./previousImage";
import { ModelDelivery } from "./enums";
import { absolutePath, loadableModel, oneOf } from "./values";

/** Where the image is pushed. */
export interface ImageRegistry {
    /** Registry host[:port], e.g. `registry.example.com` or `127.0.0.1:5000`. */
    server: pulumi.Input<string>;
    /** Registry user. Default: none (a registry that needs no login). */
    username?: pulumi.Input<string>;
    /** Registry password or token. Default: none. */
    password?: pulumi.Input<string>;
}

export interface ModelImageArgs {
    /** TF Serving model name (a DNS label): the image's model folder and `MODEL_NAME`. */
    modelName: string;
    /** Absolute path of the model base folder (numeric version folders inside); in YAML `${pulumi.cwd}/models/NAME`. */
    modelDir: string;
    /** Versions to bake. Default: the highest version folder (TF Serving's default). */
    versions?: number[];
    /** Version labels (`stable: 2`) written into the image's model config. Default none. */
    versionLabels?: Record<string, number>;
    /**
     * `embedded` (default): the model baked into the base, one image per model. `imageVolume`: a model-only
     * artifact (`imageRef`), content-tagged from the model alone, for a `ModelServer` that runs `serverImage` with it
     * mounted by an image volume; needs Kubernetes 1.35 and nodes on containerd 2.1 or CRI-O 1.31.
     */
    modelDelivery?: ModelDelivery;
    /** Build on the `-gpu` base. Default false. */
    gpu?: boolean;
    /** Base image override (a mirror of tensorflow/serving). Default: the pinned release. */
    baseImage?: string;
    /** Repository to push to, without tag, e.g. `registry.example.com/models/half-plus-two`. */
    imageName: pulumi.Input<string>;
    /** The registry and its credentials. */
    registry: ImageRegistry;
    /** Absolute path of the folder the build context is staged under (the program's folder: `${pulumi.cwd}` in YAML). */
    projectDir: string;
    /** Folder of the staged build context, relative to `projectDir`. Default `.tfs/build/<modelName>`. */
    contextDir?: string;
}

/** The library's arguments for these: the served versions from the model folder as TF Serving reads it. */
export function toModelImageArgs(name: string, args: ModelImageArgs): library.ModelImageArgs {
    const where = `ModelImage "${name}"`;
    const report = loadableModel(args.modelDir, args.versions, `${where} modelDir`);
    return {
        model: args.modelName,
        modelPath: report.baseDir,
        versions: report.servedVersions,
        versionLabels: args.versionLabels,
        modelDelivery: args.modelDelivery === undefined ? undefined : oneOf(args.modelDelivery, library.MODEL_DELIVERIES, `${where} modelDelivery`),
        gpu: args.gpu,
        baseImage: args.baseImage,
        imageName: args.imageName,
        registry: { server: args.registry.server, username: args.registry.username, password: args.registry.password },
        projectDir: absolutePath(args.projectDir, `${where} projectDir`),
        contextDir: args.contextDir ?? `.tfs/build/${args.modelName}`,
    };
}

/** A SavedModel baked into a pinned `tensorflow/serving` base, pushed, and pinned by the registry's digest. */
export class ModelImage extends pulumi.ComponentResource {
    /** `imageName@sha256:...`: the reference a `ModelServer` runs (a new model rolls the pods). */
    readonly imageRef: pulumi.Output<string>;
    /** The content tag: the same model and base give the same tag on any machine (with `imageVolume`, the same model alone). */
    readonly tag: pulumi.Output<string>;
    /** The image a `ModelServer` runs, pinned by digest: `imageRef`, or with `imageVolume` the base (its `modelArtifact` is then `imageRef`). */
    readonly serverImage: pulumi.Output<string>;

    constructor(name: string, args: ModelImageArgs, opts?: pulumi.ComponentResourceOptions) {
        // Mapped before anything is registered: a refused argument registers nothing.
        const libraryArgs = toModelImageArgs(name, args);
        super("tf-serving:index:ModelImage", name, {}, opts);
        const previous = new PreviousOutputs(false).resources().apply((resources) => facadePreviousImage(resources, name));
        const image = new library.ModelImage(name, { ...libraryArgs, previousImage: previous }, { parent: this });
        this.imageRef = image.imageRef;
        this.tag = pulumi.output(image.tag);
        this.serverImage = image.serverImage;
        this.registerOutputs({ imageRef: this.imageRef, tag: this.tag, serverImage: this.serverImage });
    }
}
