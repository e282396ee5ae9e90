/**
 * ModelImage: the model baked into a pinned `tensorflow/serving` base, built and pushed with
 * `@pulumi/docker`, exposed pinned by digest.
 *
 * The build context is staged (only the served version folders, a rendered Dockerfile) in a
 * stable folder, so `docker.Image`'s context hash, and with it the image, changes only when the
 * model does: an unchanged model builds and rolls nothing.
 */
import * as docker from "@pulumi/docker";
import * as pulumi from "@pulumi/pulumi";
import { stageBuildContext } from "../serving/buildContext";
import { contextDigest } from "../serving/contextDigest";
import { defaultBaseImage } from "../serving/images";

export interface RegistryCredentials {
    /** Registry host (`localhost:5001`, `us-docker.pkg.dev`, `ACCOUNT.dkr.ecr.REGION.amazonaws.com`). */
    server: pulumi.Input<string>;
    username?: pulumi.Input<string>;
    /** Kept secret in state. */
    password?: pulumi.Input<string>;
}

export interface ModelImageArgs {
    /** TF Serving model name; the model lands in `/models/<modelName>/<version>/`. */
    modelName: string;
    /** The model base folder on disk (numeric version folders inside). */
    modelBaseDir: string;
    /** Versions to bake; they must exist (the preflight checked). */
    versions: number[];
    /** Serve exactly these versions with these labels (a model config file); otherwise the latest only. */
    versionLabels?: Record<string, number>;
    /** Use the `-gpu` base. Ignored when `baseImage` is set. */
    gpu?: boolean;
    /** Base image override; default the pinned `tensorflow/serving` release. */
    baseImage?: string;
    /** Image name without a tag (`REGISTRY/REPO/NAME`); the tag is the context's content digest. */
    imageName: pulumi.Input<string>;
    registry: RegistryCredentials;
    /** Stable folder to stage the build context in (one per stack and model). */
    stagingDir: string;
}

export class ModelImage extends pulumi.ComponentResource {
    /** `name@sha256:...`: what the pod spec uses. */
    readonly imageRef: pulumi.Output<string>;
    /** The tag pushed (content digest prefix), for humans and registries' UIs. */
    readonly tag: string;
    readonly image: docker.Image;

    constructor(name: string, args: ModelImageArgs, opts?: pulumi.ComponentResourceOptions) {
        super("tf-serving:index:ModelImage", name, {}, opts);
        const staged = stageBuildContext({
            modelBaseDir: args.modelBaseDir,
            modelName: args.modelName,
            versions: args.versions,
            versionLabels: args.versionLabels,
            baseImage: args.baseImage ?? defaultBaseImage(args.gpu ?? false),
            outDir: args.stagingDir,
        });
        this.tag = contextDigest(staged.outDir).slice(0, 16);

        this.image = new docker.Image(name, {
            imageName: pulumi.interpolate`${args.imageName}:${this.tag}`,
            build: {
                context: staged.outDir,
                dockerfile: staged.dockerfile,
                platform: "linux/amd64",
            },
            registry: {
                server: args.registry.server,
                username: args.registry.username,
                password: args.registry.password === undefined ? undefined : pulumi.secret(args.registry.password),
            },
        }, { parent: this });

        this.imageRef = this.image.repoDigest;
        this.registerOutputs({ imageRef: this.imageRef });
    }
}
