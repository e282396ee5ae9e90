import * as assert from "assert";
import { ipv4BlockProblem, parseIpv4Cidr } from "../../../../../contract/cidr";
import { subnetLayout } from "../../../../../components/clouds/aws/vpc";

describe("EKS subnet layout", () => {
    it("slots: each zone a large private and a smaller public subnet, in its own slot", () => {
        assert.deepStrictEqual(subnetLayout("10.0.0.0/16", 2), {
            private: ["10.0.0.0/19", "10.0.32.0/19"],
            public: ["10.0.224.0/22", "10.0.228.0/22"],
        });
    });

    it("slots: appending a zone adds its subnets and moves none of the others, up to six zones", () => {
        const layouts = [2, 3, 4, 5, 6].map((n) => subnetLayout("10.20.0.0/16", n));
        for (const [i, layout] of layouts.entries()) {
            assert.ok(typeof layout === "object");
            const next = layouts[i + 1];
            if (typeof next === "object") {
                assert.deepStrictEqual(next.private.slice(0, layout.private.length), layout.private);
                assert.deepStrictEqual(next.public.slice(0, layout.public.length), layout.public);
            }
        }
        const six = layouts[4] as { private: string[]; public: string[] };
        const all = [...six.private, ...six.public].map((c) => parseIpv4Cidr(c)!);
        for (const [i, a] of all.entries()) {
            for (const b of all.slice(i + 1)) {
                const [lo, hi] = a.base < b.base ? [a, b] : [b, a];
                assert.ok(lo.base + 2 ** (32 - lo.prefix) <= hi.base, "no two subnets overlap");
            }
        }
    });

    it("byCount (VPCs of earlier versions): two zones as they were carved", () => {
        assert.deepStrictEqual(subnetLayout("10.0.0.0/16", 2, "byCount"), {
            private: ["10.0.0.0/18", "10.0.64.0/18"],
            public: ["10.0.192.0/19", "10.0.224.0/19"],
        });
    });

    it("byCount: three zones move every public subnet (why new VPCs use slots)", () => {
        assert.deepStrictEqual(subnetLayout("10.20.0.0/16", 3, "byCount"), {
            private: ["10.20.0.0/18", "10.20.64.0/18", "10.20.128.0/18"],
            public: ["10.20.192.0/20", "10.20.208.0/20", "10.20.224.0/20"],
        });
    });

    it("refuses a block with host bits set, naming the aligned one", () => {
        assert.strictEqual(subnetLayout("10.0.0.1/16", 2), "has host bits set; the block is 10.0.0.0/16");
    });

    it("refuses a VPC too large or too small for its zones", () => {
        assert.match(subnetLayout("10.0.0.0/8", 2) as string, /\/16 to \/28/);
        assert.match(subnetLayout("10.0.0.0/26", 3, "byCount") as string, /too small for 3 zones/);
        assert.ok(typeof subnetLayout("10.0.0.0/24", 2, "byCount") === "object", "byCount: a /24 still fits two zones");
        assert.match(subnetLayout("10.0.0.0/24", 2) as string, /too small for a subnet slot per zone .* use a \/22 or larger/);
        assert.ok(typeof subnetLayout("10.0.0.0/22", 6) === "object", "slots: a /22 holds six zones");
    });

    it("ipv4BlockProblem: not a CIDR, IPv6, prefix bounds", () => {
        assert.match(ipv4BlockProblem("10.0.0.0", 8, 29)!, /IPv4 CIDR/);
        assert.match(ipv4BlockProblem("2001:db8::/32", 0, 32)!, /IPv4 CIDR/);
        assert.match(ipv4BlockProblem("10.0.0.0/30", 8, 29)!, /\/8 to \/29/);
        assert.strictEqual(ipv4BlockProblem("172.16.0.0/28", 28, 28), undefined);
        assert.strictEqual(ipv4BlockProblem("0.0.0.0/0", 0, 32), undefined);
    });
});
