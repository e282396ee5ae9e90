import * as assert from "assert";
import { AlertName, AlertRule, DEFAULT_THRESHOLDS, RULE_INTERVAL, alertRules } from "../../../observability/alerts";
import { ruleFile } from "../../../observability/collectors";
import { dashboardQueries } from "../../../observability/dashboard";
import { INFERENCE_APIS, TF_SERVING_METRICS } from "../../../observability/metrics";
import { MONITORING_FIXTURE } from "../../support/fixtures";
import { ExpectedAlert, RuleTest, SeriesInput, expandAnnotations, promtool, promtoolPath, ruleFolder, ruleTestFile } from "../../support/promtool";
import { fixtureArgs, startTfServing } from "../../support/tfServingStandin";
import { spawnSync } from "child_process";

/* The rendered rules, checked and evaluated by Prometheus' own promtool over series shaped like the
 * real ones: TF Serving's scrape (`:tensorflow:...`, with the pod's target labels), the kubelet's
 * cAdvisor, kube-state-metrics. Each alert: series that fire it (after its `for:`, not before) and
 * series that do not. */

const MODEL = { name: "half-plus-two", namespace: "serving" };
const POD = "half-plus-two-7c9d5f6b8-x2k4q";
const OTHER_POD = "half-plus-two-7c9d5f6b8-p9s7w";
const GROUP = alertRules(MODEL, DEFAULT_THRESHOLDS);
const RULES = "rules.yaml";

const target = `namespace="${MODEL.namespace}", pod="${POD}"`;
const container = `${target}, container="tf-serving"`;
const otherContainer = `namespace="${MODEL.namespace}", pod="${OTHER_POD}", container="tf-serving"`;
const requests = (status: string) => `:tensorflow:serving:request_count{${target}, model_name="${MODEL.name}", status="${status}"}`;
/** The latency histogram's count of successful calls of `api` (REST's verb, gRPC's method; "" for REST's status GETs). */
const successes = (api: string, entrypoint = "REST") =>
    `:tensorflow:serving:request_latency_count{${target}, model_name="${MODEL.name}", API="${api}", entrypoint="${entrypoint}"}`;
/* Probe traffic, as TF Serving counts it (model_servers/http_server.cc, ProcessRequest): every status
 * GET of the kubelet's probes and the load balancers' health checks is a request_count with status OK
 * and a request_latency observation with API="". 60 per 30 s: two kubelet probes every 10 s and a
 * load balancer's health checkers. */
const PROBES_PER_INTERVAL = 60;

function rule(alert: AlertName): AlertRule {
    const found = GROUP.rules.find((r) => r.alert === alert);
    assert.ok(found, `no rule ${alert}`);
    return found;
}

/** The alert as promtool reports it: the rule's labels over the series' labels, its annotations expanded. */
function fired(alert: AlertName, seriesLabels: Record<string, string>, value?: number): ExpectedAlert {
    const r = rule(alert);
    const labels = { ...seriesLabels, ...r.labels };
    return { labels, annotations: expandAnnotations(r.annotations, labels, value) };
}

interface AlertCases {
    /** Series that fire the alert once its `for:` has passed. */
    fires: SeriesInput[];
    /** The labels of the alert they fire (besides the rule's), and the value its annotations print. */
    firedLabels: Record<string, string>;
    value?: number;
    /** Seconds from the first sample to the first evaluation at which the condition holds (the `for:` window starts there). */
    trueFrom: number;
    /** Series that must not fire it: the healthy or out-of-scope look-alike. */
    quiet: SeriesInput[];
    /** When the quiet series are checked; default just after the firing case fires, and well past every window. */
    quietAt?: string[];
}

const seconds = (d: string) => Number(/^(\d+)m$/.exec(d)?.[1] ?? NaN) * 60;

