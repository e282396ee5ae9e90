/**
 * Day 2, the way users run it: one live stack changed again and again through the `pulumi` CLI
 * (`pulumi preview`, `pulumi up` with its own preview) and `tfs deploy`, as the docs tell them,
 * never through the Automation API's `up` (which skips the preview). At every step the preview
 * exits 0 and changes exactly what the step should (by type, name and operation, from
 * `pulumi preview --json`); the update converges; the next preview has no changes; and where the
 * step keeps serving, 20 predicts a second through the load balancer see no failure.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { E2eProject, FIXTURES, MODEL, createProject, env, kubectlAsync, tagsOf } from "../support/e2eProject";
import { CliResult, TFS, runCli } from "../support/cli";
import { TrafficReport, availableVersion, predict, underTraffic } from "../support/traffic";
import { withRenamedInput } from "../support/savedModelBytes";

/* eslint-disable @typescript-eslint/no-explicit-any */

const IMAGE = "docker:index/image:Image";
const DEPLOYMENT = "kubernetes:apps/v1:Deployment";
const SECOND = "half-plus-three";
/** half_plus_two: y = x/2 + 2; half_plus_three: y = x/2 + 3. */
const INSTANCES = [1, 2, 5];
const TWO = [2.5, 3, 4.5];
const THREE = [3.5, 4, 5.5];
/** A model change: a new image, and the pods moved to it (sorted, as `changedSteps`). */
const UPDATE_MODEL = [`update ${IMAGE}::${MODEL}`, `update ${DEPLOYMENT}::${MODEL}`];

