import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { ArtifactRegistry, ArtifactRegistrySettings, artifactRegistryNaming, imagePathProject } from "../../../components/registry/artifactRegistry";
import { settleOutput, startMockRuntime } from "../../../ops/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const PKG_DEV: ArtifactRegistrySettings = { host: "docker.pkg.dev", location: "us-central1", repository: "tf-serving", keepImages: 10 };

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
        assert.deepStrictEqual(artifactRegistryNaming("my-project", { ...PKG_DEV, host: "gcr.io" }),
            { location: "us", repositoryId: "gcr.io", server: "gcr.io", imagePrefix: "gcr.io/my-project" });
        assert.strictEqual(artifactRegistryNaming("p", { ...PKG_DEV, host: "eu.gcr.io" }).location, "europe");
        assert.strictEqual(artifactRegistryNaming("p", { ...PKG_DEV, host: "asia.gcr.io" }).location, "asia");
        assert.strictEqual(artifactRegistryNaming("p", { ...PKG_DEV, host: "us.gcr.io" }).location, "us");
    });

    it("a domain-scoped project is written DOMAIN/PROJECT in image paths (a colon is invalid there)", () => {
        assert.strictEqual(imagePathProject("example.com:my-project"), "example.com/my-project");
        assert.strictEqual(imagePathProject("my-project"), "my-project");
        assert.strictEqual(artifactRegistryNaming("example.com:my-project", PKG_DEV).imagePrefix,
            "us-central1-docker.pkg.dev/example.com/my-project/tf-serving");
        assert.strictEqual(artifactRegistryNaming("example.com:my-project", { ...PKG_DEV, host: "eu.gcr.io" }).imagePrefix,
            "eu.gcr.io/example.com/my-project");
    });
});

describe("ArtifactRegistry", () => {
    async function build(settings: ArtifactRegistrySettings) {
        const recorder = await startMockRuntime();
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
        return { recorder, resolved };
    }

    it("a DOCKER repository with immutable tags and a cleanup policy keeping the last N", async () => {
        const { recorder } = await build({ ...PKG_DEV, keepImages: 7 });
        const repo = recorder.one("gcp:artifactregistry/repository:Repository").inputs as any;
        assert.strictEqual(repo.format, "DOCKER");
        assert.strictEqual(repo.location, "us-central1");
        assert.strictEqual(repo.repositoryId, "tf-serving");
        assert.deepStrictEqual(repo.dockerConfig, { immutableTags: true });
        assert.strictEqual(repo.cleanupPolicyDryRun, false);
        const keep = repo.cleanupPolicies.find((p: any) => p.action === "KEEP");
        assert.deepStrictEqual(keep.mostRecentVersions, { keepCount: 7 });
        assert.ok(repo.cleanupPolicies.some((p: any) => p.action === "DELETE"));
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

    it("gcr.io naming: the gcr.io repository in us, images under gcr.io/PROJECT", async () => {
        const { recorder, resolved } = await build({ ...PKG_DEV, host: "gcr.io" });
        const repo = recorder.one("gcp:artifactregistry/repository:Repository").inputs as any;
        assert.deepStrictEqual([repo.repositoryId, repo.location], ["gcr.io", "us"]);
        assert.strictEqual(resolved.imageName, "gcr.io/my-project/half-plus-two");
        assert.strictEqual(resolved.server, "gcr.io");
    });
});
