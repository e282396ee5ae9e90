/**
 * One ECR repository per model (`<prefix>/<model>`): scanned on push, tags immutable except the
 * content tags this program pushes, a lifecycle policy that keeps the last N images, registry
 * credentials from `GetAuthorizationToken` for the build, and the pushed tag's digest from ECR's
 * own API. EKS nodes pull with their role's AmazonEC2ContainerRegistryPullOnly policy.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { RegistryDigestLookup, RegistryTagProbe } from "../../modelImage";
import { heldDigest, pushedImageName } from "../../pushedImage";
import { CONTENT_TAG_WILDCARD } from "../../../serving/contentTag";
import { REPOSITORY_PATH } from "../../../contract/registry";
import { modelNameProblem } from "../../../serving/modelConfig";
import type { ArgsIssue } from "../../argsIssues";
import { argsError } from "../../refusal";

export interface EcrSettings {
    /** Repository names are `<repositoryPrefix>/<model>`, e.g. `tf-serving/half-plus-two`. */
    repositoryPrefix: string;
    /** Images kept per repository; the lifecycle policy expires older ones. */
    keepImages: number;
    /** Let `pulumi destroy` delete repositories that still hold images. */
    forceDelete: boolean;
}

export interface EcrArgs {
    /** Naming, retention and deletion of the repositories (one per model). */
    settings: EcrSettings;
    /** Model names (DNS labels); one repository each. */
    models: string[];
}

/**
 * Tag mutability: immutable, except the content tags (`ctx-*`) this program pushes. ECR refuses to
 * push an existing tag to an IMMUTABLE repository even with the identical digest
 * (ImageTagAlreadyExistsException, aws/containers-roadmap#2179), and a content tag is pushed again
 * whenever an Image is rebuilt from the same model: an update after `pulumi refresh`, a second stack
 * on the same model, a rebuild on another machine (builds are not bit-for-bit reproducible, so even
 * the digest may differ). Such a push must succeed; pods run a digest, never a tag, so a tag that
 * moves changes nothing that runs. Any other tag (a release tag pushed by hand) stays immutable.
 */
export function tagMutability(): { imageTagMutability: string; imageTagMutabilityExclusionFilters: { filter: string; filterType: "WILDCARD" }[] } {
    return {
        imageTagMutability: "IMMUTABLE_WITH_EXCLUSION",
        imageTagMutabilityExclusionFilters: [{ filter: CONTENT_TAG_WILDCARD, filterType: "WILDCARD" }],
    };
}

/** What is wrong with repository settings, each under `prefix` + field (pure). The stack's `eks.registry` maps onto it. */
export function ecrSettingsIssues(settings: EcrSettings, prefix = ""): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const { repositoryPrefix, keepImages, forceDelete } = settings;
    if (typeof repositoryPrefix !== "string" || !REPOSITORY_PATH.test(repositoryPrefix)) {
        issues.push({ field: `${prefix}repositoryPrefix`, value: repositoryPrefix, message: "must be a lowercase ECR repository path such as \"tf-serving\" or \"team/models\"" });
    }
    if (typeof keepImages !== "number" || !Number.isInteger(keepImages) || keepImages < 1 || keepImages > 1000) {
        issues.push({ field: `${prefix}keepImages`, value: keepImages, message: "must be a whole number from 1 to 1000: the images kept per model, older ones expired" });
    }
    if (typeof forceDelete !== "boolean") {
        issues.push({ field: `${prefix}forceDelete`, value: forceDelete, message: "must be true or false: whether `pulumi destroy` deletes repositories that still hold images" });
    }
    return issues;
}

/** What is wrong with `Ecr`'s arguments, each under its field (pure). */
export function ecrIssues(args: EcrArgs): ArgsIssue[] {
    const issues = args.settings === undefined || args.settings === null
        ? [{ field: "settings", value: args.settings, message: "required: { repositoryPrefix, keepImages, forceDelete }" }]
        : ecrSettingsIssues(args.settings, "settings.");
    if (!Array.isArray(args.models) || args.models.length === 0) {
        return [...issues, { field: "models", value: args.models, message: "must list the model names, one repository each (e.g. [\"half-plus-two\"])" }];
    }
    args.models.forEach((model, i) => {
        const problem = typeof model === "string" ? modelNameProblem(model) : "must be a model name";
        if (problem !== undefined) {
            issues.push({ field: `models[${i}]`, value: model, message: problem });
        } else if (args.models.indexOf(model) !== i) {
            issues.push({ field: `models[${i}]`, value: model, message: `names "${model}" twice: one repository per model` });
        }
    });
    return issues;
}

