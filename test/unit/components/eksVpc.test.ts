import * as assert from "assert";
import { ipv4BlockProblem } from "../../../contract/cidr";
import { subnetLayout } from "../../../components/eks/vpc";

describe("EKS subnet layout", () => {
    it("gives each of two zones a large private and a smaller public subnet", () => {
        assert.deepStrictEqual(subnetLayout("10.0.0.0/16", 2), {
            private: ["10.0.0.0/18", "10.0.64.0/18"],
            public: ["10.0.192.0/19", "10.0.224.0/19"],
        });
    });

    it("carves three zones without overlap", () => {
        assert.deepStrictEqual(subnetLayout("10.20.0.0/16", 3), {
            private: ["10.20.0.0/18", "10.20.64.0/18", "10.20.128.0/18"],
            public: ["10.20.192.0/20", "10.20.208.0/20", "10.20.224.0/20"],
        });
    });

    it("refuses a block with host bits set, naming the aligned one", () => {
        assert.strictEqual(subnetLayout("10.0.0.1/16", 2), "has host bits set; the block is 10.0.0.0/16");
    });

    it("refuses a VPC too large or too small for its zones", () => {
        assert.match(subnetLayout("10.0.0.0/8", 2) as string, /\/16 to \/28/);
        assert.match(subnetLayout("10.0.0.0/26", 3) as string, /too small for 3 zones/);
        assert.ok(typeof subnetLayout("10.0.0.0/24", 2) === "object", "a /24 still fits two zones");
    });

    it("ipv4BlockProblem: not a CIDR, IPv6, prefix bounds", () => {
        assert.match(ipv4BlockProblem("10.0.0.0", 8, 29)!, /IPv4 CIDR/);
        assert.match(ipv4BlockProblem("2001:db8::/32", 0, 32)!, /IPv4 CIDR/);
        assert.match(ipv4BlockProblem("10.0.0.0/30", 8, 29)!, /\/8 to \/29/);
        assert.strictEqual(ipv4BlockProblem("172.16.0.0/28", 28, 28), undefined);
        assert.strictEqual(ipv4BlockProblem("0.0.0.0/0", 0, 32), undefined);
    });
});
