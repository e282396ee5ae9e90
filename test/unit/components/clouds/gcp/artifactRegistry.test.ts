import * as assert from "assert";
import * as docker from "@pulumi/docker";
import * as pulumi from "@pulumi/pulumi";
import {
    ArtifactRegistry, ArtifactRegistrySettings, OwnedRepositorySettings, artifactRegistryNaming, dockerImageDigest, findGcrRepository, gcrRepositoryProblem,
    imagePathProject,
} from "../../../../../components/clouds/gcp/artifactRegistry";
import { MockOptions, fakeDigest } from "../../../../../ops/planRuntime";
import { settleOutput, startMockRuntime } from "../../../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const PKG_DEV: OwnedRepositorySettings = { host: "docker.pkg.dev", location: "us-central1", repository: "tf-serving", keepImages: 10 };

describe("Artifact Registry naming", () => {
    it("docker.pkg.dev: LOCATION-docker.pkg.dev/PROJECT/REPOSITORY", () => {
        assert.deepStrictEqual(artifactRegistryNaming("my-project", PKG_DEV), {
            location: "us-central1",
            repositoryId: "tf-serving",
            server: "us-central1-docker.pkg.dev",
            imagePrefix: "us-central1-docker.pkg.dev/my-project/tf-serving",
        });
    });

    it("gcr.io hosts: a repository named after the host, in the host's multi-region", () => {
        assert.deepStrictEqual(artifactRegistryNaming("my-project", { host: "gcr.io" }),
            { location: "us", repositoryId: "gcr.io", server: "gcr.io", imagePrefix: "gcr.io/my-project" });
        assert.strictEqual(artifactRegistryNaming("p", { host: "eu.gcr.io" }).location, "europe");
        assert.strictEqual(artifactRegistryNaming("p", { host: "asia.gcr.io" }).location, "asia");
        assert.strictEqual(artifactRegistryNaming("p", { host: "us.gcr.io" }).location, "us");
    });

    it("a domain-scoped project is written DOMAIN/PROJECT in image paths (a colon is invalid there)", () => {
        assert.strictEqual(imagePathProject("example.com:my-project"), "example.com/my-project");
        assert.strictEqual(imagePathProject("my-project"), "my-project");
        assert.strictEqual(artifactRegistryNaming("example.com:my-project", PKG_DEV).imagePrefix,
            "us-central1-docker.pkg.dev/example.com/my-project/tf-serving");
        assert.strictEqual(artifactRegistryNaming("example.com:my-project", { host: "eu.gcr.io" }).imagePrefix,
            "eu.gcr.io/example.com/my-project");
    });
});

