/**
 * `modelDelivery: imageVolume` on the real node, through the CLI a user runs (`pulumi preview`,
 * `pulumi up`, `tfs deploy`, `tfs doctor`), on one live stack behind the environment's Gateway, under
 * steady client traffic (20 REST predicts a second through the Gateway), each step asserting what
 * the registry and the cluster hold:
 *
 * a. the stack serves: its pods run the base pinned by digest with the model artifact (FROM scratch,
 *    nothing of the base in it) mounted by an `image` volume, pinned by digest; only the artifact
 *    was pushed;
 * b. a new base (a stand-in rebuilt with another digest): the preview changes the Deployment alone,
 *    every pod rolls onto the new base with the same artifact, no model is built or pushed;
 * c. a new model version: only the artifact is pushed (its new layers' bytes measured), the base's
 *    repositories keep their tags, the new version serves;
 * d. `imageVolume` to `embedded` (`pulumi up`) and back (`tfs deploy`): each a rolling update, the
 *    way back reusing the artifact the registry holds (no push);
 * e. a canary (one step, a short hold) of a new version: the canary's pods mount the new artifact,
 *    the step passes, the serving pods take it;
 * f. the artifact made unpullable (the Deployment pointed at a digest the registry does not hold, as
 *    a hand edit or a registry's cleanup leaves it): `tfs doctor` exits non-zero and names it.
 *
 * No request may fail in a-e. It runs in lane 1 (test/e2e/lanes.ts): it deploys a Gateway of the
 * environment's class. At most four pods of 250m at once (two serving, a surge pod, a canary pod).
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CliResult, TFS, runCli } from "../support/cli";
import { CanarySample, observedSteps, watchCanary } from "../support/canaryWatch";
import { E2eProject, FIXTURES, MODEL, createProject, env, kubectlAsync, tagsOf } from "../support/e2eProject";
import { TrafficReport, availableVersion, predict, underTraffic } from "../support/traffic";

/* eslint-disable @typescript-eslint/no-explicit-any */

const INSTANCES = [1, 2, 5];
/** half_plus_two (both fixtures' versions): y = x/2 + 2. */
const TWO = [2.5, 3, 4.5];
const DEPLOYMENT = `kubernetes:apps/v1:Deployment::${MODEL}`;
const IMAGE = `docker:index/image:Image::${MODEL}`;
const MANIFEST_TYPES = [
    "application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json",
].join(", ");
const CANARY = { steps: [50], holdSeconds: 10, replicas: 1, gates: { maxErrorRatio: 0.01, maxP99Ms: 1000, minRequests: 20 } };

interface Manifest { digest: string; config: { digest: string; size: number }; layers: { digest: string; size: number }[] }

/** A manifest of the loopback registry (`reference` a tag or a digest), an index resolved to its linux/amd64 manifest. */
async function manifest(repo: string, reference: string): Promise<Manifest> {
    const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/manifests/${reference}`, { headers: { Accept: MANIFEST_TYPES } });
    assert.strictEqual(res.status, 200, `manifest ${repo}:${reference}: HTTP ${res.status}`);
    const body = await res.json() as any;
    if (Array.isArray(body.manifests)) {
        const amd64 = body.manifests.find((m: any) => m.platform?.architecture === "amd64") ?? body.manifests[0];
        return manifest(repo, amd64.digest);
    }
    return { digest: res.headers.get("docker-content-digest") ?? "", config: body.config, layers: body.layers };
}

async function blob(repo: string, digest: string): Promise<any> {
    const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/blobs/${digest}`);
    assert.strictEqual(res.status, 200, `blob ${repo}@${digest}: HTTP ${res.status}`);
    return res.json();
}

/** `REGISTRY/REPO@sha256:...` split into the repository and the digest. */
function parts(ref: string): { repo: string; digest: string } {
    const [name, digest] = ref.split("@");
    return { repo: name.slice(env("TFS_E2E_REGISTRY").length + 1).split(":")[0], digest };
}

/** Every tag of every repository named, as `repo:tag` lines (what a push adds to). */
async function tagLines(repos: string[]): Promise<string[]> {
    return (await Promise.all(repos.map(async (r) => (await tagsOf(r)).map((t) => `${r}:${t}`)))).flat().sort();
}