const CASES: Record<AlertName, AlertCases> = {
    TFServingModelUnavailable: {
        fires: [{ series: `up{${target}}`, values: "0x40" }, { series: `up{${target.replace(POD, OTHER_POD)}}`, values: "0x40" }],
        firedLabels: { namespace: MODEL.namespace },
        trueFrom: 0,
        // One pod serves; the other model's pod (a longer name) is down, and does not count.
        quiet: [
            { series: `up{${target}}`, values: "1x40" },
            { series: `up{${target.replace(POD, OTHER_POD)}}`, values: "0x40" },
            { series: `up{namespace="${MODEL.namespace}", pod="half-plus-two-canary-7c9d5f6b8-x2k4q"}`, values: "0x40" },
        ],
    },
    TFServingPodsNotReady: {
        fires: [{ series: `up{${target}}`, values: "0x40" }, { series: `up{${target.replace(POD, OTHER_POD)}}`, values: "1x40" }],
        firedLabels: { namespace: MODEL.namespace, pod: POD },
        trueFrom: 0,
        // A pod loading for three minutes, then serving; the pod of another model whose name extends this one's, down.
        quiet: [
            { series: `up{${target}}`, values: "0x5 1x34" },
            { series: `up{namespace="${MODEL.namespace}", pod="half-plus-two-canary-7c9d5f6b8-x2k4q"}`, values: "0x40" },
        ],
    },
    TFServingRolloutStuck: {
        fires: [{ series: `kube_deployment_status_condition{namespace="${MODEL.namespace}", deployment="${MODEL.name}", condition="Progressing", status="false"}`, values: "0x3 1x36" }],
        firedLabels: { namespace: MODEL.namespace, deployment: MODEL.name, condition: "Progressing", status: "false" },
        trueFrom: 120,
        quiet: [
            { series: `kube_deployment_status_condition{namespace="${MODEL.namespace}", deployment="${MODEL.name}", condition="Progressing", status="true"}`, values: "1x40" },
            { series: `kube_deployment_status_condition{namespace="${MODEL.namespace}", deployment="${MODEL.name}", condition="Progressing", status="false"}`, values: "0x40" },
        ],
    },
    TFServingModelLoadFailing: {
        // The fail counter appears at its first failure, already at 1.
        fires: [{ series: `:tensorflow:cc:saved_model:load_attempt_count{${target}, model_path="/models/half-plus-two/2", status="fail"}`, values: "_x4 1x35" }],
        firedLabels: { namespace: MODEL.namespace, pod: POD, model_path: "/models/half-plus-two/2", status: "fail" },
        trueFrom: 120,
        // A failure long ago (steady for the whole window), and successful loads.
        quiet: [
            { series: `:tensorflow:cc:saved_model:load_attempt_count{${target}, model_path="/models/half-plus-two/1", status="fail"}`, values: "1x80" },
            { series: `:tensorflow:cc:saved_model:load_attempt_count{${target}, model_path="/models/half-plus-two/1", status="success"}`, values: "0x3 1x76" },
        ],
        // Just after it appeared, the old failure was news: it fired then.
        quietAt: ["35m"],
    },
    TFServingContainerOOMKilled: {
        // cAdvisor counts the OOM kill on the container, which then goes away (a restart is a new container).
        fires: [{ series: `container_oom_events_total{${container}, id="/kubepods/a"}`, values: "0x3 1x2 _x34" }],
        firedLabels: { namespace: MODEL.namespace, pod: POD, container: "tf-serving", id: "/kubepods/a" },
        trueFrom: 120,
        quiet: [
            { series: `container_oom_events_total{${container}, id="/kubepods/a"}`, values: "0x40" },
            { series: `container_oom_events_total{${target}, container="sidecar", id="/kubepods/b"}`, values: "0x3 1x36" },
        ],
    },
    TFServingContainerRestarting: {
        // Every restart is a new container: a new series of its start time.
        fires: [0, 1, 2, 3].map((i) => ({ series: `container_start_time_seconds{${container}, id="/kubepods/c${i}"}`, values: `${"_ ".repeat(i * 2)}${1000 + i}x${i === 3 ? 40 : 1}`.trim() })),
        firedLabels: { namespace: MODEL.namespace, pod: POD },
        trueFrom: 180,
        quiet: [
            // One restart in the window.
            ...[0, 1].map((i) => ({ series: `container_start_time_seconds{${container}, id="/kubepods/c${i}"}`, values: `${"_ ".repeat(i * 2)}${1000 + i}x${i === 1 ? 40 : 1}`.trim() })),
            // Three restarts of a pod that a rollout then replaced: its series end (Prometheus marks
            // them stale, as each earlier container's), and its history in the 15-minute window no longer counts.
            ...[0, 1, 2, 3].map((i) => ({ series: `container_start_time_seconds{${otherContainer}, id="/kubepods/d${i}"}`, values: `${"_ ".repeat(i * 2)}${2000 + i}${i === 3 ? "" : "x1"} stale` })),
            { series: `kube_pod_container_status_restarts_total{${otherContainer}, uid="u2"}`, values: "0 1 2 3 stale" },
        ],
    },
    TFServingErrorRatioHigh: {
        // Low traffic: 4 calls per 30 s, 1 of them INTERNAL (25%), among the probes' 60 status GETs,
        // which request_count counts OK as well: over all requests the ratio would read 1.6%.
        fires: [
            { series: requests("OK"), values: `0+${3 + PROBES_PER_INTERVAL}x40` },
            { series: requests("INTERNAL"), values: "0+1x40" },
            { series: successes("predict"), values: "0+2x40" },
            { series: successes("Predict", "GRPC"), values: "0+1x40" },
            { series: successes(""), values: `0+${PROBES_PER_INTERVAL}x40` },
        ],
        firedLabels: { namespace: MODEL.namespace, model_name: MODEL.name },
        value: 25,
        // rate() needs two samples.
        trueFrom: 30,
        // The same share of INVALID_ARGUMENT (the caller's malformed requests) among the probes' GETs,
        // and another model's errors.
        quiet: [
            { series: requests("OK"), values: `0+${3 + PROBES_PER_INTERVAL}x40` },
            { series: requests("INVALID_ARGUMENT"), values: "0+1x40" },
            { series: successes("predict"), values: "0+3x40" },
            { series: successes(""), values: `0+${PROBES_PER_INTERVAL}x40` },
            { series: `:tensorflow:serving:request_count{${target}, model_name="other", status="INTERNAL"}`, values: "0+90x40" },
        ],
    },
    TFServingLatencyP99High: {
        // Every predict between 0.5 s and 1 s: p99 interpolates to 995 ms. One call per 30 s among the
        // probes' fast status GETs (API=""), over which p99 would read under 100 ms.
        fires: [
            ...latencyBuckets({ "100000": 0, "500000": 0, "1000000": 1, "+Inf": 1 }),
            ...latencyBuckets({ "100000": PROBES_PER_INTERVAL * 2, "500000": PROBES_PER_INTERVAL * 2, "1000000": PROBES_PER_INTERVAL * 2, "+Inf": PROBES_PER_INTERVAL * 2 }, ""),
        ],
        firedLabels: { namespace: MODEL.namespace, model_name: MODEL.name },
        value: 995,
        trueFrom: 30,
        // Every call under 100 ms, while the status GETs (a busy server answers its probes slowly) take 0.5 to 1 s.
        quiet: [
            ...latencyBuckets({ "100000": 100, "500000": 100, "1000000": 100, "+Inf": 100 }),
            ...latencyBuckets({ "100000": 0, "500000": 0, "1000000": PROBES_PER_INTERVAL, "+Inf": PROBES_PER_INTERVAL }, ""),
        ],
    },
    TFServingMemoryNearLimit: {
        fires: [
            { series: `container_memory_working_set_bytes{${container}}`, values: "950x40" },
            { series: `container_spec_memory_limit_bytes{${container}}`, values: "1000x40" },
        ],
        firedLabels: { namespace: MODEL.namespace, pod: POD },
        value: 95,
        trueFrom: 0,
        // 80% of the limit; and a container without a limit (cAdvisor reports 0).
        quiet: [
            { series: `container_memory_working_set_bytes{${container}}`, values: "800x40" },
            { series: `container_spec_memory_limit_bytes{${container}}`, values: "1000x40" },
            { series: `container_memory_working_set_bytes{${target.replace(POD, OTHER_POD)}, container="tf-serving"}`, values: "5000x40" },
            { series: `container_spec_memory_limit_bytes{${target.replace(POD, OTHER_POD)}, container="tf-serving"}`, values: "0x40" },
        ],
    },
};

