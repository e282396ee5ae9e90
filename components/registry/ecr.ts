/**
 * One ECR repository per model (`<prefix>/<model>`): scanned on push, immutable tags, a lifecycle
 * policy that keeps the last N images, and registry credentials from `GetAuthorizationToken` for
 * the build. EKS nodes pull with their role's AmazonEC2ContainerRegistryPullOnly policy.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

export interface EcrSettings {
    /** Repository names are `<repositoryPrefix>/<model>`, e.g. `tf-serving/half-plus-two`. */
    repositoryPrefix: string;
    /** Images kept per repository; the lifecycle policy expires older ones. */
    keepImages: number;
    /** Let `pulumi destroy` delete repositories that still hold images. */
    forceDelete: boolean;
}

export interface EcrArgs {
    settings: EcrSettings;
    /** Model names (DNS labels); one repository each. */
    models: string[];
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
        super("tf-serving:index:Ecr", name, {}, opts);
        this.repositories = {};
        for (const model of args.models) {
            const repository = new aws.ecr.Repository(`${name}-${model}`, {
                name: `${args.settings.repositoryPrefix}/${model}`,
                // Tags are content hashes: a tag never has to move.
                imageTagMutability: "IMMUTABLE",
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
        const repository = this.repositories[model];
        if (repository === undefined) {
            throw new Error(`no ECR repository for model "${model}" (repositories: ${Object.keys(this.repositories).join(", ")})`);
        }
        return pulumi.interpolate`${this.server}/${repository.name}`;
    }
}
