/**
 * Failures that slip past the product's checks, on real pods of the environment's real node, each
 * deployed through `ModelServer` directly (test/support/modelServerProject.ts) with an image built
 * by hand, each told by what a user reads: `pulumi up` (through the CLI, which previews first),
 * `tfs doctor` (from what the kubelet reports and the server logs) and the alert rules
 * (`alertRules`, as ModelMonitoring registers them, on the environment's real Prometheus, over the
 * pods' own metrics, the kubelet's cAdvisor and the kube-state-metrics stand-in):
 *
 * - healthy under traffic: no alert pending or firing, every dashboard query returns series; then a
 *   model at the wrong path in a new image: the rollout stops, `pulumi up` fails at the progress
 *   deadline while the old pods keep serving (zero failed requests), TFServingPodsNotReady fires for
 *   the new pod and TFServingRolloutStuck for the Deployment, doctor names the path; back on the good
 *   image, every alert resolves;
 * - a memory limit below the model (the sizing check bypassed): a real OOMKilled, doctor's finding,
 *   TFServingContainerOOMKilled and TFServingContainerRestarting fire;
 * - the server binary without its exec bit: the real "permission denied" start error.
 *
 * The three run side by side, each in a namespace of its own with its own rules (alerts are matched
 * by namespace), started in `before` and awaited by their `it`: each mostly waits on the cluster, and
 * their pods ask for 250m of CPU so that all of them fit the node at once (wrong path: 2 pods and a
 * surge pod; the others one each), beside the other lane's (test/e2e/lanes.ts). The windows are the stack's own numbers made short through its
 * inputs (`notReadyMinutes: 1`, a startup budget of 20 s, a progress deadline 60 s past it), not a
 * different code path.
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { DoctorResult, Finding, formatReport, runDoctor } from "../../ops/doctor";
import { DEFAULT_THRESHOLDS, alertRules, ruleGroupName } from "../../observability/alerts";
import { dashboardPanels } from "../../observability/dashboard";
import { env } from "../support/e2eProject";
import { fixtureModelDir } from "../support/fixtures";
import { buildHandImage, servingTail } from "../support/handBuiltImage";
import { ModelServerProject, ModelServerStackConfig, createModelServerProject } from "../support/modelServerProject";
import { alertsOf, evaluated, firing, loadRules, query, quiet } from "../support/prometheus";
import { request, underTraffic } from "../support/traffic";

const MODEL = "half-plus-two";
const MI = 2 ** 20;
const THRESHOLDS = { ...DEFAULT_THRESHOLDS, notReadyMinutes: 1 };
/** Small pods and short windows: the same inputs a user sets, with smaller numbers. */
const SHORT: Partial<ModelServerStackConfig> = { cpu: "250m", startupSeconds: 20, deadlineMarginSeconds: 60 };

function folderBytes(dir: string): number {
    return fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => {
        const p = path.join(dir, e.name);
        return sum + (e.isDirectory() ? folderBytes(p) : fs.statSync(p).size);
    }, 0);
}

function finding(result: DoctorResult, kind: Finding["kind"]): Finding {
    const f = result.diagnosis.findings.find((x) => x.kind === kind);
    assert.ok(f, `no ${kind} finding in:\n${formatReport(result)}`);
    return f;
}

function hasEvidence(f: Finding, pattern: RegExp): void {
    assert.ok(f.evidence.some((e) => pattern.test(e)), `no evidence matching ${pattern} in:\n${f.evidence.join("\n")}`);
}

/** Polls `check` every second until it returns a value, at most `seconds`. */
async function waitFor<T>(what: string, seconds: number, check: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
        const value = await check();
        if (value !== undefined) {
            return value;
        }
        await new Promise((r) => setTimeout(r, 1000));
    }
    throw new Error(`timed out after ${seconds} s waiting for ${what}`);
}

/** Lines for the test's log, indented under the test's title; one scenario's lines stay together. */
class Log {
    private readonly lines: string[] = [];
    line(text: string): void {
        this.lines.push(...text.split("\n").map((l) => `      ${l}`));
    }
    report(result: DoctorResult): void {
        this.line(formatReport(result).split("\n").map((l) => `| ${l}`).join("\n"));
    }
    print(): void {
        console.log(this.lines.join("\n"));
    }
}