/** A latency histogram's buckets growing by `perInterval` each 30 s; gRPC Predicts unless `api` is REST's ("" for the status GETs). */
function latencyBuckets(perInterval: Record<string, number>, api = "Predict"): SeriesInput[] {
    const entrypoint = api === "Predict" ? "GRPC" : "REST";
    return Object.entries(perInterval).map(([le, n]) => ({
        series: `:tensorflow:serving:request_latency_bucket{${target}, model_name="${MODEL.name}", API="${api}", entrypoint="${entrypoint}", le="${le}"}`,
        values: `0+${n}x40`,
    }));
}

/** promtool's unit tests for one alert: before its `for:` has passed, after, and the quiet series. */
function testsFor(alert: AlertName): RuleTest[] {
    const c = CASES[alert];
    const hold = seconds(rule(alert).for);
    const before = `${c.trueFrom + hold - 30}s`;
    const after = `${c.trueFrom + hold + 60}s`;
    return [
        {
            name: `${alert} fires after its for: window, not before`, interval: "30s", series: c.fires, checks: [
                ...(hold > 0 ? [{ evalTime: before, alertname: alert, alerts: [] }] : []),
                { evalTime: after, alertname: alert, alerts: [fired(alert, c.firedLabels, c.value)] },
            ],
        },
        {
            name: `${alert} stays quiet`, interval: "30s", series: c.quiet,
            checks: (c.quietAt ?? [after, "19m"]).map((evalTime) => ({ evalTime, alertname: alert, alerts: [] })),
        },
    ];
}

