/**
 * Where the model images go on Google Cloud, readable by the cluster's nodes, with short-lived
 * credentials for the build, and the pushed tag's digest from Artifact Registry's own API. Two shapes:
 * - `docker.pkg.dev`: an Artifact Registry Docker repository this stack creates and owns (mutable
 *   tags, see `OWNED_DOCKER_CONFIG`; a cleanup policy), deleted with the stack.
 * - a `gcr.io` host: Container Registry is shut down and `gcr.io`, `us.gcr.io`, `eu.gcr.io` and
 *   `asia.gcr.io` are now Artifact Registry repositories named after the host, created once per
 *   project and shared by everyone who pushes there. This stack only reads that repository (a
 *   missing one stops the run with the fix) and grants its nodes read access as a resource of its
 *   own: it never creates it, never sets its policies, and a destroy leaves it and its images alone.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import type { RegistryDigestLookup, RegistryTagProbe } from "../../modelImage";
import { heldDigest, pushedImageName } from "../../pushedImage";
import type { ArgsIssue } from "../../argsIssues";
import { argsError } from "../../refusal";
import { GCP_REGION, MULTI_REGIONS, REPOSITORY_ID, projectIdIssue } from "./names";

export const GCR_HOSTS = ["gcr.io", "us.gcr.io", "eu.gcr.io", "asia.gcr.io"] as const;
export type GcrHost = (typeof GCR_HOSTS)[number];

/** `docker.pkg.dev`: `LOCATION-docker.pkg.dev/PROJECT/REPOSITORY/MODEL`. The others: `HOST/PROJECT/MODEL`. */
export const ARTIFACT_REGISTRY_HOSTS = ["docker.pkg.dev", ...GCR_HOSTS] as const;
export type ArtifactRegistryHost = (typeof ARTIFACT_REGISTRY_HOSTS)[number];

/** The multi-region each `gcr.io` host is served from. */
const GCR_LOCATIONS: Record<GcrHost, string> = {
    "gcr.io": "us",
    "us.gcr.io": "us",
    "eu.gcr.io": "europe",
    "asia.gcr.io": "asia",
};

/** A repository this stack creates and owns. */
export interface OwnedRepositorySettings {
    host: "docker.pkg.dev";
    /** Region or multi-region, e.g. `us-central1` (the cluster's region keeps pulls local). */
    location: string;
    /** Repository id, e.g. `tf-serving`. */
    repository: string;
    /** Images (versions) kept per model; older ones are deleted by a cleanup policy. */
    keepImages: number;
}

/** The project's shared `gcr.io` repository: used, never owned (its location and id follow from the host). */
export interface GcrRepositorySettings {
    host: GcrHost;
}

export type ArtifactRegistrySettings = OwnedRepositorySettings | GcrRepositorySettings;

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
    if (isOwned(settings)) {
        const server = `${settings.location}-docker.pkg.dev`;
        return { location: settings.location, repositoryId: settings.repository, server, imagePrefix: `${server}/${inPath}/${settings.repository}` };
    }
    return { location: GCR_LOCATIONS[settings.host], repositoryId: settings.host, server: settings.host, imagePrefix: `${settings.host}/${inPath}` };
}

function isOwned(settings: ArtifactRegistrySettings): settings is OwnedRepositorySettings {
    return settings.host === "docker.pkg.dev";
}

/**
 * Docker settings of a repository this stack owns: tags stay mutable. Artifact Registry's immutable
 * tags refuse to move a tag, and it has no exclusion filter (ECR's `IMMUTABLE_WITH_EXCLUSION`), while
 * a content tag (`ctx-*`) is pushed again whenever an Image is rebuilt from an unchanged model (an
 * update after `pulumi refresh`, a second stack, another machine), and builds are not bit-for-bit
 * reproducible, so that push may carry another digest: it must succeed. Pods run a digest, never a
 * tag, so a tag that moves changes nothing that runs. Explicit `false`: an update turns it off on a
 * repository an earlier version created with immutable tags.
 */
export const OWNED_DOCKER_CONFIG = { immutableTags: false } as const;

/** The arguments of a repository this stack owns: Docker, mutable tags, a cleanup policy keeping `keepImages` per image. */
export function ownedRepositoryArgs(project: string, settings: OwnedRepositorySettings): gcp.artifactregistry.RepositoryArgs {
    const naming = artifactRegistryNaming(project, settings);
    return {
        project,
        location: naming.location,
        repositoryId: naming.repositoryId,
        format: "DOCKER",
        description: "TensorFlow Serving model images (tf-serving)",
        dockerConfig: OWNED_DOCKER_CONFIG,
        cleanupPolicyDryRun: false,
        cleanupPolicies: [
            { id: "keep-recent", action: "KEEP", mostRecentVersions: { keepCount: settings.keepImages } },
            { id: "delete-older", action: "DELETE", condition: { tagState: "ANY" } },
        ],
    };
}

/**
 * The manifest digest in a Docker image's Artifact Registry name
 * (`projects/P/locations/L/repositories/R/dockerImages/IMAGE@sha256:...`) or URI (`HOST/.../IMAGE@sha256:...`).
 */
