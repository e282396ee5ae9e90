import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { isAtLeast, lanes, minNode } from "../../e2e/lanes";
import { ROOT } from "../../support/e2eProject";

const E2E = path.join(ROOT, "test", "e2e");
const files = fs.readdirSync(E2E).filter((f) => f.endsWith(".test.ts")).sort().map((f) => path.join(E2E, f));
const name = (f: string) => path.basename(f, ".test.ts");

describe("the end-to-end lanes (test/e2e/lanes.ts)", () => {
    it("runs every file once, in two lanes", () => {
        const planned = lanes(files, [], 2);
        assert.strictEqual(planned.length, 2);
        assert.deepStrictEqual([...planned.flat()].sort(), files);
    });

    it("puts every file that deploys a Gateway of the environment's class in one lane (they share Traefik's one address)", () => {
        // A Gateway of another class takes no address (checkouts.test.ts names one no controller serves).
        const gatewayFiles = files.filter((f) => /env\("TFS_E2E_GATEWAY_CLASS"\)/.test(fs.readFileSync(f, "utf8")));
        assert.ok(gatewayFiles.length >= 3, `found only ${gatewayFiles.map(name).join(", ")}`);
        const [first, second] = lanes(files, [], 2);
        assert.deepStrictEqual(gatewayFiles.filter((f) => !first.includes(f)).map(name), []);
        assert.ok(second.length > 0);
    });

    it("puts every file that starts the login registry in one lane (they share its port)", () => {
        const loginFiles = files.filter((f) => /env\("TFS_E2E_LOGIN_REGISTRY"\)/.test(fs.readFileSync(f, "utf8")));
        assert.ok(loginFiles.length >= 2, `found only ${loginFiles.map(name).join(", ")}`);
        const [first] = lanes(files, [], 2);
        assert.deepStrictEqual(loginFiles.filter((f) => !first.includes(f)).map(name), []);
    });

    it("sends a file it does not know to the second lane", () => {
        const extra = path.join(E2E, "brandNew.test.ts");
        const [first, second] = lanes([...files, extra], [], 2);
        assert.ok(!first.includes(extra));
        assert.ok(second.includes(extra));
    });

    it("runs one lane when asked (TFS_E2E_LANES=1) or when files are named", () => {
        assert.deepStrictEqual(lanes(files, [], 1), [files]);
        const one = [path.join(E2E, "canary.test.ts")];
        assert.deepStrictEqual(lanes(files, one, 2), [one]);
    });

    it("runs itself again on the pinned Node.js under a node older than engines.node (scripts/lib/node.sh's TFS_NODE_MIN)", () => {
        const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
        assert.strictEqual(`>=${minNode().join(".")}`, engines);
        const cases: [string, [number, number], boolean][] = [
            ["22.11.0", [22, 11], true], ["22.23.5", [22, 11], true], ["24.0.0", [22, 11], true], ["100.0.0", [22, 11], true],
            ["22.10.9", [22, 11], false], ["20.20.2", [22, 11], false], ["9.99.0", [22, 11], false],
        ];
        for (const [version, min, ok] of cases) {
            assert.strictEqual(isAtLeast(version, min), ok, `${version} against ${min.join(".")}`);
        }
    });
});