/** A model's repository: `<repositoryPrefix>/<model>`. */
export function ecrRepositoryName(repositoryPrefix: string, model: string): string {
    return `${repositoryPrefix}/${model}`;
}

/** ECR lifecycle policy text: expire all but the newest `keep` images, tagged or not. */
export function lifecyclePolicy(keep: number): string {
    return JSON.stringify({
        rules: [{
            rulePriority: 1,
            description: `Keep the last ${keep} images`,
            selection: { tagStatus: "any", countType: "imageCountMoreThan", countNumber: keep },
            action: { type: "expire" },
        }],
    });
}

export class Ecr extends pulumi.ComponentResource {
    readonly repositories: Record<string, aws.ecr.Repository>;
    /** Registry host to log into (`ACCOUNT.dkr.ecr.REGION.amazonaws.com`). */
    readonly server: pulumi.Output<string>;
    readonly username: pulumi.Output<string>;
    /** Docker password from `GetAuthorizationToken` (secret; valid 12 hours, fetched on every run). */
    readonly password: pulumi.Output<string>;

    constructor(name: string, args: EcrArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = ecrIssues(args);
        if (issues.length > 0) {
            throw argsError("Ecr", name, issues);
        }
        super("tf-serving:index:Ecr", name, {}, opts);
        this.repositories = {};
        for (const model of args.models) {
            const repository = new aws.ecr.Repository(`${name}-${model}`, {
                name: ecrRepositoryName(args.settings.repositoryPrefix, model),
                ...tagMutability(),
                imageScanningConfiguration: { scanOnPush: true },
                forceDelete: args.settings.forceDelete,
            }, { parent: this });
            new aws.ecr.LifecyclePolicy(`${name}-${model}`, {
                repository: repository.name,
                policy: lifecyclePolicy(args.settings.keepImages),
            }, { parent: this });
            this.repositories[model] = repository;
        }

        const token = aws.ecr.getAuthorizationTokenOutput({}, { parent: this });
        this.server = token.proxyEndpoint.apply((endpoint) => endpoint.replace(/^https?:\/\//, ""));
        this.username = pulumi.secret(token.userName);
        this.password = pulumi.secret(token.password);

        this.registerOutputs({ server: this.server });
    }

    /** Image name without tag for a model: its repository URL, known once the repository exists. */
    imageName(model: string): pulumi.Output<string> {
        const repository = this.repository(model);
        return pulumi.interpolate`${this.server}/${repository.name}`;
    }

    /**
     * A model's pushed tag digest, from ECR's DescribeImages (the AWS provider's credentials): unlike
     * a Docker registry login, it needs no token that changes on every run.
     */
    registryDigest(model: string): RegistryDigestLookup {
        const repository = this.repository(model);
        return (tag, image) => aws.ecr.getImageOutput({
            // Through the pushed name, so the lookup waits for the push (and never runs in its preview).
            repositoryName: pulumi.all([repository.name, pushedImageName(image)]).apply(([name]) => name),
            imageTag: tag,
        }, { parent: this, dependsOn: [image] }).imageDigest;
    }

    /** Whether ECR holds a model's tag already, and its digest (DescribeImages, as `registryDigest`). */
    registryProbe(model: string): RegistryTagProbe {
        const repository = this.repository(model);
        return (tag) => repository.name.apply((name) => heldDigest(`${name}:${tag}`,
            () => aws.ecr.getImage({ repositoryName: name, imageTag: tag }, { parent: this }).then((image) => image.imageDigest)));
    }

    private repository(model: string): aws.ecr.Repository {
        const repository = this.repositories[model];
        if (repository === undefined) {
            throw new pulumi.RunError(`no ECR repository for model "${model}" (repositories: ${Object.keys(this.repositories).join(", ")})`);
        }
        return repository;
    }
}
