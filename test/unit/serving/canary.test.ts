import * as assert from "assert";
import {
    CANARY_DEFAULTS, InferenceCounters, canaryHoldProblem, canaryPodsAtMost, canaryReplicasFor, canaryShare, countersSince, drainQuietMs, drained,
    gateFigures, gateVerdict, inferenceCounters, quantile, retryOnConflict, sumCounters, weightedRules,
} from "../../../serving/canary";

/** A metrics page as TF Serving writes it (names, labels and bucket bounds of util.cc), for model "m" and another model. */
function page(opts: { ok: number; failed: Record<string, number>; restPredict: number; grpcPredict: number; statusGets: number; fastBucket?: number }): string {
    const lines = [
        "# TYPE :tensorflow:serving:request_count counter",
        `:tensorflow:serving:request_count{model_name="m",status="OK"} ${opts.ok + opts.statusGets}`,
        ...Object.entries(opts.failed).map(([status, n]) => `:tensorflow:serving:request_count{model_name="m",status="${status}"} ${n}`),
        `:tensorflow:serving:request_count{model_name="other",status="UNAVAILABLE"} 99`,
        "# TYPE :tensorflow:serving:request_latency histogram",
    ];
    const histogram = (api: string, entrypoint: string, n: number) => {
        // Half the calls under 1 ms (le=1049.76...), the rest under 10 ms.
        const fast = opts.fastBucket ?? Math.floor(n / 2);
        lines.push(`:tensorflow:serving:request_latency_bucket{model_name="m",API="${api}",entrypoint="${entrypoint}",le="1000"} ${fast}`);
        lines.push(`:tensorflow:serving:request_latency_bucket{model_name="m",API="${api}",entrypoint="${entrypoint}",le="10000"} ${n}`);
        lines.push(`:tensorflow:serving:request_latency_bucket{model_name="m",API="${api}",entrypoint="${entrypoint}",le="+Inf"} ${n}`);
        lines.push(`:tensorflow:serving:request_latency_count{model_name="m",API="${api}",entrypoint="${entrypoint}"} ${n}`);
    };
    histogram("predict", "REST", opts.restPredict);
    histogram("Predict", "GRPC", opts.grpcPredict);
    // The status GETs are recorded with API "" and never count as inference calls.
    histogram("", "REST", opts.statusGets);
    return `${lines.join("\n")}\n`;
}

