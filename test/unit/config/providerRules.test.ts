import * as assert from "assert";
import { all, intRange, isJson, oneOf, parseGoCidr, providerIssues, rule } from "../../../config/providerRules";

/* Both providers' CIDR validators call Go's net.ParseCIDR (go1.26 src/net/ip.go: the address through
 * net/netip ParseAddr, which refuses "IPv4 field has octet with leading zero"; the prefix through dtoi,
 * which takes leading zeros). Each row is what Go returns: ip.String(), ipnet.String(), or an error. */
describe("parseGoCidr: Go's net.ParseCIDR", () => {
    const rows: [string, { ip: string; network: string; ipv4: boolean } | undefined][] = [
        ["10.0.0.0/8", { ip: "10.0.0.0", network: "10.0.0.0/8", ipv4: true }],
        ["10.0.0.1/8", { ip: "10.0.0.1", network: "10.0.0.0/8", ipv4: true }],
        ["10.0.0.0/08", { ip: "10.0.0.0", network: "10.0.0.0/8", ipv4: true }],
        ["010.0.0.0/8", undefined],
        ["300.0.0.0/8", undefined],
        ["10.0.0.0/33", undefined],
        ["10.0.0.0", undefined],
        ["10.0.0/8", undefined],
        ["10.0.0.0/+8", undefined],
        ["10.0.0.0/ 8", undefined],
        [" 10.0.0.0/8", undefined],
        ["::/0", { ip: "::", network: "::/0", ipv4: false }],
        ["2001:db8::/32", { ip: "2001:db8::", network: "2001:db8::/32", ipv4: false }],
        ["2001:DB8:0:0:0:0:0:1/32", { ip: "2001:db8::1", network: "2001:db8::/32", ipv4: false }],
        ["2001:db8::/129", undefined],
        ["2001:db8::1::/64", undefined],
        ["fe80::1%eth0/64", undefined],
        ["::ffff:10.0.0.0/104", { ip: "10.0.0.0", network: "10.0.0.0/8", ipv4: true }],
        ["1:0:0:1:0:0:0:1/128", { ip: "1:0:0:1::1", network: "1:0:0:1::1/128", ipv4: false }],
        ["1:2:3:4:5:6:7::/64", { ip: "1:2:3:4:5:6:7:0", network: "1:2:3:4::/64", ipv4: false }],
        ["::1.2.3.4/128", { ip: "::102:304", network: "::102:304/128", ipv4: false }],
    ];
    for (const [text, expected] of rows) {
        it(`${JSON.stringify(text)} -> ${expected === undefined ? "error" : expected.network}`, () => {
            const parsed = parseGoCidr(text);
            assert.deepStrictEqual(parsed && { ip: parsed.ip, network: parsed.network, ipv4: parsed.ipv4 }, expected);
        });
    }
});

describe("rule builders (terraform-plugin-sdk helper/validation)", () => {
    it("StringInSlice is case-sensitive; IntAtLeast/IntBetween take whole numbers only; StringIsJSON; All stops at the first refusal", () => {
        assert.strictEqual(oneOf("s", ["A"]).check("A"), undefined);
        assert.match(oneOf("s", ["A"]).check("a") ?? "", /"a" is not one of "A"/);
        assert.match(oneOf("s", ["A"]).check(1) ?? "", /must be a string/);
        assert.strictEqual(intRange("s", 1, 100).check(100), undefined);
        assert.notStrictEqual(intRange("s", 1, 100).check(101), undefined);
        assert.notStrictEqual(intRange("s", 0).check(0.5), undefined);
        assert.notStrictEqual(isJson("s").check("{"), undefined);
        const first = all("s", rule("a", () => "first"), rule("b", () => "second"));
        assert.strictEqual(first.check("x"), "first");
    });

    it("providerIssues: the config key, the value as written, the provider's words, at most one issue per key", () => {
        const refuse = rule("src", (v) => (v === "bad" ? `"${v}" is bad` : undefined));
        const issues = providerIssues([
            { input: "r name", value: "bad", rule: refuse, key: "k", provider: "Google" },
            { input: "r other", value: "bad", rule: refuse, key: "k", provider: "Google" },
            { input: "r fine", value: "good", rule: refuse, key: "j", provider: "Google" },
            { input: "r id", value: "bad", rule: refuse, key: "d", provider: "AWS", derived: { from: "src-value", fix: "change d" } },
        ]);
        assert.deepStrictEqual(issues.map((i) => [i.key, i.value]), [["k", "bad"], ["d", "src-value"]]);
        assert.match(issues[0].expected, /^is refused by the Google provider \(r name\): "bad" is bad; see docs\/reference\/configuration\.md#provider-limits$/);
        assert.match(issues[1].expected, /^makes r id "bad", which the AWS provider refuses: "bad" is bad; change d \(see docs\/reference\/configuration\.md#provider-limits\)$/);
    });
});
