/**
 * The cloud providers' own refusals, checked at preview. terraform-provider-google (what pulumi-gcp
 * wraps) and terraform-provider-aws (what pulumi-aws wraps) validate many inputs before any API call
 * (a name's length, a CIDR, an enum); what they refuse fails `pulumi preview` with a provider error
 * that names a resource input, not the config key behind it, and a stand-in provider (the unit tests'
 * mocks) refuses nothing. So every value the stack sends to those providers is checked here, against
 * the rule the provider states, and a refusal becomes a `ConfigIssue` naming the key to change.
 *
 * This module holds what both clouds share: the rule shape, Go's CIDR parsing (the providers call
 * `net.ParseCIDR`), and the walk from the values sent to the issues. The rules themselves are in
 * each cloud's folder (`components/clouds/gcp/providerRules.ts`, `components/clouds/aws/providerRules.ts`), each naming the provider source it states,
 * and `readConfig` asks the stack's cloud for them (`CloudRules.providerIssues`): this module knows no cloud.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ConfigIssue } from "./configReader";

/** The page that lists what the providers refuse and how each refusal is reported. */
export const PROVIDER_LIMITS_DOC = "docs/reference/configuration.md#provider-limits";

/** One validation a provider applies to one input. */
export interface ProviderRule {
    /** Where the provider states it: repository, file, and the validator or field. */
    readonly source: string;
    /** Why the provider refuses `value`, or undefined when it accepts it. */
    check(value: unknown): string | undefined;
}

/** A value the stack sends to a provider, and where it comes from. */
export interface ProviderInput {
    /** The resource input, e.g. `gcp.container.Cluster name`. */
    input: string;
    /** The value as sent. */
    value: unknown;
    rule: ProviderRule;
    /** The config key the value comes from (it is the key's value), or that it is derived from (`derived` set). */
    key: string;
    /** For a value derived from `key` (not the key's value itself): the key's value and what to change so the derived value fits. */
    derived?: { from: unknown; fix: string };
    /** The provider's name in messages: "Google" or "AWS". */
    provider: string;
}

/** The issues of the inputs a provider would refuse; at most one per config key (its first refusal). */
export function providerIssues(inputs: ProviderInput[]): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    for (const i of inputs) {
        const problem = i.rule.check(i.value);
        if (problem === undefined || issues.some((issue) => issue.key === i.key)) {
            continue;
        }
        const expected = i.derived === undefined
            ? `is refused by the ${i.provider} provider (${i.input}): ${problem}; see ${PROVIDER_LIMITS_DOC}`
            : `makes ${i.input} ${JSON.stringify(i.value)}, which the ${i.provider} provider refuses: ${problem}; ${i.derived.fix} (see ${PROVIDER_LIMITS_DOC})`;
        issues.push({ key: i.key, value: i.derived === undefined ? i.value : i.derived.from, expected });
    }
    return issues;
}

/** The name Pulumi gives a resource whose name is not set: its resource name, '-', seven random hex digits (here zeros). */
export function autoName(name: string): string {
    return `${name}-0000000`;
}

/** A builder's field as the plain value it holds here (the builders are given plain values, never outputs). */
export function plain<T>(value: pulumi.Input<T> | undefined): T | undefined {
    if (value === undefined || value === null || pulumi.Output.isInstance(value) || value instanceof Promise) {
        return undefined;
    }
    return value as T;
}

// ---------------------------------------------------------------------------------------------
// Rule builders.

/** A rule from a predicate-like check. */
export function rule(source: string, check: (value: string) => string | undefined): ProviderRule {
    return {
        source,
        check: (value) => (typeof value === "string" ? check(value) : `must be a string, not ${JSON.stringify(value)}`),
    };
}

/** One of `values`, case-sensitive (terraform-plugin-sdk `validation.StringInSlice(values, false)`). */
export function oneOf(source: string, values: readonly string[]): ProviderRule {
    return rule(source, (v) => (values.includes(v) ? undefined : `"${v}" is not one of ${values.map((x) => `"${x}"`).join(", ")}`));
}

/** A whole number within [min, max] (`validation.IntAtLeast`, `validation.IntBetween`). */
export function intRange(source: string, min: number, max = Number.MAX_SAFE_INTEGER): ProviderRule {
    return {
        source,
        check: (value) => (Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? undefined
            : max === Number.MAX_SAFE_INTEGER ? `must be a whole number of at least ${min}, not ${JSON.stringify(value)}` : `must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`),
    };
}

/** Valid JSON text (`validation.StringIsJSON`: Go's `json.Unmarshal` succeeds). */
export function isJson(source: string): ProviderRule {
    return rule(source, (v) => {
        try {
            JSON.parse(v);
            return undefined;
        } catch (err) {
            return `is not JSON (${err instanceof Error ? err.message : String(err)})`;
        }
    });
}

/** Every rule in `rules` (`validation.All`): the first refusal. */
export function all(source: string, ...rules: ProviderRule[]): ProviderRule {
    return { source, check: (value) => rules.map((r) => r.check(value)).find((p) => p !== undefined) };
}

// ---------------------------------------------------------------------------------------------
// Go's `net.ParseCIDR` (Go 1.22 and later: the address through `netip.ParseAddr`), which both
// providers' CIDR validators call. Go refuses what JavaScript code usually lets through: an octet
// with a leading zero (`010.0.0.0/8`), a zone; it accepts a prefix length with leading zeros
// (`10.0.0.0/08`), which only the validators that compare the text with the network catch.