describe("canary: the gate's figures from the canary pods' own metrics", () => {
    it("counts inference calls only: failures of any status but OK (INVALID_ARGUMENT too), successes from the latency histogram, not the probes' status GETs", () => {
        const c = inferenceCounters(page({ ok: 0, failed: { INVALID_ARGUMENT: 7, UNAVAILABLE: 1 }, restPredict: 30, grpcPredict: 10, statusGets: 500 }), "m");
        assert.strictEqual(c.succeeded, 40);
        assert.strictEqual(c.failed, 8);
        assert.deepStrictEqual(c.buckets, [{ le: 1000, count: 20 }, { le: 10000, count: 40 }, { le: Infinity, count: 40 }]);
    });

    it("takes the difference of two readings, and a reading after a restart as all that happened", () => {
        const before: InferenceCounters = { succeeded: 10, failed: 1, buckets: [{ le: 1000, count: 10 }, { le: Infinity, count: 10 }] };
        const after: InferenceCounters = { succeeded: 25, failed: 4, buckets: [{ le: 1000, count: 20 }, { le: Infinity, count: 25 }] };
        assert.deepStrictEqual(countersSince(before, after), { succeeded: 15, failed: 3, buckets: [{ le: 1000, count: 10 }, { le: Infinity, count: 15 }] });
        const restarted: InferenceCounters = { succeeded: 3, failed: 0, buckets: [{ le: 1000, count: 3 }, { le: Infinity, count: 3 }] };
        assert.deepStrictEqual(countersSince(after, restarted), restarted);
        assert.deepStrictEqual(sumCounters([after, restarted]).succeeded, 28);
    });

    it("interpolates the p99 inside its bucket as histogram_quantile does, and the overflow bucket gives the highest bound", () => {
        const buckets = [{ le: 1000, count: 50 }, { le: 10000, count: 100 }, { le: Infinity, count: 100 }];
        assert.strictEqual(quantile(0.5, buckets), 1000);
        assert.strictEqual(quantile(0.99, buckets), 1000 + 9000 * (49 / 50));
        assert.strictEqual(quantile(0.99, [{ le: 1000, count: 1 }, { le: Infinity, count: 100 }]), 1000);
        assert.strictEqual(quantile(0.99, [{ le: Infinity, count: 0 }]), undefined);
    });

    it("fails a step with too little traffic before anything else, with its own message", () => {
        const step = { index: 1, count: 2, weight: 10 };
        const v = gateVerdict(gateFigures({ succeeded: 3, failed: 3, buckets: [{ le: Infinity, count: 3 }] }), CANARY_DEFAULTS.gates, step);
        assert.strictEqual(v.passed, false);
        assert.strictEqual(v.gate, "minRequests");
        assert.match(v.summary, /^step 1\/2 \(10 %\): 6 calls, 3 failed .*too little traffic to decide, 6 calls < minRequests 50/);
    });

    it("names the gate, the figure, the threshold and the step of a failure; passes what is within every gate", () => {
        const gates = { maxErrorRatio: 0.01, maxP99Ms: 50, minRequests: 10 };
        const step = { index: 2, count: 2, weight: 50 };
        const errors = gateVerdict(gateFigures({ succeeded: 90, failed: 10, buckets: [{ le: 1000, count: 90 }, { le: Infinity, count: 90 }] }), gates, step);
        assert.strictEqual(errors.gate, "maxErrorRatio");
        assert.match(errors.summary, /step 2\/2 \(50 %\): 100 calls, 10 failed \(error ratio 0\.1000\).*: error ratio 0\.1000 > maxErrorRatio 0\.01$/);
        const slow = gateVerdict(gateFigures({ succeeded: 100, failed: 0, buckets: [{ le: 10_000, count: 0 }, { le: 100_000, count: 100 }, { le: Infinity, count: 100 }] }), gates, step);
        assert.strictEqual(slow.gate, "maxP99Ms");
        assert.match(slow.summary, /p99 99\.1 ms > maxP99Ms 50$/);
        const good = gateVerdict(gateFigures({ succeeded: 100, failed: 1, buckets: [{ le: 10_000, count: 100 }, { le: Infinity, count: 100 }] }), { ...gates, maxErrorRatio: 0.05 }, step);
        assert.strictEqual(good.passed, true);
        assert.match(good.summary, /: passed$/);
    });
});

describe("canary: the routes' weights", () => {
    const rules = [
        { matches: [{ path: { value: "/v1/" } }], backendRefs: [{ name: "m", port: 8501, weight: 100 }, { name: "m-canary", port: 8501, weight: 0 }] },
        { backendRefs: [{ name: "m", port: 8500, weight: 100 }, { name: "m-canary", port: 8500, weight: 0 }] },
    ];
    it("moves the canary's weight in every rule, keeping the rules' other fields", () => {
        const moved = weightedRules(rules, { serving: "m", canary: "m-canary" }, 10);
        assert.deepStrictEqual(moved[0], { ...rules[0], backendRefs: [{ name: "m", port: 8501, weight: 90 }, { name: "m-canary", port: 8501, weight: 10 }] });
        assert.strictEqual(canaryShare(moved, "m-canary"), 10);
        assert.strictEqual(canaryShare(rules, "m-canary"), 0);
    });

    it("refuses a route without the canary's backend (not the route this program rendered)", () => {
        assert.throws(() => weightedRules([{ backendRefs: [{ name: "m" }] }], { serving: "m", canary: "m-canary" }, 10), /rule 0 of the route has no backend for both m and m-canary/);
    });
});

