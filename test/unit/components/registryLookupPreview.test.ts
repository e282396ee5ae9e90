/**
 * The registry lookups of a pushed tag, under the engine's preview semantics for a changed model:
 * the Docker provider's Image update in a preview returns the new inputs (so the new `imageName` is
 * known and the Image keeps its id) and no `repoDigest`, which the SDK then leaves unknown; the
 * registry holds only what was pushed, so a lookup of the new tag fails. Every lookup must wait.
 */
import * as assert from "assert";
import * as docker from "@pulumi/docker";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ModelImage, RegistryDigestLookup } from "../../../components/modelImage";
import { ArtifactRegistry } from "../../../components/clouds/gcp/artifactRegistry";
import { Ecr } from "../../../components/clouds/aws/ecr";
import { MockOptions } from "../../../ops/planRuntime";
import { fixtureModelDir } from "../../support/fixtures";
import { settleOutput, startMockRuntime } from "../../support/mockRuntime";

const LOOKUPS = [
    "docker:index/getRegistryImage:getRegistryImage",
    "aws:ecr/getImage:getImage",
    "gcp:artifactregistry/getDockerImage:getDockerImage",
];
const TAG = "ctx-0000000000000002";

/** A registry that holds none of the model's tags yet, as before the push of a new version. */
const EMPTY_REGISTRY: MockOptions["call"] = (token, args) => {
    if (LOOKUPS.includes(token)) {
        throw new Error(`${token}: 404 Not Found (${JSON.stringify(args)})`);
    }
    return undefined;
};

/** The preview of an update of the Image: the provider answers the new inputs, no repoDigest. */
const PREVIEW_OF_AN_UPDATE: MockOptions = {
    preview: true,
    state: ({ type }) => (type === "docker:index/image:Image" ? { repoDigest: undefined } : undefined),
    call: EMPTY_REGISTRY,
};

/** An unchanged Image in a preview: the engine hands back its state, the digest recorded at the push; the registry holds the tag. */
const PREVIEW_OF_NO_CHANGE: MockOptions = { preview: true, call: (token) => (LOOKUPS.includes(token) ? {} : undefined) };

/** Registers a target's registry and the model's Image, and returns the digest the pods would run. */
type Target = (projectDir: string) => pulumi.Output<string>;

function pushed(imageName: pulumi.Output<string>, lookup: RegistryDigestLookup): pulumi.Output<string> {
    const image = new docker.Image("half-plus-two", {
        imageName: pulumi.interpolate`${imageName}:${TAG}`,
        build: { context: ".tfs/build/test/half-plus-two" },
    });
    return lookup(TAG, image);
}

const TARGETS: Record<string, Target> = {
    "a Docker registry (ModelImage's getRegistryImage)": (projectDir) => new ModelImage("half-plus-two", {
        modelName: "half-plus-two",
        modelBaseDir: fixtureModelDir("half_plus_two_cpu"),
        versions: [123],
        imageName: "localhost:5001/tf-serving/half-plus-two",
        registry: { server: "localhost:5001" },
        projectDir,
        contextDir: ".tfs/build/test/half-plus-two",
    }).imageRef,
    "ECR (Ecr.registryDigest)": () => {
        const ecr = new Ecr("images", { settings: { repositoryPrefix: "tf-serving", keepImages: 10, forceDelete: false }, models: ["half-plus-two"] });
        return pushed(ecr.imageName("half-plus-two"), ecr.registryDigest("half-plus-two"));
    },
    "Artifact Registry (ArtifactRegistry.registryDigest)": () => {
        const registry = new ArtifactRegistry("images", { project: "my-project", settings: { host: "docker.pkg.dev", location: "us-central1", repository: "tf-serving", keepImages: 10 }, readers: [] });
        return pushed(registry.imageName("half-plus-two"), registry.registryDigest("half-plus-two"));
    },
};

/** Runs a target; `lookups` are the registry lookups made once the Image was registered (ModelImage also asks before it builds). */
async function run(target: Target, options: MockOptions, projectDir: string) {
    let registered = -1;
    const recorder = await startMockRuntime({
        ...options,
        state: (r) => {
            if (r.type === "docker:index/image:Image") {
                registered = recorder.calls.length;
            }
            return options.state?.(r);
        },
    });
    const ref = target(projectDir);
    let resolved: string | undefined;
    ref.apply((d) => { resolved = d; return d; });
    const known = options.state !== undefined ? undefined : await settleOutput(ref);
    await recorder.settle();
    assert.ok(registered >= 0, "the Image was registered");
    return { lookups: recorder.calls.slice(registered).filter((c) => LOOKUPS.includes(c.token)), resolved, known };
}

describe("registry lookups in a preview of a new model version", () => {
    let projectDir: string;
    before(() => { projectDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-lookup-preview-")); });
    after(() => fs.rmSync(projectDir, { recursive: true, force: true }));

    for (const [name, target] of Object.entries(TARGETS)) {
        describe(name, () => {
            it("does not ask the registry for the new tag before it is pushed (the preview would fail with a 404)", async () => {
                const { lookups, resolved } = await run(target, PREVIEW_OF_AN_UPDATE, projectDir);
                assert.deepStrictEqual(lookups, [], "no lookup in the preview of a push");
                assert.strictEqual(resolved, undefined, "the pod's image stays unknown until the push");
            });

            it("an unchanged Image still asks in a preview, so the pods' image is known and unchanged", async () => {
                const { lookups, known } = await run(target, PREVIEW_OF_NO_CHANGE, projectDir);
                assert.strictEqual(lookups.length, 1);
                assert.match(String(known), /sha256:[0-9a-f]{64}$/);
            });

            it("an update asks once the Image is pushed (the registry holds what was pushed)", async () => {
                const { lookups, known } = await run(target, {}, projectDir);
                assert.strictEqual(lookups.length, 1);
                assert.match(String(known), /sha256:[0-9a-f]{64}$/);
            });
        });
    }
});
