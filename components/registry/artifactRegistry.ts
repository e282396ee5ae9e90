/**
 * An Artifact Registry Docker repository for the model images, readable by the cluster's nodes,
 * with short-lived credentials for the build. Container Registry is shut down: `gcr.io` names are
 * now Artifact Registry repositories named after the host (`gcr.io` lives in the `us` multi-region).
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

/** `docker.pkg.dev`: `LOCATION-docker.pkg.dev/PROJECT/REPOSITORY/MODEL`. The others: `HOST/PROJECT/MODEL`. */
export const ARTIFACT_REGISTRY_HOSTS = ["docker.pkg.dev", "gcr.io", "us.gcr.io", "eu.gcr.io", "asia.gcr.io"] as const;
export type ArtifactRegistryHost = (typeof ARTIFACT_REGISTRY_HOSTS)[number];

/** The multi-region each `gcr.io` host is served from. */
const GCR_LOCATIONS: Record<Exclude<ArtifactRegistryHost, "docker.pkg.dev">, string> = {
    "gcr.io": "us",
    "us.gcr.io": "us",
    "eu.gcr.io": "europe",
    "asia.gcr.io": "asia",
};

export interface ArtifactRegistrySettings {
    /** Naming scheme; a `gcr.io` host fixes the location and repository id. */
    host: ArtifactRegistryHost;
    /** Region or multi-region of a `docker.pkg.dev` repository, e.g. `us-central1` (the cluster's region keeps pulls local). */
    location: string;
    /** Repository id of a `docker.pkg.dev` repository, e.g. `tf-serving`. */
    repository: string;
    /** Images (versions) kept per model; older ones are deleted by a cleanup policy. */
    keepImages: number;
}

export interface ArtifactRegistryNaming {
    location: string;
    repositoryId: string;
    /** Host the build logs into. */
    server: string;
    /** Image names are `<imagePrefix>/<model>`. */
    imagePrefix: string;
}

/**
 * The project id as it is written in an image path. A colon is not valid there, so Google writes a
 * domain-scoped project `example.com:my-project` as `example.com/my-project` in Artifact Registry
 * and `gcr.io` paths; any other project id is unchanged.
 */
export function imagePathProject(project: string): string {
    return project.replace(":", "/");
}

/** Where a repository lives and how its images are named. */
export function artifactRegistryNaming(project: string, settings: ArtifactRegistrySettings): ArtifactRegistryNaming {
    const inPath = imagePathProject(project);
    if (settings.host === "docker.pkg.dev") {
        const server = `${settings.location}-docker.pkg.dev`;
        return { location: settings.location, repositoryId: settings.repository, server, imagePrefix: `${server}/${inPath}/${settings.repository}` };
    }
    return { location: GCR_LOCATIONS[settings.host], repositoryId: settings.host, server: settings.host, imagePrefix: `${settings.host}/${inPath}` };
}

export interface ArtifactRegistryArgs {
    /** Google Cloud project id. */
    project: string;
    settings: ArtifactRegistrySettings;
    /** IAM members (`serviceAccount:...`) granted `roles/artifactregistry.reader` on this repository only: the GKE nodes. */
    readers: pulumi.Input<string>[];
}

/** Access tokens work as Docker passwords for this fixed user name. */
const TOKEN_USER = "oauth2accesstoken";

export class ArtifactRegistry extends pulumi.ComponentResource {
    readonly repository: gcp.artifactregistry.Repository;
    /** Registry host to log into. */
    readonly server: pulumi.Output<string>;
    readonly username: pulumi.Output<string>;
    /** The deploying identity's OAuth access token (secret; valid for about an hour, fetched on every run). */
    readonly password: pulumi.Output<string>;
    private readonly imagePrefix: pulumi.Output<string>;

    constructor(name: string, args: ArtifactRegistryArgs, opts?: pulumi.ComponentResourceOptions) {
        super("tf-serving:index:ArtifactRegistry", name, {}, opts);
        const naming = artifactRegistryNaming(args.project, args.settings);

        this.repository = new gcp.artifactregistry.Repository(`${name}-repo`, {
            project: args.project,
            location: naming.location,
            repositoryId: naming.repositoryId,
            format: "DOCKER",
            description: "TensorFlow Serving model images (tf-serving)",
            // Tags are content hashes: a tag never has to move.
            dockerConfig: { immutableTags: true },
            cleanupPolicyDryRun: false,
            cleanupPolicies: [
                { id: "keep-recent", action: "KEEP", mostRecentVersions: { keepCount: args.settings.keepImages } },
                { id: "delete-older", action: "DELETE", condition: { tagState: "ANY" } },
            ],
        }, { parent: this });

        args.readers.forEach((member, i) => new gcp.artifactregistry.RepositoryIamMember(`${name}-reader-${i}`, {
            project: args.project,
            location: this.repository.location,
            repository: this.repository.name,
            role: "roles/artifactregistry.reader",
            member,
        }, { parent: this }));

        // The repository id is in the image name: wait for the repository before any push.
        this.imagePrefix = this.repository.repositoryId.apply(() => naming.imagePrefix);
        this.server = pulumi.output(naming.server);
        this.username = pulumi.output(TOKEN_USER);
        this.password = pulumi.secret(gcp.organizations.getClientConfigOutput({ parent: this }).accessToken);

        this.registerOutputs({ server: this.server, imagePrefix: this.imagePrefix });
    }

    /** Image name without tag for a model. */
    imageName(model: string): pulumi.Output<string> {
        return pulumi.interpolate`${this.imagePrefix}/${model}`;
    }
}