/** A namespace of its own: the throwaway project and the alert rules loaded for it. */
interface Scenario {
    project: ModelServerProject;
    unload: () => Promise<void>;
    log: Log;
    doctor(): Promise<DoctorResult>;
    /** The first container status of the namespace's model pods that satisfies `match`. */
    containerStatus(match: (cs: { state?: any; lastState?: any }) => boolean): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function scenario(): Promise<Scenario> {
    const project = await createModelServerProject(MODEL);
    const unload = await loadRules(alertRules({ name: MODEL, namespace: project.namespace }, THRESHOLDS));
    return {
        project, unload, log: new Log(),
        doctor: () => runDoctor({ kubeconfigFile: env("KUBECONFIG"), namespace: project.namespace }),
        containerStatus(match) {
            const pods = JSON.parse(execFileSync("kubectl", ["get", "pods", "-n", project.namespace, "-o", "json"], { encoding: "utf8", timeout: 30_000 })) as
                { items: { status?: { containerStatuses?: { state?: unknown; lastState?: unknown }[] } }[] };
            return pods.items.flatMap((p) => p.status?.containerStatuses ?? []).find(match);
        },
    };
}

/**
 * Makes a scenario's namespace and starts `body` in it at once; returns what its `it` awaits (the
 * scenario's log printed under the test, its failure thrown there). Scenarios run side by side.
 */
function started(all: Promise<Scenario>[], body: (s: Scenario) => Promise<void>): () => Promise<void> {
    const made = scenario();
    all.push(made);
    const settled = made.then(
        (s) => body(s).then(() => ({ s, error: undefined }), (error: unknown) => ({ s, error })),
        (error: unknown) => ({ s: undefined, error }),
    );
    return async () => {
        const { s, error } = await settled;
        s?.log.print();
        if (error !== undefined) {
            throw error;
        }
    };
}

describe("failures that slip past preflight, on real pods: what pulumi up, tfs doctor and the alerts say", function () {
    this.timeout(20 * 60 * 1000);
    const model = path.join(fixtureModelDir("half_plus_two_cpu"), "00000123");
    const modelBytes = folderBytes(model);
    const scenarios: Promise<Scenario>[] = [];
    let wrongPath: () => Promise<void>;
    let oomKilled: () => Promise<void>;
    let noExec: () => Promise<void>;

    before(() => {
        const base = env("TFS_E2E_BASE_IMAGE");
        const good = buildHandImage("good", `FROM ${base}\nCOPY --chmod=0755 model/ /models/${MODEL}/123/\n${servingTail(MODEL)}`, { model });
        // The classic slip: the folder named after the fixture (underscores), the server looking for the model name (dashes).
        const broken = buildHandImage("wrong-path", `FROM ${base}\nCOPY --chmod=0755 model/ /models/half_plus_two/123/\n${servingTail(MODEL)}`, { model });
        const noExecImage = buildHandImage("no-exec", [
            `FROM ${base}`,
            "RUN chmod 0644 /usr/bin/tensorflow_model_server",
            `COPY --chmod=0755 model/ /models/${MODEL}/123/`,
            servingTail(MODEL),
        ].join("\n"), { model });
        // A real graph with a variables file grown to 128 MiB: the server reads it all into memory.
        const big = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-big-model-"));
        let bigImage: string;
        let bigBytes: number;
        try {
            fs.cpSync(model, path.join(big, "123"), { recursive: true });
            const shard = path.join(big, "123", "variables", "variables.data-00000-of-00001");
            const padded = Buffer.alloc(128 * MI, 0x5a);
            fs.readFileSync(shard).copy(padded);
            fs.writeFileSync(shard, padded);
            bigBytes = folderBytes(big);
            bigImage = buildHandImage("big", `FROM ${base}\nCOPY --chmod=0755 model/ /models/${MODEL}/\n${servingTail(MODEL)}`, { model: big });
        } finally {
            fs.rmSync(big, { recursive: true, force: true });
        }

        wrongPath = started(scenarios, async (s) => {
            const target = { name: MODEL, namespace: s.project.namespace };
            const first = await s.project.up({ ...SHORT, image: good, modelBytes });
            const restUrl = first.outputs.restUrl as string;
            assert.match(restUrl, /^http:\/\/127\.0\.\d+\.\d+:8501$/);

            // Healthy under traffic until every dashboard query has series (two scrapes of each pod
            // for the rates), then two more evaluations of the rules over that data: an alert whose
            // expression held would be pending by then.
            const panels = dashboardPanels(target).flatMap((panel) => panel.queries.map((q) => ({ panel: panel.title, ...q })));
            const healthy = (async () => {
                // One error, so the error-ratio panel has a series (a version that does not exist: NOT_FOUND).
                await request(`${restUrl}/v1/models/${MODEL}/versions/999:predict`, { method: "POST", body: JSON.stringify({ instances: [1] }) });
                const answered = await waitFor("every dashboard query to return series", 300, async () => {
                    const results = await Promise.all(panels.map(async (p) => ({ ...p, series: await query(p.expr) })));
                    return results.every((r) => r.series.length > 0) ? results : undefined;
                }).catch(async (err: Error) => {
                    const empty = (await Promise.all(panels.map(async (p) => ((await query(p.expr)).length ? [] : [`${p.panel} [${p.legend}]: ${p.expr}`])))).flat();
                    throw new Error(`${err.message}; no series for:\n${empty.join("\n")}`);
                });
                for (const r of answered) {
                    s.log.line(`${r.panel} [${r.legend}]: ${r.series.map((x) => `${JSON.stringify(x.metric)} ${x.value[1]}`).join("; ")}`);
                }
                await evaluated(ruleGroupName(target), Date.now(), 2, 180);
            })();
            const traffic = await underTraffic(restUrl, MODEL, healthy, { expected: [2.5, 3, 4.5] });
            assert.deepStrictEqual(traffic.failures, []);
            assert.deepStrictEqual(await alertsOf(s.project.namespace), [], "a healthy model raises nothing");

            const oldPods = new Set((await query(`up{namespace="${s.project.namespace}"}`)).map((x) => x.metric.pod));
            const t0 = Date.now();
            const update = s.project.up({ ...SHORT, image: broken, modelBytes }).then(
                () => assert.fail("pulumi up succeeded with a model at the wrong path"),
                (err: Error) => err,
            );
            const notReady = firing("TFServingPodsNotReady", s.project.namespace, 300, (a) => !oldPods.has(a.labels.pod)).then((alert) => {
                s.log.line(`TFServingPodsNotReady fired ${((Date.now() - t0) / 1000).toFixed(0)} s into the rollout: ${JSON.stringify(alert.labels)}`);
                s.log.line(alert.annotations.description);
                return alert;
            });
            const during = await underTraffic(restUrl, MODEL, update, { expected: [2.5, 3, 4.5] });
            const err = await update;
            s.log.line(`pulumi up failed after ${((Date.now() - t0) / 1000).toFixed(0)} s; ${during.requests} requests, ${during.failures.length} failed, p50 ${during.p50} ms, p99 ${during.p99} ms`);
            assert.match(err.message, /ProgressDeadlineExceeded|progress deadline|timed out progressing/i, err.message.slice(-2000));
            assert.deepStrictEqual(during.failures, [], "the old pods kept answering every request");
            assert.ok(during.requests > 20 * 60, `traffic ran through the update (${during.requests} requests)`);

            const alert = await notReady;
            assert.strictEqual(alert.labels.model, MODEL);
            assert.match(alert.labels.pod, /^half-plus-two-[a-z0-9]+-[a-z0-9]+$/);
            assert.ok(!(await alertsOf(s.project.namespace)).some((a) => a.labels.alertname === "TFServingModelUnavailable"), "the old pods serve on");
            const stuck = await firing("TFServingRolloutStuck", s.project.namespace, 240);
            s.log.line(`TFServingRolloutStuck fired ${((Date.now() - t0) / 1000).toFixed(0)} s into the rollout: ${JSON.stringify(stuck.labels)}`);
            assert.strictEqual(stuck.labels.deployment, MODEL);

            const result = await s.doctor();
            const f = finding(result, "model-not-found");
            hasEvidence(f, /^log half-plus-two-[a-z0-9]+-[a-z0-9]+\/tf-serving: ".*Could not find base path \/models\/half-plus-two for servable half-plus-two/);
            assert.match(f.summary, /no folder \/models\/half-plus-two for model half-plus-two/);
            s.log.report(result);

            await s.project.up({ ...SHORT, image: good, modelBytes });
            await quiet(s.project.namespace, 180);
        });

        oomKilled = started(scenarios, async (s) => {
            const t0 = Date.now();
            const update = s.project.up({ ...SHORT, image: bigImage, modelBytes: bigBytes, replicas: 1, memoryLimit: "64Mi" }).then(() => undefined, (err: Error) => err);
            const oom = await waitFor("an OOMKilled container", 300, async () => s.containerStatus((cs) =>
                cs.state?.terminated?.reason === "OOMKilled" || cs.lastState?.terminated?.reason === "OOMKilled"));
            s.log.line(`container status: ${JSON.stringify(oom)}`);
            const result = await s.doctor();
            const f = finding(result, "oom-killed");
            hasEvidence(f, /terminated: OOMKilled, exit code 137/);
            hasEvidence(f, /^memory limit 64Mi \(64 MiB\)$/);
            hasEvidence(f, new RegExp(`model size ${(bigBytes / MI).toFixed(0)} MiB on disk`));
            s.log.report(result);
            const rules = alertRules({ name: MODEL, namespace: s.project.namespace }, THRESHOLDS).rules;
            for (const name of ["TFServingContainerOOMKilled", "TFServingContainerRestarting"]) {
                const alert = await firing(name, s.project.namespace, 420);
                s.log.line(`${name} fired ${((Date.now() - t0) / 1000).toFixed(0)} s after the update began: ${JSON.stringify(alert.labels)}`);
                s.log.line(alert.annotations.description);
                s.log.line(`expr: ${rules.find((r) => r.alert === name)!.expr}`);
                assert.strictEqual(alert.labels.container, "tf-serving");
                assert.strictEqual(alert.labels.model, MODEL);
                assert.match(alert.labels.pod, /^half-plus-two-[a-z0-9]+-[a-z0-9]+$/);
            }
            assert.ok(await update instanceof Error, "pulumi up fails: the pod never becomes ready");
        });

        noExec = started(scenarios, async (s) => {
            const update = s.project.up({ ...SHORT, image: noExecImage, modelBytes, replicas: 1 }).then(() => undefined, (err: Error) => err);
            const denied = await waitFor("a StartError", 300, async () => s.containerStatus((cs) =>
                /permission denied/.test(cs.state?.terminated?.message ?? cs.lastState?.terminated?.message ?? cs.state?.waiting?.message ?? "")));
            s.log.line(`container status: ${JSON.stringify(denied)}`);
            const result = await s.doctor();
            const f = finding(result, "permission-denied");
            hasEvidence(f, /StartError, exit code 128, .*"\/usr\/bin\/tensorflow_model_server": permission denied/);
            hasEvidence(f, /pod runs as user 10001/);
            s.log.report(result);
            assert.ok(await update instanceof Error, "pulumi up fails: the container never starts");
        });
    });

    after(async () => {
        // Each scenario ends by itself (every wait in it is bounded); a failed one is cleaned up too.
        await Promise.all([wrongPath, oomKilled, noExec].map((s) => s?.().catch(() => undefined)));
        await Promise.all(scenarios.map(async (made) => {
            const s = await made.catch(() => undefined);
            await s?.unload().catch(() => undefined);
            await s?.project.dispose();
        }));
    });

    it("healthy, then a model at the wrong path: quiet; pulumi up fails at the progress deadline with no failed request; not-ready and rollout-stuck fire; doctor names the path; all resolve after the rollback", async () => {
        await wrongPath();
    });

    it("a memory limit below the model: a real OOMKilled, doctor's exit code, limit and model size; the OOMKilled and Restarting alerts fire", async () => {
        await oomKilled();
    });

    it("the server without its exec bit: the real permission-denied start error", async () => {
        await noExec();
    });
});
