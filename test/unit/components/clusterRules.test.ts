import * as assert from "assert";
import { ipv4BlockIssue, ipv4ListIssues, nodeBoundsIssues, zoneIssues } from "../../../components/clusterRules";

// The rules the config helpers held (moved from test/unit/config/cloudConfig.test.ts with them).
describe("cluster rules the GKE and EKS resolvers share", () => {
    it("zoneIssues: zones of the region, once each", () => {
        const issues = zoneIssues("zones", ["us-west-2a", "eu-west-1a", "us-west-2a"], "us-west-2", /^us-west-2[a-z]$/, "us-west-2a", (f) => f);
        assert.deepStrictEqual(issues.map((i) => [i.field, i.value]), [["zones[1]", "eu-west-1a"], ["zones", ["us-west-2a", "eu-west-1a", "us-west-2a"]]]);
        assert.match(issues[0].message, /zone of region us-west-2, e\.g\. "us-west-2a"/);
    });

    it("ipv4BlockIssue and ipv4ListIssues name the field and the fix", () => {
        assert.match(ipv4BlockIssue("a", "10.0.0.5/24", 16, 28)?.message ?? "", /the block is 10\.0\.0\.0\/24/);
        assert.strictEqual(ipv4BlockIssue("a", "10.0.0.0/16", 16, 28), undefined);
        assert.deepStrictEqual(ipv4ListIssues("b", ["10.0.0.0/8", "::/0"]).map((i) => i.field), ["b[1]"]);
    });

    it("nodeBoundsIssues: a node possible, max below min refused, naming the other field by its key", () => {
        assert.deepStrictEqual(nodeBoundsIssues("pool", { minNodes: 3, maxNodes: 2 }, 1, (f) => `gke.${f}`).map((i) => [i.field, i.value, i.message]),
            [["pool.maxNodes", 2, "must be >= gke.pool.minNodes (3)"]]);
        assert.deepStrictEqual(nodeBoundsIssues("pool", { minNodes: 0, maxNodes: 0 }, 0, (f) => f).map((i) => i.field), ["pool.maxNodes"]);
        assert.deepStrictEqual(nodeBoundsIssues("pool", { minNodes: 0, maxNodes: 3 }, 1, (f) => f).map((i) => i.field), ["pool.minNodes"]);
    });
});
