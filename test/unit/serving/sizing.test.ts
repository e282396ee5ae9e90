import * as assert from "assert";
import {
    LIMIT_HEADROOM, LOAD_FACTOR, MAX_STARTUP_SECONDS, RUNTIME_OVERHEAD_BYTES, SizingError, WARMUP_SECONDS_PER_REQUEST, cpuCores, memoryBytes, sizeServer, toMi,
} from "../../../serving/sizing";

const MI = 2 ** 20;
const GI = 2 ** 30;

describe("sizeServer", () => {
    it("derives memory from the model: steady state as request, reload peak with headroom as limit", () => {
        const s = sizeServer({ servedVersionBytes: [1 * GI], gpu: false, batching: false, overrides: {} });
        const steady = RUNTIME_OVERHEAD_BYTES.cpu + GI * LOAD_FACTOR;
        assert.strictEqual(s.steadyBytes, steady);
        assert.strictEqual(s.peakBytes, steady + GI * LOAD_FACTOR, "a reload holds the old and the new version");
        assert.strictEqual(s.memoryRequest, toMi(steady));
        assert.strictEqual(s.memoryLimit, toMi(s.peakBytes * LIMIT_HEADROOM));
        assert.ok(memoryBytes(s.memoryLimit) >= s.peakBytes);
    });

    it("grows with every served version, and the peak adds the largest one", () => {
        const one = sizeServer({ servedVersionBytes: [100 * MI], gpu: false, batching: false, overrides: {} });
        const two = sizeServer({ servedVersionBytes: [100 * MI, 300 * MI], gpu: false, batching: false, overrides: {} });
        assert.ok(two.steadyBytes > one.steadyBytes);
        assert.strictEqual(two.peakBytes - two.steadyBytes, 300 * MI * LOAD_FACTOR);
    });

    it("adds the CUDA runtime on GPU and batching queues when batching is on", () => {
        const cpu = sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, overrides: {} });
        const gpu = sizeServer({ servedVersionBytes: [MI], gpu: true, batching: false, overrides: {} });
        const batching = sizeServer({ servedVersionBytes: [MI], gpu: false, batching: true, overrides: {} });
        assert.strictEqual(gpu.steadyBytes - cpu.steadyBytes, RUNTIME_OVERHEAD_BYTES.gpu - RUNTIME_OVERHEAD_BYTES.cpu);
        assert.ok(batching.steadyBytes > cpu.steadyBytes);
    });

    it("refuses a memory limit below the reload peak, naming both numbers", () => {
        assert.throws(
            () => sizeServer({ servedVersionBytes: [2 * GI], gpu: false, batching: false, overrides: { memoryLimit: "3Gi" } }),
            (err: unknown) => {
                assert.ok(err instanceof SizingError);
                assert.strictEqual(err.key, "memoryLimit");
                assert.match(err.message, /memoryLimit 3Gi \(3\.0 GiB\) is below the 5\.0 GiB the model needs/);
                assert.match(err.message, /OOMKilled/);
                return true;
            });
    });

    it("refuses a memory request below steady state and a request above the limit", () => {
        assert.throws(() => sizeServer({ servedVersionBytes: [GI], gpu: false, batching: false, overrides: { memoryRequest: "512Mi" } }), /memoryRequest 512Mi/);
        assert.throws(() => sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, overrides: { memoryRequest: "8Gi", memoryLimit: "4Gi" } }), /above memoryLimit 4Gi/);
    });

    it("accepts overrides at or above what the model needs", () => {
        const s = sizeServer({ servedVersionBytes: [GI], gpu: false, batching: false, overrides: { memoryRequest: "2Gi", memoryLimit: "4Gi", cpu: "2500m" } });
        assert.deepStrictEqual([s.memoryRequest, s.memoryLimit, s.cpu], ["2Gi", "4Gi", "2500m"]);
    });

    it("matches thread flags to the CPU limit, not the node", () => {
        const s = sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, overrides: { cpu: "2500m" } });
        assert.strictEqual(s.cpuCount, 3);
        assert.deepStrictEqual(s.threads, { intraOp: 3, interOp: 2, restApi: 12, grpcMax: 12 });
        const small = sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, overrides: { cpu: "500m" } });
        assert.deepStrictEqual(small.threads, { intraOp: 1, interOp: 1, restApi: 4, grpcMax: 4 });
    });

    it("refuses a CPU too small to load the model", () => {
        assert.throws(() => sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, overrides: { cpu: "100m" } }), /at least "250m"/);
    });

    it("gives a startup budget that grows with the model", () => {
        const small = sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, overrides: {} });
        const big = sizeServer({ servedVersionBytes: [5 * GI], gpu: false, batching: false, overrides: {} });
        assert.strictEqual(small.startupBudgetSeconds, 70);
        assert.ok(big.startupBudgetSeconds > 500);
        const { startup } = big.probes;
        assert.ok(startup.periodSeconds * startup.failureThreshold >= big.startupBudgetSeconds);
    });

    it(`gives each replayed warmup request ${WARMUP_SECONDS_PER_REQUEST} s of startup, within the ceiling`, () => {
        const none = sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, overrides: {} });
        const some = sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, warmupRequests: 1000, overrides: {} });
        assert.strictEqual(some.startupBudgetSeconds - none.startupBudgetSeconds, 250);
        assert.strictEqual(some.probes.startup.failureThreshold, Math.ceil(some.startupBudgetSeconds / some.probes.startup.periodSeconds));
        assert.strictEqual(sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, warmupRequests: 3, overrides: {} }).startupBudgetSeconds, 71, "rounded up");
        assert.strictEqual(sizeServer({ servedVersionBytes: [MI], gpu: false, batching: false, warmupRequests: 10 ** 6, overrides: {} }).startupBudgetSeconds, MAX_STARTUP_SECONDS);
    });
});

describe("quantity parsing", () => {
    it("parses memory and CPU", () => {
        assert.strictEqual(memoryBytes("1.5Gi"), 1.5 * GI);
        assert.strictEqual(memoryBytes("1G"), 1e9);
        assert.strictEqual(cpuCores("1500m"), 1.5);
        assert.throws(() => memoryBytes("lots"), SizingError);
        assert.strictEqual(toMi(1), "64Mi");
        assert.strictEqual(toMi(65 * MI), "128Mi");
    });
});