describe("day 2: one live stack changed through the pulumi CLI and tfs deploy", function () {
    this.timeout(20 * 60 * 1000);
    let project: E2eProject;
    let modelDir: string;
    let threeDir: string;
    let repo: string;
    const log: string[] = [];

    const cli = async (command: string, args: string[]): Promise<CliResult> => {
        const result = await runCli(command, args, { cwd: project.projectDir });
        log.push(`$ ${command} ${args.join(" ")} -> ${result.code} (${result.seconds.toFixed(1)} s)\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`);
        return result;
    };
    const pulumi = (...args: string[]) => cli("pulumi", [...args, "--stack", project.stackName, "--non-interactive"]);
    const ok = (r: CliResult, what: string) => assert.strictEqual(r.code, 0, `${what} exited ${r.code}:\n${r.stderr.slice(-3000)}`);

    /** `pulumi preview --json`: must exit 0; returns the changed steps. */
    const preview = () => project.pulumi.preview();
    /** After an update: the next preview has no changes. */
    const noChanges = () => project.pulumi.preview({ expectNoChanges: true });
    const outputs = () => project.pulumi.outputs() as Promise<Record<string, any>>;

    /** Waits (bounded: 180 s) until a Deployment's rollout is over: every replica updated and available, no old pod left. */
    const rolledOut = async (name: string) => {
        for (let i = 0; i < 360; i++) {
            const d = await kubectlAsync("get", "deployment", name, "-n", project.namespace);
            const s = d.status;
            if (s.observedGeneration >= d.metadata.generation && s.updatedReplicas === d.spec.replicas && s.availableReplicas === d.spec.replicas && s.replicas === d.spec.replicas) {
                return d;
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.fail(`the rollout of ${name} did not finish within 180 s`);
    };

    /** Runs an update (a CLI command) under traffic until the command and the rollout are over. */
    const updateUnderTraffic = async (update: () => Promise<CliResult>, route: string, expected: number[][]): Promise<{ result: CliResult; traffic: TrafficReport }> => {
        const restUrl = (await outputs()).restUrl as string;
        const updating = update().then(async (result) => { await rolledOut(MODEL); return result; });
        const traffic = await underTraffic(restUrl, route, updating, { rps: 20, expected: expected[0], alternatives: expected.slice(1), instances: INSTANCES });
        const result = await updating;
        assert.deepStrictEqual(traffic.failures.slice(0, 5), [], `${traffic.failures.length} of ${traffic.requests} requests failed`);
        assert.ok(traffic.requests > 20, `the traffic ran through the update (${traffic.requests} requests)`);
        console.log(`      ${traffic.requests} requests under traffic, ${traffic.failures.length} failed, p50 ${traffic.p50.toFixed(1)} ms, p99 ${traffic.p99.toFixed(1)} ms`);
        return { result, traffic };
    };

    const copyVersion = (fixture: string, version: string, to: string) => {
        fs.rmSync(path.join(modelDir, to), { recursive: true, force: true });
        fs.cpSync(path.join(FIXTURES, fixture, version), path.join(modelDir, to), { recursive: true });
    };

    before(async () => {
        project = await createProject();
        modelDir = project.modelDir;
        repo = `e2e-${project.run}/${MODEL}`;
        threeDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-three-"));
        fs.cpSync(path.join(FIXTURES, "half_plus_three", "00000123"), path.join(threeDir, "1"), { recursive: true });
    });

    after(async () => {
        if (process.env.TFS_E2E_KEEP !== "1") {
            await project?.dispose();
        }
        fs.rmSync(threeDir, { recursive: true, force: true });
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            console.error(log.slice(-6).join("\n"));
        }
        log.length = 0;
    });

    const MODEL_SERVER_PARTS = [
        "kubernetes:core/v1:ServiceAccount", "kubernetes:policy/v1:PodDisruptionBudget",
        "kubernetes:networking.k8s.io/v1:NetworkPolicy", DEPLOYMENT, "kubernetes:core/v1:Service",
    ];

    let servingImage = "";
    let stepTwoImage = "";
    let stepTwoTag = "";

    it("1. create: the preview creates the stack's resources, `pulumi up` serves, the next preview has no changes", async () => {
        const steps = await preview();
        assert.ok(steps.length > 8, steps.join("\n"));
        assert.deepStrictEqual(steps.filter((s) => !s.startsWith("create ")), [], "a new stack only creates");
        for (const r of [`${IMAGE}::${MODEL}`, `${DEPLOYMENT}::${MODEL}`, `kubernetes:core/v1:Service::${MODEL}`]) {
            assert.ok(steps.includes(`create ${r}`), `creates ${r}:\n${steps.join("\n")}`);
        }
        ok(await pulumi("up", "--yes"), "pulumi up");
        await noChanges();
        const out = await outputs();
        servingImage = out.imageRef;
        assert.deepStrictEqual(await predict(out.restUrl, MODEL, INSTANCES), TWO);
    });

    it("2. a new version (124): the preview shows the Image and the Deployment updated; it becomes the served one, no failed request", async () => {
        copyVersion("half_plus_two_2_versions", "00000124", "124");
        assert.deepStrictEqual(await preview(), UPDATE_MODEL);
        const { result, traffic } = await updateUnderTraffic(() => pulumi("up", "--yes"), MODEL, [TWO]);
        ok(result, "pulumi up");
        assert.strictEqual(traffic.versions[0]?.version, "123");
        assert.strictEqual(traffic.versions[traffic.versions.length - 1]?.version, "124");
        await noChanges();
        const out = await outputs();
        assert.notStrictEqual(out.imageRef, servingImage, "a new digest");
        assert.strictEqual(await availableVersion(out.restUrl, MODEL), "124");
        stepTwoImage = out.imageRef;
        stepTwoTag = out.imageBuilds[MODEL].tag;
        assert.strictEqual(out.imageBuilds[MODEL].pushed, true);
    });

    it("3. two versions served with labels: stable 123, canary 124", async () => {
        project.setConfig({ versions: [123, 124], versionLabels: { stable: 123, canary: 124 } });
        assert.deepStrictEqual(await preview(), UPDATE_MODEL);
        const { result } = await updateUnderTraffic(() => pulumi("up", "--yes"), MODEL, [TWO]);
        ok(result, "pulumi up");
        await noChanges();
        const restUrl = (await outputs()).restUrl;
        assert.strictEqual(await availableVersion(restUrl, MODEL), "123,124");
        assert.strictEqual(await availableVersion(restUrl, `${MODEL}/labels/stable`), "123");
        assert.strictEqual(await availableVersion(restUrl, `${MODEL}/labels/canary`), "124");
    });

    it("4. a version's files changed in place, its input renamed: refused at preview; allowed, through `tfs deploy`, stable keeps answering", async () => {
        copyVersion("half_plus_three", "00000123", "124");
        // A re-export that renamed the signature's input (the graph is the same): every client that sends "x" would be refused.
        const graph = path.join(modelDir, "124", "saved_model.pb");
        fs.writeFileSync(graph, withRenamedInput(fs.readFileSync(graph), "serving_default", "x", "inputs"));
        const refused = await pulumi("preview");
        assert.notStrictEqual(refused.code, 0, "the preview refuses the renamed input");
        const said = `${refused.stdout}\n${refused.stderr}`;
        assert.match(said, /model "half-plus-two" version 124 \(re-exported\) breaks what its clients call: .*signature "serving_default": input "x" is renamed to "inputs"/);
        assert.match(said, /set tf-serving:allowSignatureChange: true for this update/);
        assert.doesNotMatch(said, /\n\s+at .+\(.+:\d+:\d+\)/, "no stack trace for a refused change");
        project.setConfig({ versions: [123, 124], versionLabels: { stable: 123, canary: 124 }, allowSignatureChange: true });
        assert.deepStrictEqual(await preview(), UPDATE_MODEL);
        const { result } = await updateUnderTraffic(() => cli("node", [TFS, "deploy", "--stack", project.stackName]), `${MODEL}/labels/stable`, [TWO]);
        ok(result, "tfs deploy");
        const summary = JSON.parse(result.stdout);
        assert.strictEqual(summary.ok, true, result.stdout);
        await noChanges();
        const recorded = (await outputs()).servedSignatures[MODEL].versions["124"].serving_default.inputs;
        assert.deepStrictEqual(Object.keys(recorded), ["inputs"], "the update recorded the signatures it serves now");
        const restUrl = (await outputs()).restUrl;
        assert.deepStrictEqual(await predict(restUrl, `${MODEL}/labels/canary`, INSTANCES), THREE, "the canary answers with the new bytes");
        assert.deepStrictEqual(await predict(restUrl, `${MODEL}/labels/stable`, INSTANCES), TWO);
    });

    it("5. replicas and CPU changed: only the Deployment, serving throughout", async () => {
        project.setConfig({ versions: [123, 124], versionLabels: { stable: 123, canary: 124 }, replicas: 1, cpu: "300m" });
        assert.deepStrictEqual(await preview(), [`update ${DEPLOYMENT}::${MODEL}`]);
        const { result } = await updateUnderTraffic(() => pulumi("up", "--yes"), `${MODEL}/labels/stable`, [TWO]);
        ok(result, "pulumi up");
        await noChanges();
        const d = await rolledOut(MODEL);
        assert.strictEqual(d.spec.replicas, 1);
        assert.strictEqual(d.spec.template.spec.containers[0].resources.limits.cpu, "300m");
    });

    const withLabels = { versions: [123, 124], versionLabels: { stable: 123, canary: 124 }, replicas: 1, cpu: "300m" };

    it("6. a second model added (only its resources are created), then removed (only they are deleted)", async () => {
        const { versions, versionLabels, ...shared } = withLabels;
        project.setConfig({
            ...shared,
            modelPath: undefined,
            modelName: undefined,
            models: [{ name: MODEL, path: modelDir, versions, versionLabels }, { name: SECOND, path: threeDir, cpu: "250m", replicas: 1 }],
        });
        const adding = await preview();
        const created = [
            ...["tf-serving:index:ModelImage", IMAGE, "tf-serving:index:ModelServer", "tf-serving:index:ModelMonitoring", ...MODEL_SERVER_PARTS].map((t) => `${t}::${SECOND}`),
            // The server's config, and (with the default collector, annotations) the alert rules and the dashboard.
            ...["server-config", "prometheus-rules", "dashboard"].map((c) => `kubernetes:core/v1:ConfigMap::${SECOND}-${c}`),
        ].map((r) => `create ${r}`).sort();
        assert.deepStrictEqual(adding, created, "the first model's resources are untouched");
        ok(await pulumi("up", "--yes"), "pulumi up");
        await noChanges();
        const models = (await outputs()).models;
        assert.deepStrictEqual(await predict(models[SECOND].restUrl, SECOND, INSTANCES), THREE);
        assert.deepStrictEqual(await predict(models[MODEL].restUrl, `${MODEL}/labels/stable`, INSTANCES), TWO);

        project.setConfig(withLabels);
        const removing = await preview();
        assert.deepStrictEqual(removing, created.map((s) => s.replace(/^create /, "delete ")).sort());
        ok(await pulumi("up", "--yes"), "pulumi up");
        await noChanges();
        assert.deepStrictEqual(Object.keys((await outputs()).models), [MODEL]);
    });

    it("7. a key set earlier unset: its default returns (replicas 2)", async () => {
        project.setConfig({ ...withLabels, replicas: undefined });
        assert.deepStrictEqual(await preview(), [`update ${DEPLOYMENT}::${MODEL}`]);
        const { result } = await updateUnderTraffic(() => pulumi("up", "--yes"), `${MODEL}/labels/stable`, [TWO]);
        ok(result, "pulumi up");
        await noChanges();
        assert.strictEqual((await rolledOut(MODEL)).spec.replicas, 2);
    });

    it("8. back to the earlier model through `tfs deploy`: the registry's image is reused, not pushed again", async () => {
        const tagsBefore = (await tagsOf(repo)).sort();
        copyVersion("half_plus_two_2_versions", "00000124", "124");
        // Going back changes the contract too (124's input is "inputs" now): allowed for this update.
        project.setConfig({ allowSignatureChange: true });
        assert.deepStrictEqual(await preview(), UPDATE_MODEL);
        const { result } = await updateUnderTraffic(() => cli("node", [TFS, "deploy", "--stack", project.stackName]), MODEL, [TWO, THREE]);
        ok(result, "tfs deploy");
        await noChanges();
        const out = await outputs();
        assert.strictEqual(out.imageRef, stepTwoImage, "the pods run the very image of step 2");
        assert.deepStrictEqual(out.imageBuilds[MODEL], { tag: stepTwoTag, pushed: false });
        assert.deepStrictEqual((await tagsOf(repo)).sort(), tagsBefore, "no tag pushed");
        const manifest = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/manifests/${stepTwoTag}`, { method: "HEAD", headers: { Accept: "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json" } });
        assert.strictEqual(`${out.imageRef.split("@")[0]}@${manifest.headers.get("docker-content-digest")}`, stepTwoImage, "the tag still names step 2's manifest");
        assert.deepStrictEqual(await predict(out.restUrl, MODEL, INSTANCES), TWO);
        assert.strictEqual(await availableVersion(out.restUrl, MODEL), "124");
    });

    it("9. destroy removes everything", async () => {
        ok(await pulumi("destroy", "--yes"), "pulumi destroy");
        const all = (await kubectlAsync("get", "deployments", "-n", project.namespace)).items as any[];
        assert.deepStrictEqual(all.map((d) => d.metadata.name), []);
    });
});