describe("ArtifactRegistry", () => {
    async function build(settings: ArtifactRegistrySettings) {
        const invokes: { token: string; args: Record<string, unknown> }[] = [];
        const recorder = await startMockRuntime({ call: (token, args) => { invokes.push({ token, args }); return undefined; } });
        const registry = new ArtifactRegistry("images", {
            project: "my-project",
            settings,
            readers: ["serviceAccount:tf-serving-nodes@my-project.iam.gserviceaccount.com"],
        });
        const resolved = {
            imageName: await settleOutput(registry.imageName("half-plus-two")),
            server: await settleOutput(registry.server),
            username: await settleOutput(registry.username),
            password: await settleOutput(registry.password),
            passwordIsSecret: await pulumi.isSecret(registry.password),
        };
        await recorder.settle();
        return { recorder, resolved, invokes };
    }

    it("a DOCKER repository with a cleanup policy keeping the last N", async () => {
        const { recorder } = await build({ ...PKG_DEV, keepImages: 7 });
        const repo = recorder.one("gcp:artifactregistry/repository:Repository").inputs as any;
        assert.strictEqual(repo.format, "DOCKER");
        assert.strictEqual(repo.location, "us-central1");
        assert.strictEqual(repo.repositoryId, "tf-serving");
        assert.strictEqual(repo.cleanupPolicyDryRun, false);
        const keep = repo.cleanupPolicies.find((p: any) => p.action === "KEEP");
        assert.deepStrictEqual(keep.mostRecentVersions, { keepCount: 7 });
        assert.ok(repo.cleanupPolicies.some((p: any) => p.action === "DELETE"));
    });

    it("mutable tags (explicitly false): a content tag pushed again with another build's digest must not be refused", async () => {
        // Artifact Registry has no exclusion filter for immutable tags (ECR's ctx-* exclusion): every tag
        // stays mutable, and pods are pinned by digest.
        const { recorder } = await build(PKG_DEV);
        const repo = recorder.one("gcp:artifactregistry/repository:Repository").inputs as any;
        assert.deepStrictEqual(repo.dockerConfig, { immutableTags: false });
    });

    it("grants the nodes reader on this repository only", async () => {
        const { recorder } = await build(PKG_DEV);
        const members = recorder.ofType("gcp:artifactregistry/repositoryIamMember:RepositoryIamMember").map((m) => m.inputs as any);
        assert.deepStrictEqual(members.map((m) => [m.role, m.member, m.repository]), [
            ["roles/artifactregistry.reader", "serviceAccount:tf-serving-nodes@my-project.iam.gserviceaccount.com", "tf-serving"],
        ]);
        assert.strictEqual(recorder.ofType("gcp:projects/iAMMember:IAMMember").length, 0, "no project-wide grant");
    });

    it("image names and build credentials: oauth2accesstoken with the access token, as a secret", async () => {
        const { resolved } = await build(PKG_DEV);
        assert.strictEqual(resolved.imageName, "us-central1-docker.pkg.dev/my-project/tf-serving/half-plus-two");
        assert.strictEqual(resolved.server, "us-central1-docker.pkg.dev");
        assert.strictEqual(resolved.username, "oauth2accesstoken");
        assert.strictEqual(resolved.password, "mock-gcp-access-token");
        assert.strictEqual(resolved.passwordIsSecret, true);
    });

    it("a gcr.io host: the project's shared repository is read, never created, and gets no policy of ours", async () => {
        const { recorder, resolved, invokes } = await build({ host: "gcr.io" });
        assert.strictEqual(recorder.ofType("gcp:artifactregistry/repository:Repository").length, 0, "no Repository resource: a destroy must not delete it");
        const lookups = invokes.filter((i) => i.token === "gcp:artifactregistry/getRepository:getRepository");
        assert.deepStrictEqual(lookups.map((l) => l.args), [{ project: "my-project", location: "us", repositoryId: "gcr.io" }]);
        assert.strictEqual(resolved.imageName, "gcr.io/my-project/half-plus-two");
        assert.strictEqual(resolved.server, "gcr.io");
    });

    it("a gcr.io host: the nodes' read access is a grant of its own on that repository (removed alone on destroy)", async () => {
        const { recorder } = await build({ host: "eu.gcr.io" });
        const members = recorder.ofType("gcp:artifactregistry/repositoryIamMember:RepositoryIamMember").map((m) => m.inputs as any);
        assert.deepStrictEqual(members.map((m) => [m.role, m.member, m.repository, m.location]), [
            ["roles/artifactregistry.reader", "serviceAccount:tf-serving-nodes@my-project.iam.gserviceaccount.com", "eu.gcr.io", "europe"],
        ]);
        assert.strictEqual(recorder.ofType("gcp:artifactregistry/repositoryIamBinding:RepositoryIamBinding").length, 0, "never authoritative on a shared repository");
        assert.strictEqual(recorder.ofType("gcp:artifactregistry/repositoryIamPolicy:RepositoryIamPolicy").length, 0);
    });

    it("a missing gcr.io repository stops the run with that message and no stack trace (a RunError)", async () => {
        await startMockRuntime({
            call: (token, args) => {
                if (token === "gcp:artifactregistry/getRepository:getRepository") {
                    throw new Error(`projects/${args.project}/locations/${args.location}/repositories/${args.repositoryId} not found`);
                }
                return undefined;
            },
        });
        await assert.rejects(findGcrRepository("my-project", "asia.gcr.io"), (err: Error) => {
            assert.ok(err instanceof pulumi.RunError, `not a RunError: ${err}`);
            // The mock runtime drops the provider's own message; the engine passes it on ("... not found").
            assert.match(err.message, /^tf-serving:gke\.registry\.host = asia\.gcr\.io: cannot read the Artifact Registry repository "asia\.gcr\.io" \(location asia\) of project my-project\. /);
            return true;
        });
        assert.strictEqual(await findGcrRepository("my-project", "gcr.io").catch(() => "rejected"), "rejected");
        await startMockRuntime();
        assert.strictEqual(await findGcrRepository("my-project", "gcr.io"), "gcr.io");
    });

    it("a missing gcr.io repository: the message names the key, the repository and both fixes", () => {
        const text = gcrRepositoryProblem("my-project", "eu.gcr.io", "projects/my-project/locations/europe/repositories/eu.gcr.io not found");
        assert.match(text, /^tf-serving:gke\.registry\.host = eu\.gcr\.io: cannot read the Artifact Registry repository "eu\.gcr\.io" \(location europe\) of project my-project: .*not found\./);
        assert.match(text, /never creates or deletes it/);
        assert.doesNotMatch(gcrRepositoryProblem("p", "gcr.io", ""), /p: \./, "no empty cause");
        assert.match(text, /gcloud artifacts repositories create eu\.gcr\.io --repository-format=docker --location=europe --project=my-project/);
        assert.match(text, /remove gke\.registry\.host/);
    });
});