describe("modelDelivery imageVolume on the real node: base and model changes, the delivery switched, a canary, doctor", function () {
    this.timeout(20 * 60 * 1000);
    let project: E2eProject;
    let artifactRepo = "";
    let baseRepos: string[] = [];
    const log: string[] = [];
    const t0 = Date.now();

    const cli = async (command: string, args: string[]): Promise<CliResult> => {
        const result = await runCli(command, args, { cwd: project.projectDir });
        log.push(`$ ${command} ${args.join(" ")} -> ${result.code} (${result.seconds.toFixed(1)} s)\n${result.stdout.slice(-5000)}\n${result.stderr.slice(-3000)}`);
        return result;
    };
    const pulumi = (...args: string[]) => cli("pulumi", [...args, "--stack", project.stackName, "--non-interactive"]);
    const ok = (r: CliResult, what: string) => assert.strictEqual(r.code, 0, `${what} exited ${r.code}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    const outputs = () => project.pulumi.outputs() as Promise<Record<string, any>>;
    const config = (extra: Record<string, unknown> = {}) => project.setConfig({
        modelDelivery: "imageVolume", replicas: 2, cpu: "250m",
        endpoint: "gateway", gateway: { className: env("TFS_E2E_GATEWAY_CLASS") }, loadBalancerSourceRanges: undefined, publicEndpoint: true,
        ...extra,
    });
    let current: Record<string, unknown> = {};
    const reconfigure = (extra: Record<string, unknown>) => {
        current = { ...current, ...extra };
        config(current);
    };
    const copyVersion = (fixture: string, version: string, to: string) => fs.cpSync(path.join(FIXTURES, fixture, version), path.join(project.modelDir, to), { recursive: true });

    /** Waits (bounded: 180 s) until the Deployment's rollout is over: every replica updated and available, no old pod left. */
    const rolledOut = async () => {
        for (let i = 0; i < 360; i++) {
            const d = await kubectlAsync("get", "deployment", MODEL, "-n", project.namespace);
            const s = d.status;
            if (s.observedGeneration >= d.metadata.generation && s.updatedReplicas === d.spec.replicas && s.availableReplicas === d.spec.replicas && s.replicas === d.spec.replicas) {
                return d;
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.fail(`the rollout of ${MODEL} did not finish within 180 s`);
    };
    /** The serving pods (not the canary's), without those terminating. */
    const servingPods = async (): Promise<any[]> => ((await kubectlAsync("get", "pods", "-n", project.namespace, "-l", `app.kubernetes.io/component=model-server,app.kubernetes.io/instance=${MODEL}`)).items as any[])
        .filter((p) => !p.metadata.deletionTimestamp);
    const artifactOf = (spec: any): string | undefined => spec.volumes?.find((v: any) => v.image !== undefined)?.image.reference;
    /** Bounded wait until the serving pods are exactly the Deployment's replicas, all Ready, none terminating. */
    const podsSettled = async (replicas: number) => {
        for (let i = 0; i < 120; i++) {
            const all = (await kubectlAsync("get", "pods", "-n", project.namespace, "-l", `app.kubernetes.io/component=model-server,app.kubernetes.io/instance=${MODEL}`)).items as any[];
            if (all.length === replicas && all.every((p) => !p.metadata.deletionTimestamp && p.status.conditions?.some((c: any) => c.type === "Ready" && c.status === "True"))) {
                return all;
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.fail(`the serving pods did not settle on ${replicas} Ready pods within 60 s`);
    };

    /** Runs `update` under traffic until it and the rollout are over; no request may fail. */
    const updateUnderTraffic = async (what: string, update: () => Promise<CliResult>): Promise<{ result: CliResult; traffic: TrafficReport; seconds: number }> => {
        const restUrl = (await outputs()).restUrl as string;
        const started = Date.now();
        const updating = update().then(async (result) => {
            ok(result, what);
            await rolledOut();
            return result;
        });
        const traffic = await underTraffic(restUrl, MODEL, updating, { rps: 20, expected: TWO, instances: INSTANCES });
        const result = await updating;
        const seconds = (Date.now() - started) / 1000;
        console.log(`      ${what}: ${seconds.toFixed(1)} s to all pods rolled (the command ${result.seconds.toFixed(1)} s); ` +
            `${traffic.requests} requests, ${traffic.failures.length} failed, p50 ${traffic.p50.toFixed(1)} ms, p99 ${traffic.p99.toFixed(1)} ms`);
        assert.deepStrictEqual(traffic.failures.slice(0, 5), [], `${traffic.failures.length} of ${traffic.requests} requests failed`);
        assert.ok(traffic.requests > 20, `the traffic ran through the update (${traffic.requests} requests)`);
        return { result, traffic, seconds };
    };

    before(async () => {
        env("TFS_E2E_GATEWAY_CLASS");
        project = await createProject();
        artifactRepo = `e2e-${project.run}/${MODEL}`;
        baseRepos = [env("TFS_E2E_BASE_IMAGE").slice(env("TFS_E2E_REGISTRY").length + 1).replace(/:[^:/]+$/, ""), `e2e-${project.run}/serving-base`];
        config();
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            console.log(log.slice(-6).join("\n\n"));
        }
        log.length = 0;
    });

    after(async () => {
        console.log(`      the file's steps took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        if (process.env.TFS_E2E_KEEP !== "1") {
            await project?.dispose();
        }
    });

    let artifact = "";
    let base = "";

    it("a. serves: the base pinned by digest runs, the artifact (FROM scratch) is mounted by an image volume, only it was pushed", async () => {
        const started = Date.now();
        ok(await pulumi("up", "--yes"), "pulumi up");
        const out = await outputs();
        assert.deepStrictEqual(await predict(out.restUrl, MODEL, INSTANCES), TWO);
        artifact = out.imageRef;
        assert.match(artifact, new RegExp(`^${env("TFS_E2E_REGISTRY")}/${artifactRepo}@sha256:[0-9a-f]{64}$`));
        assert.strictEqual(out.imageBuilds[MODEL].pushed, true);
        const pods = await servingPods();
        assert.strictEqual(pods.length, 2);
        const standIn = await manifest(baseRepos[0], env("TFS_E2E_BASE_IMAGE").split(":").pop() as string);
        for (const pod of pods) {
            const volume = pod.spec.volumes.find((v: any) => v.image !== undefined);
            assert.deepStrictEqual(volume.image, { reference: artifact, pullPolicy: "IfNotPresent" }, "the artifact by digest");
            assert.strictEqual(pod.spec.containers[0].image.split("@")[0], env("TFS_E2E_BASE_IMAGE"), "the container runs the base");
            assert.match(pod.spec.containers[0].image, /@sha256:[0-9a-f]{64}$/, "pinned by digest");
            const mount = pod.spec.containers[0].volumeMounts.find((m: any) => m.name === volume.name);
            assert.deepStrictEqual([mount.mountPath, mount.readOnly, mount.subPath], [`/models/${MODEL}`, true, undefined]);
        }
        base = pods[0].spec.containers[0].image;
        // What was pushed: one tag, in the artifact's repository; the artifact holds the model and nothing of the base.
        assert.deepStrictEqual(await tagsOf(artifactRepo), [out.imageBuilds[MODEL].tag]);
        assert.deepStrictEqual(await tagsOf(baseRepos[1]), []);
        const pushed = await manifest(artifactRepo, parts(artifact).digest);
        const imageConfig = await blob(artifactRepo, pushed.config.digest);
        assert.strictEqual(imageConfig.config?.Labels?.["tf-serving.model.name"], MODEL);
        assert.strictEqual(imageConfig.config?.Entrypoint ?? undefined, undefined, "no server in the artifact");
        const baseLayers = new Set(standIn.layers.map((l) => l.digest));
        assert.deepStrictEqual(pushed.layers.filter((l) => baseLayers.has(l.digest)), [], "no layer of the base in the artifact");
        const bytes = pushed.layers.reduce((n, l) => n + l.size, 0);
        console.log(`      a: up to serving in ${((Date.now() - started) / 1000).toFixed(1)} s; the artifact: ${pushed.layers.length} layers, ${bytes} bytes ` +
            `(the base: ${standIn.layers.reduce((n, l) => n + l.size, 0)} bytes, not pushed)`);
    });

    let patchedBase = "";

    it("b. a new base: only the Deployment changes, every pod rolls onto it with the same artifact, no model built or pushed", async () => {
        // A stand-in patched release: the environment's base plus a label, pushed under a tag of its own (another digest).
        const context = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-base-"));
        const tag = `${env("TFS_E2E_REGISTRY")}/${baseRepos[1]}:patched`;
        try {
            fs.writeFileSync(path.join(context, "Dockerfile"), `FROM ${env("TFS_E2E_BASE_IMAGE")}\nLABEL tf-serving.e2e.patch="${project.run}"\n`);
            const podman = (...args: string[]) => execFileSync("podman", args, { cwd: context, stdio: ["ignore", "pipe", "pipe"], timeout: 5 * 60 * 1000 });
            podman("build", "--isolation", "chroot", "--platform", "linux/amd64", "-t", tag, ".");
            podman("push", "--tls-verify=false", tag);
        } finally {
            fs.rmSync(context, { recursive: true, force: true });
        }
        const held = await manifest(baseRepos[1], "patched");
        patchedBase = `${tag}@${held.digest}`;
        assert.notStrictEqual(held.digest, parts(base).digest, "another digest");

        const artifactTags = await tagLines([artifactRepo]);
        const buildsBefore = (await outputs()).imageBuilds[MODEL];
        reconfigure({ baseImage: tag });
        assert.deepStrictEqual(await project.pulumi.preview(), [`update ${DEPLOYMENT}`], "no Image: the model is not built");
        await updateUnderTraffic("b: pulumi up (new base)", () => pulumi("up", "--yes"));
        const pods = await podsSettled(2);
        assert.deepStrictEqual(pods.map((p) => p.spec.containers[0].image), [patchedBase, patchedBase], "every pod on the new base");
        assert.deepStrictEqual(pods.map((p) => artifactOf(p.spec)), [artifact, artifact], "the same artifact digest");
        const out = await outputs();
        assert.strictEqual(out.imageRef, artifact);
        assert.deepStrictEqual(out.imageBuilds[MODEL], buildsBefore);
        assert.deepStrictEqual(await tagLines([artifactRepo]), artifactTags, "nothing pushed to the artifact's repository");
        assert.strictEqual((await manifest(artifactRepo, buildsBefore.tag)).digest, parts(artifact).digest, "its tag still names the same artifact");
        assert.deepStrictEqual(await predict(out.restUrl, MODEL, INSTANCES), TWO);
        await project.pulumi.preview({ expectNoChanges: true });
    });

    it("c. a new model version: only the artifact is pushed (its new layers), the bases keep their tags, the new version serves", async () => {
        const baseTags = await tagLines(baseRepos);
        const before = await manifest(artifactRepo, parts(artifact).digest);
        copyVersion("half_plus_two_2_versions", "00000124", "124");
        assert.deepStrictEqual(await project.pulumi.preview(), [`update ${DEPLOYMENT}`, `update ${IMAGE}`].sort());
        const { traffic } = await updateUnderTraffic("c: pulumi up (new version)", () => pulumi("up", "--yes"));
        assert.strictEqual(traffic.versions[0]?.version, "123");
        assert.strictEqual(traffic.versions[traffic.versions.length - 1]?.version, "124");
        const out = await outputs();
        assert.notStrictEqual(out.imageRef, artifact, "a new artifact digest");
        assert.strictEqual(out.imageBuilds[MODEL].pushed, true);
        const pods = await podsSettled(2);
        assert.deepStrictEqual(pods.map((p) => [p.spec.containers[0].image, artifactOf(p.spec)]), [[patchedBase, out.imageRef], [patchedBase, out.imageRef]]);
        assert.deepStrictEqual(await tagLines(baseRepos), baseTags, "no tag in the bases' repositories");
        assert.strictEqual(await availableVersion(out.restUrl, MODEL), "124");
        const after = await manifest(artifactRepo, parts(out.imageRef).digest);
        const had = new Set(before.layers.map((l) => l.digest));
        const newLayers = after.layers.filter((l) => !had.has(l.digest));
        const pushedBytes = newLayers.reduce((n, l) => n + l.size, 0) + after.config.size;
        const modelDir = path.join(project.modelDir, "124");
        const modelBytes = execFileSync("du", ["-sb", modelDir], { encoding: "utf8" }).split("\t")[0];
        console.log(`      c: pushed ${newLayers.length} new layer(s) and a config, ${pushedBytes} bytes (the version folder: ${modelBytes} bytes uncompressed); ` +
            `${after.layers.length - newLayers.length} layer(s) reused`);
        assert.ok(newLayers.length >= 1 && newLayers.length <= 2, `the new version's layer (and the model config's): ${newLayers.length}`);
        artifact = out.imageRef;
    });

    it("d. imageVolume -> embedded (pulumi up) -> imageVolume (tfs deploy): rolling updates, the way back pushes nothing", async () => {
        reconfigure({ modelDelivery: "embedded" });
        const toEmbedded = await project.pulumi.preview();
        assert.ok(toEmbedded.includes(`update ${IMAGE}`) && toEmbedded.includes(`update ${DEPLOYMENT}`), toEmbedded.join("\n"));
        assert.deepStrictEqual(toEmbedded.filter((s) => /^(delete|replace|create-replacement|delete-replaced) /.test(s) && !s.includes("ConfigMap")), [], toEmbedded.join("\n"));
        await updateUnderTraffic("d: pulumi up (to embedded)", () => pulumi("up", "--yes"));
        const embedded = await outputs();
        let pods = await podsSettled(2);
        assert.match(embedded.imageRef, new RegExp(`^${env("TFS_E2E_REGISTRY")}/${artifactRepo}@sha256:`));
        assert.notStrictEqual(embedded.imageRef, artifact);
        assert.deepStrictEqual(pods.map((p) => [p.spec.containers[0].image, artifactOf(p.spec)]), [[embedded.imageRef, undefined], [embedded.imageRef, undefined]], "the model baked in, no image volume");
        assert.deepStrictEqual(await predict(embedded.restUrl, MODEL, INSTANCES), TWO);
        assert.strictEqual(await availableVersion(embedded.restUrl, MODEL), "124");

        const tags = await tagLines([artifactRepo, ...baseRepos]);
        reconfigure({ modelDelivery: "imageVolume" });
        const { result } = await updateUnderTraffic("d: tfs deploy (back to imageVolume)", () => cli("node", [TFS, "deploy", "--stack", project.stackName]));
        assert.strictEqual(JSON.parse(result.stdout).ok, true, result.stdout);
        const back = await outputs();
        pods = await podsSettled(2);
        assert.strictEqual(back.imageRef, artifact, "the artifact of step c again");
        assert.strictEqual(back.imageBuilds[MODEL].pushed, false, "reused from the registry");
        assert.deepStrictEqual(await tagLines([artifactRepo, ...baseRepos]), tags, "no tag pushed");
        assert.deepStrictEqual(pods.map((p) => [p.spec.containers[0].image, artifactOf(p.spec)]), [[patchedBase, artifact], [patchedBase, artifact]]);
        assert.deepStrictEqual(await predict(back.restUrl, MODEL, INSTANCES), TWO);
        await project.pulumi.preview({ expectNoChanges: true });
    });

    it("e. a canary of a new version: its pods mount the new artifact, the step passes, the serving pods take it", async () => {
        reconfigure({ canary: CANARY });
        ok(await pulumi("up", "--yes"), "pulumi up (canary on)");
        const canaryDeployment = `${MODEL}-canary`;
        copyVersion("half_plus_two_2_versions", "00000124", "125");
        const restUrl = (await outputs()).restUrl as string;
        const running = pulumi("up", "--yes");
        const seen: string[][] = [];
        const watchSpec = (async () => {
            let done = false;
            void running.finally(() => { done = true; });
            for (let i = 0; i < 1200 && !done; i++) {
                const d = ((await kubectlAsync("get", "deployments", "-n", project.namespace)).items as any[]).find((x) => x.metadata.name === canaryDeployment);
                if (d !== undefined) {
                    seen.push([d.spec.template.spec.containers[0].image, artifactOf(d.spec.template.spec) ?? ""]);
                    return;
                }
                await new Promise((r) => setTimeout(r, 500));
            }
        })();
        const [result, rest, samples] = await Promise.all([
            running,
            underTraffic(restUrl, MODEL, running, { rps: 20, maxSeconds: 600, expected: TWO, instances: INSTANCES }),
            watchCanary(project.namespace, MODEL, running) as Promise<CanarySample[]>,
            watchSpec,
        ]);
        ok(result, "pulumi up (canary release)");
        await rolledOut();
        const steps = observedSteps(samples);
        const lines = `${result.stdout}\n${result.stderr}`.split("\n").map((l) => l.trim()).filter((l) => l.includes(`canary of ${MODEL}`));
        console.log(`      e: release in ${result.seconds.toFixed(1)} s; ${rest.requests} requests, ${rest.failures.length} failed; ` +
            steps.map((s) => `${s.weight} %: the canary answered ${s.canaryPercent.toFixed(1)} % of ${s.calls} calls over ${s.seconds.toFixed(0)} s`).join("; "));
        console.log(lines.map((l) => `      ${l}`).join("\n"));
        assert.deepStrictEqual(rest.failures.slice(0, 5), [], `${rest.failures.length} of ${rest.requests} requests failed`);
        assert.deepStrictEqual(steps.map((s) => s.weight), [50]);
        assert.ok(Math.abs(steps[0].canaryPercent - 50) <= 10, `the canary's share: ${steps[0].canaryPercent.toFixed(1)} %`);
        assert.match(lines.join("\n"), /step 1\/1 \(50 %\): \d+ calls, 0 failed .*: passed/);
        const out = await outputs();
        assert.notStrictEqual(out.imageRef, artifact, "a new artifact");
        assert.deepStrictEqual(seen, [[patchedBase, out.imageRef]], "the canary ran the base with the new artifact mounted");
        const pods = await podsSettled(2);
        assert.deepStrictEqual(pods.map((p) => [p.spec.containers[0].image, artifactOf(p.spec)]), [[patchedBase, out.imageRef], [patchedBase, out.imageRef]]);
        assert.ok(!((await kubectlAsync("get", "deployments", "-n", project.namespace)).items as any[]).some((d) => d.metadata.name === canaryDeployment), "the canary is gone");
        assert.strictEqual(await availableVersion(out.restUrl, MODEL), "125");
        artifact = out.imageRef;
    });

    it("f. an artifact the registry does not hold: tfs doctor exits non-zero and names it", async () => {
        // As a hand edit, or a registry's cleanup of a digest a pod still names, leaves it: the next pod cannot pull it.
        const missing = `${artifact.split("@")[0]}@sha256:${"0".repeat(64)}`;
        const volume = (await kubectlAsync("get", "deployment", MODEL, "-n", project.namespace)).spec.template.spec.volumes.find((v: any) => v.image !== undefined).name;
        execFileSync("kubectl", ["patch", "deployment", MODEL, "-n", project.namespace, "--type=strategic",
            "-p", JSON.stringify({ spec: { template: { spec: { volumes: [{ name: volume, image: { reference: missing, pullPolicy: "IfNotPresent" } }] } } } })], { stdio: "ignore", timeout: 30_000 });
        let reason = "";
        for (let i = 0; i < 240 && reason === ""; i++) {
            const pods = (await kubectlAsync("get", "pods", "-n", project.namespace, "-l", `app.kubernetes.io/instance=${MODEL}`)).items as any[];
            reason = pods.filter((p) => artifactOf(p.spec) === missing).flatMap((p) => p.status.containerStatuses ?? [])
                .map((cs: any) => cs.state?.waiting?.reason ?? "").find((r: string) => /ImagePull/.test(r)) ?? "";
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.match(reason, /ErrImagePull|ImagePullBackOff/, "the new pod cannot pull the artifact");
        assert.deepStrictEqual(await predict((await outputs()).restUrl, MODEL, INSTANCES), TWO, "the old pods keep serving");
        const doctor = await cli("node", [TFS, "doctor", "--stack", project.stackName]);
        const said = `${doctor.stdout}\n${doctor.stderr}`;
        console.log(said.split("\n").filter((l) => l.includes(missing) || /image.volume|image-pull/i.test(l)).slice(0, 8).map((l) => `      ${l.trim().slice(0, 300)}`).join("\n"));
        assert.notStrictEqual(doctor.code, 0, "tfs doctor exits non-zero");
        // The finding's evidence quotes the kubelet's waiting message and its Failed event, both naming the artifact.
        assert.ok(said.includes(missing), `tfs doctor names the artifact ${missing}:\n${said.slice(-3000)}`);
        assert.ok(said.includes(`cannot pull the model artifact ${missing} of image volume ${volume}`), `the finding is the image volume's, not the server image's:\n${said.slice(-3000)}`);
    });
});