export function dockerImageDigest(name: string): string {
    const digest = /@(sha256:[0-9a-f]{64})$/.exec(name)?.[1];
    if (digest === undefined) {
        throw new Error(`Artifact Registry answered a Docker image without a sha256 digest: "${name}"`);
    }
    return digest;
}

/** What to do when the shared `gcr.io` repository cannot be read (usually: the project never set it up). */
export function gcrRepositoryProblem(project: string, host: GcrHost, cause: string): string {
    const location = GCR_LOCATIONS[host];
    return `tf-serving:gke.registry.host = ${host}: cannot read the Artifact Registry repository "${host}" (location ${location}) ` +
        `of project ${project}${cause.trim() ? `: ${cause.trim().replace(/\.$/, "")}` : ""}. With a gcr.io host this stack pushes to the project's existing ${host} repository and never ` +
        `creates or deletes it (it is shared). Create it once (\`gcloud artifacts repositories create ${host} --repository-format=docker ` +
        `--location=${location} --project=${project}\`), or remove gke.registry.host to use a docker.pkg.dev repository this stack owns.`;
}

/**
 * Reads the project's `gcr.io` repository for `host`; resolves to its repository id, or fails the
 * run (preview included: invokes run there) with `gcrRepositoryProblem`, without a stack trace.
 */
export async function findGcrRepository(project: string, host: GcrHost, opts?: pulumi.InvokeOptions): Promise<string> {
    const { location, repositoryId } = artifactRegistryNaming(project, { host });
    try {
        await gcp.artifactregistry.getRepository({ project, location, repositoryId }, opts);
    } catch (err) {
        throw new pulumi.RunError(gcrRepositoryProblem(project, host, err instanceof Error ? err.message : String(err)));
    }
    return repositoryId;
}

export interface ArtifactRegistryArgs {
    /** Google Cloud project id of the repository (and of the image paths). */
    project: string;
    /**
     * `docker.pkg.dev`: a repository this component creates and owns (immutable tags, a cleanup policy
     * keeping `keepImages` per model). A `gcr.io` host: the project's existing shared repository, only
     * read (a missing one fails the run with the command that creates it) and never deleted.
     */
    settings: ArtifactRegistrySettings;
    /** IAM members (`serviceAccount:...`) granted `roles/artifactregistry.reader` on this repository only: the GKE nodes. */
    readers: pulumi.Input<string>[];
}

/** Access tokens work as Docker passwords for this fixed user name. */
const TOKEN_USER = "oauth2accesstoken";

/** The keys of a repository this stack owns, which a `gcr.io` host's shared repository fixes. */
const OWNED_KEYS = ["location", "repository", "keepImages"] as const;
/** The IAM member forms a reader may take (`serviceAccount:...`); `allUsers` would make every model image public. */
const IAM_MEMBER = /^(serviceAccount|user|group|domain|principal|principalSet):\S+$/;

/** What is wrong with registry settings, each under its field (`prefix` + key; pure). The stack's `gke.registry` maps onto it. */
export function artifactRegistrySettingsIssues(settings: ArtifactRegistrySettings, prefix = ""): ArgsIssue[] {
    const given = settings as unknown as Record<string, unknown>;
    const host = given.host;
    if (!(ARTIFACT_REGISTRY_HOSTS as readonly unknown[]).includes(host)) {
        return [{ field: `${prefix}host`, value: host, message: `must be one of ${ARTIFACT_REGISTRY_HOSTS.map((h) => `"${h}"`).join(", ")}` }];
    }
    if (host !== "docker.pkg.dev") {
        return OWNED_KEYS.filter((key) => given[key] !== undefined).map((key) => ({
            field: `${prefix}${key}`, value: given[key],
            message: key === "keepImages"
                ? `does not apply with host "${host}": the ${host} repository is shared by the whole project, so this stack ` +
                    "sets no cleanup policy on it (set one on the repository yourself), or remove the host for a repository this stack owns"
                : `does not apply with host "${host}": the repository is named "${host}" in its fixed multi-region`,
        }));
    }
    const issues: ArgsIssue[] = [];
    const { location, repository, keepImages } = given;
    if (typeof repository !== "string" || !REPOSITORY_ID.test(repository)) {
        issues.push({ field: `${prefix}repository`, value: repository, message: "must be a repository id: lowercase letters, digits and '-', starting with a letter, at most 63 characters" });
    }
    if (typeof location !== "string" || !(GCP_REGION.test(location) || (MULTI_REGIONS as readonly string[]).includes(location))) {
        issues.push({ field: `${prefix}location`, value: location, message: "must be a region such as \"us-central1\" or a multi-region \"us\", \"europe\", \"asia\"" });
    }
    if (typeof keepImages !== "number" || !Number.isInteger(keepImages) || keepImages < 1 || keepImages > 1000) {
        issues.push({ field: `${prefix}keepImages`, value: keepImages, message: "must be a whole number from 1 to 1000: the images kept per model, older ones deleted" });
    }
    return issues;
}

