import * as assert from "assert";
import {
    CANARY_DEFAULTS, InferenceCounters, canaryShare, countersSince, gateFigures, gateVerdict, inferenceCounters, quantile, sumCounters, weightedRules,
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
