import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import {
    ArtifactRegistry, ArtifactRegistrySettings, OwnedRepositorySettings, artifactRegistryNaming, findGcrRepository, gcrRepositoryProblem, imagePathProject,
} from "../../../components/registry/artifactRegistry";
import { settleOutput, startMockRuntime } from "../../support/mockRuntime";

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