/** What `net.ParseCIDR(text)` returns: the address and the network, printed as Go prints them. */
export interface GoCidr {
    /** `ip.String()` of the address as written (host bits kept). */
    ip: string;
    /** `ipnet.String()`: the network address and the prefix length. */
    network: string;
    /** The prefix length (`ipnet.Mask.Size()`). */
    bits: number;
    /** `ip.To4() != nil`: an IPv4 address (or an IPv4-mapped IPv6 one). */
    ipv4: boolean;
}

/** Parses `text` as Go's `net.ParseCIDR` does; undefined where Go returns an error. */
export function parseGoCidr(text: string): GoCidr | undefined {
    const slash = text.indexOf("/");
    if (slash < 0) {
        return undefined;
    }
    const address = parseGoAddr(text.slice(0, slash));
    const mask = text.slice(slash + 1);
    if (address === undefined || !/^[0-9]+$/.test(mask) || Number(mask) > address.bitLength) {
        return undefined;
    }
    const bits = Number(mask);
    const hostBits = BigInt(address.bitLength - bits);
    const network = (address.value >> hostBits) << hostBits;
    if (address.bitLength === 32) {
        return { ip: formatIpv4(address.value), network: `${formatIpv4(network)}/${bits}`, bits, ipv4: true };
    }
    const mapped = isIpv4Mapped(network);
    return {
        ip: isIpv4Mapped(address.value) ? formatIpv4(address.value & 0xffffffffn) : formatIpv6(address.value),
        // Go prints an IPv4-mapped network as IPv4, with the mask's last 32 bits as its length.
        network: mapped ? `${formatIpv4(network & 0xffffffffn)}/${bits - 96}` : `${formatIpv6(network)}/${bits}`,
        bits,
        ipv4: isIpv4Mapped(address.value),
    };
}

interface GoAddr {
    value: bigint;
    bitLength: 32 | 128;
}

/** `netip.ParseAddr` without zones (ParseCIDR refuses a zone). */
function parseGoAddr(text: string): GoAddr | undefined {
    if (!text.includes(":")) {
        const v4 = parseGoIpv4(text);
        return v4 === undefined ? undefined : { value: v4, bitLength: 32 };
    }
    const v6 = parseGoIpv6(text);
    return v6 === undefined ? undefined : { value: v6, bitLength: 128 };
}

/** Four decimal fields of 0-255, no empty field, no leading zero (`netip` refuses "010"). */
function parseGoIpv4(text: string): bigint | undefined {
    const fields = text.split(".");
    if (fields.length !== 4 || !fields.every((f) => /^(0|[1-9][0-9]{0,2})$/.test(f) && Number(f) <= 255)) {
        return undefined;
    }
    return fields.reduce((acc, f) => (acc << 8n) | BigInt(f), 0n);
}

/** Hex groups of 1-4 digits, one `::` at most, an embedded IPv4 address in the last 32 bits. */
function parseGoIpv6(text: string): bigint | undefined {
    const halves = text.split("::");
    if (halves.length > 2) {
        return undefined;
    }
    const groupsOf = (part: string, last: boolean): number[] | undefined => {
        if (part === "") {
            return [];
        }
        const out: number[] = [];
        const items = part.split(":");
        for (let i = 0; i < items.length; i++) {
            const item = items[i];
            if (last && i === items.length - 1 && item.includes(".")) {
                const v4 = parseGoIpv4(item);
                if (v4 === undefined) {
                    return undefined;
                }
                out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
            } else if (/^[0-9a-fA-F]{1,4}$/.test(item)) {
                out.push(parseInt(item, 16));
            } else {
                return undefined;
            }
        }
        return out;
    };
    const head = groupsOf(halves[0], halves.length === 1);
    const tail = halves.length === 2 ? groupsOf(halves[1], true) : [];
    if (head === undefined || tail === undefined) {
        return undefined;
    }
    const count = head.length + tail.length;
    if (halves.length === 2 ? count > 7 : count !== 8) {
        return undefined;
    }
    const groups = [...head, ...Array<number>(8 - count).fill(0), ...tail];
    return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

function isIpv4Mapped(value: bigint): boolean {
    return value >> 32n === 0xffffn;
}

function formatIpv4(value: bigint): string {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

/** RFC 5952, as Go prints IPv6: lowercase, the longest run of two or more zero groups (the first of equals) as `::`. */
function formatIpv6(value: bigint): string {
    const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
    let best = { start: -1, length: 1 };
    for (let i = 0; i < 8; i++) {
        let j = i;
        while (j < 8 && groups[j] === 0) {
            j++;
        }
        if (j - i > best.length) {
            best = { start: i, length: j - i };
        }
        i = j > i ? j - 1 : i;
    }
    const hex = groups.map((g) => g.toString(16));
    return best.start < 0 ? hex.join(":")
        : `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

/** What Go's ParseCIDR says of text it refuses, for messages. */
export function goCidrRefusal(text: string): string {
    return `"${text}" is not a CIDR Go's net.ParseCIDR accepts (four decimal octets 0-255 without leading zeros, or IPv6, then "/" and a prefix length)`;
}