function runTests(tests: RuleTest[]) {
    const dir = ruleFolder({ [RULES]: ruleFile([GROUP]), "tests.yaml": ruleTestFile([RULES], tests, RULE_INTERVAL) });
    return promtool(dir, ["test", "rules", "tests.yaml"]);
}

describe("alert rules under promtool (Prometheus' own parser and evaluator)", () => {
    it("promtool check rules accepts the rendered rule file", () => {
        const dir = ruleFolder({ [RULES]: ruleFile([GROUP]) });
        const run = promtool(dir, ["check", "rules", RULES]);
        assert.strictEqual(run.status, 0, run.output);
        assert.match(run.output, new RegExp(`SUCCESS: ${GROUP.rules.length} rules found`));
    });

    it("has a promtool case for every alert", () => {
        assert.deepStrictEqual(Object.keys(CASES).sort(), GROUP.rules.map((r) => r.alert).sort());
    });

    for (const alert of Object.keys(CASES) as AlertName[]) {
        it(`${alert}: fires on its series after ${rule(alert).for}, not before, and not on the look-alikes`, () => {
            const run = runTests(testsFor(alert));
            assert.strictEqual(run.status, 0, run.output);
        });
    }

    it("a case that expects the wrong alert fails: promtool really compares", () => {
        const [firing] = testsFor("TFServingErrorRatioHigh");
        const wrong = { ...firing, checks: [{ ...firing.checks[firing.checks.length - 1], alerts: [] }] };
        const run = runTests([wrong]);
        assert.notStrictEqual(run.status, 0, run.output);
        assert.match(run.output, /TFServingErrorRatioHigh/);
    });

    it("TFServingErrorRatioHigh: every call failing (no success series, the probes' GETs still OK) reads 100%", () => {
        const series = [
            { series: requests("OK"), values: `0+${PROBES_PER_INTERVAL}x40` },
            { series: successes(""), values: `0+${PROBES_PER_INTERVAL}x40` },
            { series: requests("NOT_FOUND"), values: "0+5x40" },
        ];
        const run = runTests([{
            name: "all calls fail", interval: "30s", series,
            checks: [{ evalTime: "10m", alertname: "TFServingErrorRatioHigh", alerts: [fired("TFServingErrorRatioHigh", { namespace: MODEL.namespace, model_name: MODEL.name }, 100)] }],
        }]);
        assert.strictEqual(run.status, 0, run.output);
    });

    it("every dashboard query parses as PromQL (checked as recording rules)", () => {
        const queries = dashboardQueries(MODEL);
        const file = ruleFile([{ name: "dashboard", interval: RULE_INTERVAL, rules: queries.map((expr, i) => ({ record: `tfs_dashboard:query_${i}`, expr })) as never }]);
        const run = promtool(ruleFolder({ "dashboard.yaml": file }), ["check", "rules", "dashboard.yaml"]);
        assert.strictEqual(run.status, 0, run.output);
        assert.match(run.output, new RegExp(`SUCCESS: ${queries.length} rules found`));
    });
});

