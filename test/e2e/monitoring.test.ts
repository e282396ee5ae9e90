/**
 * The alert rules and the dashboard's queries, evaluated by the environment's real Prometheus
 * (Debian's, started by scripts/e2e-env start) over the real node's pods, scraped as their
 * `prometheus.io/*` annotations say (the dev stack's collector), and the kubelet's cAdvisor:
 *
 * - a healthy model under traffic: no alert pending or firing; every dashboard query that the
 *   environment can answer returns series;
 * - a rollout to an image with the model at the wrong path: TFServingPodsNotReady fires for the new
 *   pod within its window (the old pods serve on), TFServingRolloutStuck once the progress deadline
 *   passes, and both resolve once the good image is back;
 * - a memory limit below the model: TFServingContainerOOMKilled and TFServingContainerRestarting fire.
 *
 * cAdvisor is the kubelet's own; kube-state-metrics is the environment's stand-in (its five
 * families, computed from the API server), so the rules' kube-state-metrics branches run too.
 *
 * The rules are rendered by `alertRules` (what ModelMonitoring registers) for the test's namespace,
 * with `notReadyMinutes: 1` to keep the windows short.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { DEFAULT_THRESHOLDS, alertRules } from "../../observability/alerts";
import { dashboardPanels } from "../../observability/dashboard";
import { env } from "../support/e2eProject";
import { fixtureModelDir } from "../support/fixtures";
import { buildHandImage, servingTail } from "../support/handBuiltImage";
import { ModelServerProject, createModelServerProject } from "../support/modelServerProject";
import { alertsOf, firing, loadRules, query, quiet } from "../support/prometheus";
import { request, underTraffic } from "../support/traffic";

const MODEL = "half-plus-two";
const THRESHOLDS = { ...DEFAULT_THRESHOLDS, notReadyMinutes: 1 };

function folderBytes(dir: string): number {
    return fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => {
        const p = path.join(dir, e.name);
        return sum + (e.isDirectory() ? folderBytes(p) : fs.statSync(p).size);
    }, 0);
}

describe("alerts and dashboard queries on the real Prometheus", function () {
    this.timeout(25 * 60 * 1000);
    const model = path.join(fixtureModelDir("half_plus_two_cpu"), "00000123");
    const modelBytes = folderBytes(model);
    let project: ModelServerProject;
    let unload: (() => Promise<void>) | undefined;

    beforeEach(async () => {
        project = await createModelServerProject(MODEL);
        unload = await loadRules(alertRules({ name: MODEL, namespace: project.namespace }, THRESHOLDS));
    });

    afterEach(async () => {
        await unload?.();
        await project?.dispose();
    });

    const goodImage = () => buildHandImage("good", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/${MODEL}/123/\n${servingTail(MODEL)}`, { model });

    it("healthy, then a rollout with the model at the wrong path: quiet, then not-ready fires for the new pod, then resolves", async () => {
        const good = goodImage();
        const first = await project.up({ image: good, modelBytes, replicas: 1 });
        const restUrl = first.outputs.restUrl as string;

        // Healthy under traffic for two scrape-and-evaluate windows of the longest short rule.
        const settle = new Promise((r) => setTimeout(r, 150_000));
        const traffic = await underTraffic(restUrl, MODEL, settle, { expected: [2.5, 3, 4.5] });
        assert.deepStrictEqual(traffic.failures, []);
        // One error, so the error-ratio panel has a series (a version that does not exist: NOT_FOUND).
        await request(`${restUrl}/v1/models/${MODEL}/versions/999:predict`, { method: "POST", body: JSON.stringify({ instances: [1] }) });
        await new Promise((r) => setTimeout(r, 30_000));
        assert.deepStrictEqual(await alertsOf(project.namespace), [], "a healthy model raises nothing");

        const target = { name: MODEL, namespace: project.namespace };
        for (const panel of dashboardPanels(target)) {
            for (const q of panel.queries) {
                const series = await query(q.expr);
                console.log(`      ${panel.title} [${q.legend}]: ${series.map((s) => `${JSON.stringify(s.metric)} ${s.value[1]}`).join("; ") || "(none)"}`);
                assert.ok(series.length > 0, `no series for ${panel.title}: ${q.expr}`);
            }
        }

        const broken = buildHandImage("wrong-path", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/half_plus_two/123/\n${servingTail(MODEL)}`, { model });
        const oldPods = new Set((await query(`up{namespace="${project.namespace}"}`)).map((s) => s.metric.pod));
        const started = Date.now();
        const update = project.up({ image: broken, modelBytes, replicas: 1 }).then(() => assert.fail("the rollout succeeded"), (err: Error) => err);
        const alert = await firing("TFServingPodsNotReady", project.namespace, 300, (a) => !oldPods.has(a.labels.pod));
        console.log(`      TFServingPodsNotReady fired ${((Date.now() - started) / 1000).toFixed(0)} s into the rollout: ${JSON.stringify(alert.labels)}`);
        console.log(`      ${alert.annotations.description}`);
        console.log(`      expr: ${alertRules(target, THRESHOLDS).rules.find((r) => r.alert === "TFServingPodsNotReady")!.expr}`);
        assert.strictEqual(alert.labels.model, MODEL);
        assert.match(alert.labels.pod, /^half-plus-two-[a-z0-9]+-[a-z0-9]+$/);
        assert.ok(!(await alertsOf(project.namespace)).some((a) => a.labels.alertname === "TFServingModelUnavailable"), "the old pod serves on");
        const failed = await update;
        assert.match(failed.message, /ProgressDeadlineExceeded|progress deadline|timed out progressing/i, failed.message.slice(-2000));
        const stuck = await firing("TFServingRolloutStuck", project.namespace, 240);
        console.log(`      TFServingRolloutStuck fired ${((Date.now() - started) / 1000).toFixed(0)} s into the rollout: ${JSON.stringify(stuck.labels)}`);
        assert.strictEqual(stuck.labels.deployment, MODEL);

        await project.up({ image: good, modelBytes, replicas: 1 });
        await quiet(project.namespace, 180);
    });

    it("a memory limit below the model: TFServingContainerOOMKilled and TFServingContainerRestarting fire", async () => {
        // A real graph with a variables file grown to 128 MiB: the server reads it all into memory.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-big-model-"));
        try {
            fs.cpSync(model, path.join(dir, "123"), { recursive: true });
            const shard = path.join(dir, "123", "variables", "variables.data-00000-of-00001");
            const padded = Buffer.alloc(128 * 2 ** 20, 0x5a);
            fs.readFileSync(shard).copy(padded);
            fs.writeFileSync(shard, padded);
            const image = buildHandImage("big", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/${MODEL}/\n${servingTail(MODEL)}`, { model: dir });
            const started = Date.now();
            const update = project.up({ image, modelBytes: folderBytes(dir), replicas: 1, memoryLimit: "64Mi" }).then(() => undefined, (err: Error) => err);
            const rules = alertRules({ name: MODEL, namespace: project.namespace }, THRESHOLDS).rules;
            for (const name of ["TFServingContainerOOMKilled", "TFServingContainerRestarting"]) {
                const alert = await firing(name, project.namespace, 420);
                console.log(`      ${name} fired ${((Date.now() - started) / 1000).toFixed(0)} s after the update began: ${JSON.stringify(alert.labels)}`);
                console.log(`      ${alert.annotations.description}`);
                console.log(`      expr: ${rules.find((r) => r.alert === name)!.expr}`);
                assert.strictEqual(alert.labels.container, "tf-serving");
                assert.strictEqual(alert.labels.model, MODEL);
                assert.match(alert.labels.pod, /^half-plus-two-[a-z0-9]+-[a-z0-9]+$/);
            }
            assert.ok(await update instanceof Error, "pulumi up fails: the pod never becomes ready");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