describe("canary: its pods' load, the HPA beside it, the drain, a conflicting write", () => {
    it("scales the canary with its weight, so that no canary pod carries more than a serving pod did before the release", () => {
        // One canary pod at 50 % beside 4 serving pods would carry twice a serving pod's load.
        assert.strictEqual(canaryReplicasFor(50, 4, 1), 2);
        assert.strictEqual(canaryReplicasFor(50, 3, 1), 2, "1.5 pods' worth of load needs 2");
        assert.strictEqual(canaryReplicasFor(10, 2, 1), 1);
        assert.strictEqual(canaryReplicasFor(10, 10, 1), 1);
        assert.strictEqual(canaryReplicasFor(90, 10, 1), 9);
        assert.strictEqual(canaryReplicasFor(10, 2, 3), 3, "canary.replicas is the floor");
        assert.strictEqual(canaryReplicasFor(50, 0, 1), 1, "a serving Deployment scaled to 0 still gets one canary pod");
        for (const [weight, serving] of [[10, 2], [50, 4], [33, 7], [99, 100], [1, 1]]) {
            const pods = canaryReplicasFor(weight, serving, 1);
            assert.ok((weight / 100) / pods <= 1 / serving + 1e-9, `${weight} % on ${pods} canary pods, each above a serving pod's share of ${serving}`);
        }
        assert.strictEqual(canaryPodsAtMost({ steps: [10, 50], replicas: 1 }, 10), 5, "the last step decides the most pods");
    });

    it("refuses holds longer than the HPA's scale-down window, naming both keys and the figure to set", () => {
        assert.strictEqual(canaryHoldProblem({ steps: [10, 50], holdSeconds: 60 }, 300), undefined, "the defaults fit: 150 s < 300 s");
        assert.strictEqual(canaryHoldProblem({ steps: [10, 50], holdSeconds: 600 }, undefined), undefined, "no HPA, nothing shrinks");
        const problem = canaryHoldProblem({ steps: [10, 25, 50], holdSeconds: 120 }, 300) ?? "";
        assert.match(problem, /up to 390 s/);
        assert.match(problem, /autoscaling\.scaleDownStabilizationSeconds \(300\)/);
        assert.match(problem, /at least 390/);
        assert.match(problem, /docs\/guides\/canary\.md#/);
    });

    it("waits five mean gaps between the canary's calls before calling it drained, at least the floor, at most the cap", () => {
        assert.strictEqual(drainQuietMs(20, 5000, 30000), 5000, "at 20 calls/s the floor decides");
        assert.strictEqual(drainQuietMs(0.5, 5000, 30000), 10000, "one call every 2 s: 10 s of quiet");
        assert.strictEqual(drainQuietMs(0.01, 5000, 30000), 30000);
        assert.strictEqual(drainQuietMs(undefined, 5000, 30000), 5000);
    });

    it("is drained only when the calls did not rise over a whole quiet window", () => {
        const r = (s: number, calls: number) => ({ atMs: s * 1000, calls });
        assert.strictEqual(drained([], 3000), false);
        assert.strictEqual(drained([r(0, 10), r(2, 10)], 3000), false, "not yet a whole window");
        assert.strictEqual(drained([r(0, 10), r(1, 12), r(2, 14), r(3, 15), r(4, 15)], 3000), false, "still rising within the window");
        assert.strictEqual(drained([r(0, 10), r(1, 12), r(2, 15), r(3, 15), r(4, 15), r(5, 15)], 3000), true);
        assert.strictEqual(drained([r(0, 10), r(1, 12), r(4, 3)], 3000), true, "a restarted pod's counters fell: no call rose");
    });

    it("writes again on a conflict (409), a bounded number of times; other errors at once", async () => {
        const conflict = Object.assign(new Error("Conflict"), { code: 409 });
        const waits: number[] = [];
        const noWait = async (ms: number) => { waits.push(ms); };
        let calls = 0;
        assert.strictEqual(await retryOnConflict(async () => { calls++; if (calls < 3) throw conflict; return "written"; }, 5, 100, noWait), "written");
        assert.deepStrictEqual([calls, waits], [3, [100, 200]]);
        calls = 0;
        await assert.rejects(retryOnConflict(async () => { calls++; throw conflict; }, 4, 100, noWait), /Conflict/);
        assert.strictEqual(calls, 4, "bounded");
        calls = 0;
        await assert.rejects(retryOnConflict(async () => { calls++; throw Object.assign(new Error("Forbidden"), { code: 403 }); }, 4, 100, noWait), /Forbidden/);
        assert.strictEqual(calls, 1, "only a conflict is tried again");
    });
});