/** What is wrong with the component's arguments, each under its field (pure). */
export function artifactRegistryIssues(args: ArtifactRegistryArgs): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const project = projectIdIssue("project", args.project);
    if (project !== undefined) {
        issues.push(project);
    }
    issues.push(...(args.settings === undefined || args.settings === null
        ? [{ field: "settings", value: args.settings, message: "required: { host: \"docker.pkg.dev\", location, repository, keepImages } or { host: \"gcr.io\" }" }]
        : artifactRegistrySettingsIssues(args.settings, "settings.")));
    if (!Array.isArray(args.readers)) {
        issues.push({ field: "readers", value: args.readers, message: "must be a list of IAM members (`serviceAccount:NODES@PROJECT.iam.gserviceaccount.com`), empty for none" });
    } else {
        args.readers.forEach((member, i) => {
            if (typeof member === "string" && !IAM_MEMBER.test(member)) {
                issues.push({
                    field: `readers[${i}]`, value: member,
                    message: "must be an IAM member such as \"serviceAccount:NODES@PROJECT.iam.gserviceaccount.com\" (allUsers and allAuthenticatedUsers would make every model image public)",
                });
            }
        });
    }
    return issues;
}

export class ArtifactRegistry extends pulumi.ComponentResource {
    /** The repository this stack owns (`docker.pkg.dev`); undefined with a `gcr.io` host, whose shared repository is only read. */
    readonly repository?: gcp.artifactregistry.Repository;
    /** Registry host to log into. */
    readonly server: pulumi.Output<string>;
    readonly username: pulumi.Output<string>;
    /** The deploying identity's OAuth access token (secret; valid for about an hour, fetched on every run). */
    readonly password: pulumi.Output<string>;
    private readonly imagePrefix: pulumi.Output<string>;
    private readonly project: string;
    private readonly location: string;
    /** The repository id, once the repository exists. */
    private readonly ready: pulumi.Output<string>;

    constructor(name: string, args: ArtifactRegistryArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = artifactRegistryIssues(args);
        if (issues.length > 0) {
            throw argsError("ArtifactRegistry", name, issues);
        }
        super("tf-serving:index:ArtifactRegistry", name, {}, opts);
        const { project, settings } = args;
        const naming = artifactRegistryNaming(project, settings);

        // Resolves to the repository id once the repository exists (created here, or found): image
        // names and grants wait for it, so nothing is pushed or granted on a repository that is not there.
        let ready: pulumi.Output<string>;
        if (isOwned(settings)) {
            this.repository = new gcp.artifactregistry.Repository(`${name}-repo`, ownedRepositoryArgs(project, settings), { parent: this });
            ready = this.repository.repositoryId;
        } else {
            ready = pulumi.output(findGcrRepository(project, settings.host, { parent: this }));
        }

        args.readers.forEach((member, i) => new gcp.artifactregistry.RepositoryIamMember(`${name}-reader-${i}`, {
            project,
            location: naming.location,
            repository: ready,
            role: "roles/artifactregistry.reader",
            member,
        }, { parent: this }));

        // The repository id is in the image name: wait for the repository before any push.
        this.imagePrefix = ready.apply(() => naming.imagePrefix);
        this.server = pulumi.output(naming.server);
        this.username = pulumi.output(TOKEN_USER);
        this.password = pulumi.secret(gcp.organizations.getClientConfigOutput({ parent: this }).accessToken);
        this.project = project;
        this.location = naming.location;
        this.ready = ready;

        this.registerOutputs({ server: this.server, imagePrefix: this.imagePrefix });
    }

    /** Image name without tag for a model. */
    imageName(model: string): pulumi.Output<string> {
        return pulumi.interpolate`${this.imagePrefix}/${model}`;
    }

    /**
     * A model's pushed tag digest, from Artifact Registry's API with the Google provider's credentials:
     * unlike a Docker registry login, nothing in it carries the access token that changes on every run.
     * The image is named inside the repository (`MODEL:TAG`); the project id stays as Google writes it
     * (`example.com:my-project`), not as in image paths.
     */
    registryDigest(model: string): RegistryDigestLookup {
        return (tag, image) => gcp.artifactregistry.getDockerImageOutput({
            project: this.project,
            location: this.location,
            // Through the pushed name, so the lookup waits for the push (and never runs in its preview).
            repositoryId: pulumi.all([this.ready, pushedImageName(image)]).apply(([id]) => id),
            imageName: `${model}:${tag}`,
        }, { parent: this, dependsOn: [image] }).name.apply(dockerImageDigest);
    }

    /** Whether Artifact Registry holds a model's tag already, and its digest (as `registryDigest`). */
    registryProbe(model: string): RegistryTagProbe {
        return (tag) => pulumi.all([this.project, this.location, this.ready]).apply(([project, location, repositoryId]) => heldDigest(`${model}:${tag}`,
            () => gcp.artifactregistry.getDockerImage({ project, location, repositoryId, imageName: `${model}:${tag}` }, { parent: this })
                .then((image) => dockerImageDigest(image.name))));
    }
}
