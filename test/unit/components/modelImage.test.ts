import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { ModelImage, ModelImageArgs, ModelImageSettings, modelImageSource, modelImageWarmupFiles } from "../../../components/modelImage";
import { readWarmupFile } from "../../../model/warmup";
import { StagingError } from "../../../serving/buildContext";
import { fakeDigest } from "../../../ops/planRuntime";
import { MockRun, settleOutput, startMockRuntime } from "../../support/mockRuntime";
import { fixtureModelDir } from "../../support/fixtures";

/* eslint-disable @typescript-eslint/no-explicit-any */
const REGISTRY_LOOKUP = "docker:index/getRegistryImage:getRegistryImage";
/** What the Docker provider reports when the push gave no digest: the local store's, unknown to the registry. */
const LOCAL_STORE_DIGEST = fakeDigest("podman local store");

describe("ModelImage", () => {
    let projectDir: string;
    before(() => { projectDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-model-image-")); });
    after(() => fs.rmSync(projectDir, { recursive: true, force: true }));

    async function build(extra: Partial<ModelImageSettings> = {}): Promise<{ recorder: MockRun; image: ModelImage; imageRef?: string }> {
        const recorder = await startMockRuntime({
            state: ({ type, inputs }) => type === "docker:index/image:Image"
                ? { repoDigest: `${String(inputs.imageName).replace(/:[^:/]+$/, "")}@${LOCAL_STORE_DIGEST}` }
                : undefined,
        });
        const image = new ModelImage("m", {
            model: "m",
            modelPath: fixtureModelDir("half_plus_two_cpu"),
            versions: [123],
            imageName: "registry.internal:5000/team/m",
            registry: { server: "registry.internal:5000" },
            projectDir,
            contextDir: ".tfs/build/test/m",
            ...extra,
        });
        const imageRef = await settleOutput(image.imageRef);
        await recorder.settle();
        return { recorder, image, imageRef };
    }

    it("takes the model as model and modelPath, or by its deprecated 0.2.0 names modelName and modelBaseDir: the same image", async () => {
        const { recorder, image } = await build();
        const now = recorder.one("docker:index/image:Image").inputs;
        const old = await startMockRuntime();
        const before = new ModelImage("m", {
            modelName: "m", modelBaseDir: fixtureModelDir("half_plus_two_cpu"), versions: [123],
            imageName: "registry.internal:5000/team/m", registry: { server: "registry.internal:5000" }, projectDir, contextDir: ".tfs/build/test/m",
        });
        await old.settle();
        assert.strictEqual(before.tag, image.tag);
        assert.deepStrictEqual(old.one("docker:index/image:Image").inputs, now);
        assert.deepStrictEqual(modelImageSource({ modelName: "a", modelBaseDir: "/m" }), { model: "a", modelPath: "/m" });
        const settings = { versions: [1], imageName: "r/m", registry: { server: "r" }, projectDir: "/p", contextDir: "c" };
        // @ts-expect-error one set of names: the new ones, or both deprecated ones
        const mixed: ModelImageArgs = { model: "m", modelBaseDir: "/m", ...settings };
        assert.ok(mixed);
    });

    it("stages the context inside the project and names it relative to the project", async () => {
        const { recorder } = await build();
        const inputs = recorder.one("docker:index/image:Image").inputs as any;
        assert.deepStrictEqual(inputs.build, { context: ".tfs/build/test/m", dockerfile: ".tfs/build/test/m/Dockerfile", platform: "linux/amd64" });
        assert.ok(fs.existsSync(path.join(projectDir, ".tfs/build/test/m/models/m/123/saved_model.pb")));
    });

    it("generates each baked version's warmup file from requests at staging, into the staged copy only", async () => {
        const requests = [{ name: "a.json", body: { instances: [[1.0]] } }, { name: "b.json", body: { instances: [[2.0], [3.0]] } }];
        const { image } = await build({ warmup: { requests } });
        const staged = path.join(projectDir, ".tfs/build/test/m/models/m/123/assets.extra/tf_serving_warmup_requests");
        assert.strictEqual(readWarmupFile(staged).records.length, 2);
        assert.strictEqual(fs.existsSync(path.join(fixtureModelDir("half_plus_two_cpu"), "00000123", "assets.extra")), false, "the model folder is not written");
        const plain = await build();
        assert.notStrictEqual(image.tag, plain.image.tag, "the warmup file is part of the image");
    });

    it("generates the warmup file from a golden file's cases, and names a golden file that does not parse", async () => {
        const golden = path.join(projectDir, "golden.jsonl");
        fs.writeFileSync(golden, `${JSON.stringify({ request: { instances: [[1.0]] }, expected: { y: [[2.5]] } })}\n`);
        const files = modelImageWarmupFiles(fixtureModelDir("half_plus_two_cpu"), "m", [123], { golden });
        assert.deepStrictEqual(readWarmupFile(files![123]).records.map((r) => r.predict?.responseOutputs), [["y"]]);
        fs.writeFileSync(golden, "{\n");
        assert.throws(() => modelImageWarmupFiles(fixtureModelDir("half_plus_two_cpu"), "m", [123], { golden }),
            (err: unknown) => err instanceof StagingError && /cannot generate the warmup file of model m: .*golden\.jsonl:1: /.test(err.message));
    });

    it("refuses warmup requests a version's signatures refuse, naming each", () => {
        const requests = [{ name: "a.json", body: { instances: [["one"]] } }, { name: "b.json", body: { signature_name: "nope", instances: [[1.0]] } }];
        assert.throws(() => modelImageWarmupFiles(fixtureModelDir("half_plus_two_cpu"), "m", [123], { requests }), (err: unknown) => err instanceof StagingError
            && /TF Serving would refuse 2 requests at load .*version 123: a\.json: input "x" .*; version 123: b\.json: signature "nope" is not in the model/.test(err.message));
    });

    it("pins the pod to the digest the registry holds for the pushed tag, not the provider's repoDigest", async () => {
        const { recorder, image, imageRef } = await build();
        const pushed = String((recorder.one("docker:index/image:Image").inputs as any).imageName);
        assert.strictEqual(pushed, `registry.internal:5000/team/m:${image.tag}`);
        // Once before the build (does the registry hold the tag already? not yet), once after the push.
        assert.deepStrictEqual(recorder.calls.filter((c) => c.token === REGISTRY_LOOKUP).map((c) => c.args.name), [pushed, pushed]);
        assert.strictEqual((recorder.one("docker:index/image:Image").inputs as any).skipPush, undefined, "pushed");
        assert.strictEqual(imageRef, `registry.internal:5000/team/m@${fakeDigest(`registry ${pushed}`)}`);
        assert.ok(!imageRef!.includes(LOCAL_STORE_DIGEST));
    });

    it("asks the registry about the name the Image reports after its push", async () => {
        // The lookup's argument is the Image's output: it cannot run before the push has happened.
        const recorder = await startMockRuntime({
            state: ({ type }) => (type === "docker:index/image:Image" ? { imageName: "registry.internal:5000/team/m:as-pushed" } : undefined),
            call: (token, args) => (token === REGISTRY_LOOKUP && String(args.name).endsWith(":as-pushed") ? {} : undefined),
        });
        const image = new ModelImage("m", {
            modelName: "m", modelBaseDir: fixtureModelDir("half_plus_two_cpu"), versions: [123],
            imageName: "registry.internal:5000/team/m", registry: { server: "registry.internal:5000" }, projectDir, contextDir: ".tfs/build/test/m",
        });
        await settleOutput(image.imageRef);
        const asked = recorder.calls.filter((c) => c.token === REGISTRY_LOOKUP).map((c) => c.args.name);
        assert.strictEqual(asked[asked.length - 1], "registry.internal:5000/team/m:as-pushed");
    });

    it("logs the lookup into the registry with the build's credentials, the password secret", async () => {
        const { recorder } = await build({ registry: { server: "registry.internal:5000", username: "ci", password: "s3cret" } });
        const login = recorder.one("pulumi:providers:docker");
        assert.strictEqual(login.parent, "tf-serving:index:ModelImage::m");
        assert.deepStrictEqual(JSON.parse((login.rawInputs as any).registryAuth), [{ address: "registry.internal:5000", username: "ci", password: "s3cret" }]);
        assert.doesNotMatch(JSON.stringify(login.inputs), /s3cret/);
    });

    it("needs no provider of its own for a registry without credentials", async () => {
        const { recorder } = await build();
        assert.deepStrictEqual(recorder.ofType("pulumi:providers:docker"), []);
    });

    it("uses the registry's own lookup when given one, with the tag and the Image", async () => {
        const seen: string[] = [];
        const { imageRef, image } = await build({
            registryDigest: (tag, pushed) => {
                seen.push(tag);
                return pushed.imageName.apply(() => "sha256:" + "e".repeat(64));
            },
        });
        assert.deepStrictEqual(seen, [image.tag]);
        assert.strictEqual(imageRef, `registry.internal:5000/team/m@sha256:${"e".repeat(64)}`);
    });

    it("with the registry's own lookup, no Docker provider carries the credentials, and the password stays a secret of the build", async () => {
        // The cloud registries' passwords change on every run (ECR's, Google's access token): a provider
        // holding one would preview an update every time.
        const { recorder } = await build({
            registry: { server: "registry.internal:5000", username: "ci", password: "s3cret" },
            registryDigest: (_tag, pushed) => pushed.imageName.apply(() => "sha256:" + "e".repeat(64)),
            registryProbe: () => pulumi.output(undefined),
        });
        assert.deepStrictEqual(recorder.ofType("pulumi:providers:docker"), []);
        assert.ok(!recorder.calls.some((c) => c.token === REGISTRY_LOOKUP));
        const image = recorder.one("docker:index/image:Image");
        assert.ok(image.secretPaths.includes("registry.password"), `secret paths: ${image.secretPaths}`);
        assert.doesNotMatch(JSON.stringify(image.inputs), /s3cret/);
    });

    describe("a tag the registry holds already (going back to an earlier model)", () => {
        const HELD = `sha256:${"b".repeat(64)}`;
        const holding = { call: (token: string) => (token === REGISTRY_LOOKUP ? { sha256Digest: HELD } : undefined) };

        async function buildHolding(previousImage: ModelImageArgs["previousImage"], options = holding) {
            const recorder = await startMockRuntime(options);
            const image = new ModelImage("m", {
                modelName: "m", modelBaseDir: fixtureModelDir("half_plus_two_cpu"), versions: [123],
                imageName: "registry.internal:5000/team/m", registry: { server: "registry.internal:5000" }, projectDir, contextDir: ".tfs/build/test/m",
                previousImage,
            });
            const [imageRef, build] = await Promise.all([settleOutput(image.imageRef), settleOutput(image.build)]);
            await recorder.settle();
            return { image, imageRef, build, inputs: recorder.one("docker:index/image:Image").inputs as any };
        }

        it("is not pushed again: the pods run the digest the registry holds, not a rebuild's", async () => {
            const { imageRef, build, inputs, image } = await buildHolding({ record: { tag: "ctx-0123456789abcdef", pushed: true } });
            assert.strictEqual(inputs.skipPush, true);
            assert.strictEqual(imageRef, `registry.internal:5000/team/m@${HELD}`);
            assert.deepStrictEqual(build, { tag: image.tag, pushed: false });
        });

        it("the digest it holds is known in a preview too (the preview shows the pods' exact image)", async () => {
            const recorder = await startMockRuntime({ ...holding, preview: true, state: ({ type }) => (type === "docker:index/image:Image" ? { repoDigest: undefined } : undefined) });
            const image = new ModelImage("m", {
                modelName: "m", modelBaseDir: fixtureModelDir("half_plus_two_cpu"), versions: [123],
                imageName: "registry.internal:5000/team/m", registry: { server: "registry.internal:5000" }, projectDir, contextDir: ".tfs/build/test/m",
            });
            assert.strictEqual(await settleOutput(image.imageRef), `registry.internal:5000/team/m@${HELD}`);
            await recorder.settle();
        });

        it("an unchanged model keeps its last decision: a tag this stack pushed stays pushed (no diff)", async () => {
            const { image: first } = await buildHolding(undefined);
            const { inputs, build } = await buildHolding({ record: { tag: first.tag, pushed: true } });
            assert.strictEqual(inputs.skipPush, undefined);
            assert.deepStrictEqual(build, { tag: first.tag, pushed: true });
        });

        it("a stack deployed before records were kept, running that very digest, is taken as pushed (upgrading previews no change)", async () => {
            const { inputs } = await buildHolding({ deployedDigest: HELD });
            assert.strictEqual(inputs.skipPush, undefined);
        });
    });

    it("refuses a context folder outside the project, naming both", async () => {
        await startMockRuntime();
        assert.throws(() => new ModelImage("m", {
            modelName: "m", modelBaseDir: fixtureModelDir("half_plus_two_cpu"), versions: [123],
            imageName: "r/m", registry: { server: "r" }, projectDir, contextDir: "../elsewhere",
        }), new RegExp(`not inside the project ${projectDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    });

    it("refuses a relative projectDir, which would stage in one folder and build from another, before it stages or registers anything", async () => {
        // Staging resolves projectDir against this process's working directory (serving/buildContext.ts); the Docker
        // provider resolves the Image's relative build.context against the program's: "app" would name two folders.
        const rec = await startMockRuntime();
        const relative = path.relative(process.cwd(), projectDir);
        assert.throws(() => new ModelImage("m", {
            model: "m", modelPath: fixtureModelDir("half_plus_two_cpu"), versions: [123],
            imageName: "r/m", registry: { server: "r" }, projectDir: relative, contextDir: ".tfs/build/test/relative",
        }), (err: Error) => {
            assert.ok(!err.message.includes("\n"), err.message);
            assert.match(err.message, /^ModelImage m: projectDir ".*" is relative: .*pass an absolute path/);
            return true;
        });
        await rec.settle();
        assert.deepStrictEqual(rec.resources.map((r) => r.type), [], "nothing registered");
        assert.strictEqual(fs.existsSync(path.join(projectDir, ".tfs/build/test/relative")), false, "nothing staged");
    });
});
