import * as assert from "assert";
import * as http from "http";
import { AddressInfo } from "net";
import { percentile, underTraffic } from "../../support/traffic";

describe("traffic (e2e and bench support)", () => {
    it("percentile is nearest-rank over sorted values, NaN for none", () => {
        const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
        assert.strictEqual(percentile(sorted, 50), 50);
        assert.strictEqual(percentile(sorted, 99), 99);
        assert.strictEqual(percentile(sorted, 100), 100);
        assert.ok(Number.isNaN(percentile([], 50)));
    });

    it("sends predicts and status reads to a loopback server until told to stop; wrong answers and errors are failures; versions are tracked", async () => {
        let predicts = 0;
        // Stopped by a state (the server has answered 30 predicts), not by a clock: a busy machine sends fewer a second.
        let thirty: () => void = () => undefined;
        const during = new Promise<void>((r) => { thirty = r; });
        const server = http.createServer((req, res) => {
            let body = "";
            req.on("data", (d) => { body += d; }).on("end", () => {
                if (req.url?.endsWith(":predict")) {
                    predicts++;
                    if (predicts === 30) {
                        thirty();
                    }
                    const x = (JSON.parse(body) as { instances: number[] }).instances;
                    // every 5th predict answers wrong, every 7th fails outright
                    if (predicts % 7 === 0) {
                        res.writeHead(503).end("{\"error\": \"overloaded\"}");
                        return;
                    }
                    res.writeHead(200, { "content-type": "application/json" })
                        .end(JSON.stringify({ predictions: x.map((v) => v / 2 + (predicts % 5 === 0 ? 3 : 2)) }));
                } else {
                    res.writeHead(200, { "content-type": "application/json" })
                        .end(JSON.stringify({ model_version_status: [{ version: predicts < 10 ? "1" : "2", state: "AVAILABLE" }] }));
                }
            });
        });
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        try {
            const { port } = server.address() as AddressInfo;
            const report = await underTraffic(`http://127.0.0.1:${port}`, "m", during, { rps: 40, maxSeconds: 60, expected: [2.5, 3, 4.5] });
            assert.ok(predicts >= 30, `sent until told to stop, got ${predicts}`);
            assert.ok(predicts < 200, `stopped when told to, not at its bound of 2,400 (got ${predicts})`);
            const wrong = Array.from({ length: predicts }, (_, i) => i + 1).filter((n) => n % 7 === 0 || n % 5 === 0).length;
            assert.strictEqual(report.failures.length, wrong, report.failures.join("\n"));
            assert.deepStrictEqual(report.versions.map((v) => v.version), ["1", "2"]);
            assert.ok(report.p50 > 0 && report.p99 >= report.p50);
        } finally {
            server.close();
        }
    });
});