describe("the TF Serving stand-in's scrape, as the rules read it", () => {
    it("exposes every metric the rules and the dashboard read, with their labels, in a format promtool parses", async () => {
        const server = await startTfServing({ args: [...fixtureArgs("half_plus_two_cpu", "m"), `--monitoring_config_file=${MONITORING_FIXTURE}`] });
        try {
            const predict = await fetch(`${server.url}/v1/models/m:predict`, { method: "POST", body: JSON.stringify({ instances: [1] }) });
            assert.strictEqual(predict.status, 200);
            // A probe's status GET: counted OK and timed with API="", as http_server.cc does.
            assert.strictEqual((await fetch(`${server.url}/v1/models/m`)).status, 200);
            const text = await (await fetch(`${server.url}/monitoring/prometheus/metrics`)).text();
            assert.match(text, new RegExp(`^${TF_SERVING_METRICS.requestCount}\\{model_name="m",status="OK"\\} 2$`, "m"));
            assert.match(text, new RegExp(`^${TF_SERVING_METRICS.requestLatency}_bucket\\{model_name="m",API="predict",entrypoint="REST",le="10"\\} [01]$`, "m"));
            assert.match(text, new RegExp(`^${TF_SERVING_METRICS.requestLatency}_count\\{model_name="m",API="",entrypoint="REST"\\} 1$`, "m"));
            const apis = [...text.matchAll(/request_latency_count\{[^}]*API="([^"]*)"/g)].map((m) => m[1]);
            assert.deepStrictEqual(apis.filter((api) => (INFERENCE_APIS as readonly string[]).includes(api)), ["predict"]);
            assert.match(text, new RegExp(`^${TF_SERVING_METRICS.loadAttemptCount}\\{model_path="[^"]+/00000123",status="success"\\} 1$`, "m"));
            assert.match(text, new RegExp(`^${TF_SERVING_METRICS.loadLatency}\\{model_path="[^"]+/00000123"\\} [0-9]+$`, "m"));
            // `check metrics` parses the exposition format; its lint (counters without _total, as TF Serving names them) is advice, exit 3.
            const run = spawnSync(promtoolPath(), ["check", "metrics"], { input: text, encoding: "utf8" });
            assert.ok(run.status === 0 || run.status === 3, `${run.status}: ${run.stdout}${run.stderr}`);
            assert.doesNotMatch(`${run.stdout}${run.stderr}`, /error while linting|text format parsing error/);
        } finally {
            await server.close();
        }
    });
});