describe("ArtifactRegistry: the pushed tag's digest", () => {
    const LOOKUP = "gcp:artifactregistry/getDockerImage:getDockerImage";
    const TAG = "ctx-0123456789abcdef";

    /** The registry, an Image pushed to it under mocks, and the digest its lookup resolves to. */
    async function lookUp(project: string, settings: ArtifactRegistrySettings, options: MockOptions = {}) {
        const recorder = await startMockRuntime(options);
        const registry = new ArtifactRegistry("images", { project, settings, readers: [] });
        const image = new docker.Image("half-plus-two", {
            imageName: pulumi.interpolate`${registry.imageName("half-plus-two")}:${TAG}`,
            build: { context: ".tfs/build/test/half-plus-two" },
            registry: { server: registry.server, username: registry.username, password: registry.password },
        });
        const digestOutput = registry.registryDigest("half-plus-two")(TAG, image);
        // An unknown output (a preview before the push) never settles: only known ones are awaited.
        let resolved = false;
        digestOutput.apply((v) => { resolved = true; return v; });
        const digest = options.preview ? undefined : await settleOutput(digestOutput);
        await recorder.settle();
        return { recorder, digest, resolved, lookups: recorder.calls.filter((c) => c.token === LOOKUP).map((c) => c.args) };
    }

    it("an owned repository: asks Artifact Registry's API for MODEL:TAG in it, and answers the digest in the image's name", async () => {
        const { digest, lookups, recorder } = await lookUp("my-project", PKG_DEV);
        assert.deepStrictEqual(lookups, [{ project: "my-project", location: "us-central1", repositoryId: "tf-serving", imageName: `half-plus-two:${TAG}` }]);
        assert.strictEqual(digest, fakeDigest(`artifact registry projects/my-project/locations/us-central1/repositories/tf-serving/half-plus-two:${TAG}`));
        assert.ok(!recorder.calls.some((c) => c.token === "docker:index/getRegistryImage:getRegistryImage"));
    });

    it("a gcr.io host in a domain-scoped project: the host's repository and location, the project id as Google writes it", async () => {
        const { lookups } = await lookUp("example.com:my-project", { host: "eu.gcr.io" });
        assert.deepStrictEqual(lookups, [{ project: "example.com:my-project", location: "europe", repositoryId: "eu.gcr.io", imageName: `half-plus-two:${TAG}` }]);
    });

    it("waits for the push: while the Image's name is unknown (a preview before the push) it does not ask", async () => {
        const { resolved, lookups } = await lookUp("my-project", PKG_DEV, {
            preview: true,
            state: ({ type }) => (type === "docker:index/image:Image" ? { imageName: undefined } : undefined),
        });
        assert.deepStrictEqual(lookups, []);
        assert.strictEqual(resolved, false, "the digest stays unknown until the push");
    });

    it("reads the digest off the image's name or URI, and refuses an answer without one", () => {
        const digest = `sha256:${"a".repeat(64)}`;
        assert.strictEqual(dockerImageDigest(`projects/p/locations/us/repositories/gcr.io/dockerImages/half-plus-two@${digest}`), digest);
        assert.strictEqual(dockerImageDigest(`us-central1-docker.pkg.dev/p/r/half-plus-two@${digest}`), digest);
        assert.throws(() => dockerImageDigest("projects/p/locations/us/repositories/r/dockerImages/half-plus-two"),
            /Artifact Registry answered a Docker image without a sha256 digest: "projects\/p\/locations\/us\/repositories\/r\/dockerImages\/half-plus-two"/);
    });
});
