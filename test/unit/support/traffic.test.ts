import * as assert from "assert";
import * as http from "http";
import { AddressInfo } from "net";
import { quantile, startTraffic, summarise } from "../../support/traffic";

describe("traffic (bench and e2e support)", () => {
    it("quantile is nearest-rank, 0 for no values", () => {
        const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
        assert.strictEqual(quantile(values, 0.5), 50);
        assert.strictEqual(quantile(values, 0.99), 99);
        assert.strictEqual(quantile(values, 1), 100);
        assert.strictEqual(quantile([], 0.5), 0);
    });

    it("counts every non-200 as failed", () => {
        const s = summarise([
            { startedMs: 0, latencyMs: 2, status: 200, answer: {} },
            { startedMs: 1, latencyMs: 4, status: 503, answer: "x" },
            { startedMs: 2, latencyMs: 6, status: 0, answer: "ECONNREFUSED" },
        ]);
        assert.deepStrictEqual([s.requests, s.failed, s.p50Ms, s.p99Ms], [3, 2, 4, 6]);
    });

    it("sends at the rate asked to a loopback server, records answers and stops when told", async () => {
        let seen = 0;
        const server = http.createServer((req, res) => {
            seen++;
            req.resume().on("end", () => {
                res.writeHead(seen % 5 === 0 ? 500 : 200, { "content-type": "application/json" });
                res.end(JSON.stringify({ predictions: [2.5] }));
            });
        });
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        try {
            const { port } = server.address() as AddressInfo;
            const traffic = startTraffic({ url: `http://127.0.0.1:${port}/v1/models/m:predict`, body: { instances: [1] }, ratePerSecond: 50, maxSeconds: 5 });
            await new Promise((r) => setTimeout(r, 500));
            const s = await traffic.stop();
            assert.ok(s.requests >= 15 && s.requests <= 35, `about 25 requests in 0.5 s at 50/s, got ${s.requests}`);
            assert.strictEqual(s.requests, seen);
            assert.strictEqual(s.failed, Math.floor(seen / 5));
            assert.deepStrictEqual(s.records.find((r) => r.status === 200)?.answer, { predictions: [2.5] });
        } finally {
            server.close();
        }
    });
});
