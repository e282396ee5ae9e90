/**
 * CIDR blocks as config accepts them: any IPv4 or IPv6 CIDR for the clients a load balancer lets
 * in, and IPv4 blocks with the arithmetic for the networks the cluster components carve.
 */

export interface Ipv4Block {
    /** First address as an unsigned 32-bit number. */
    base: number;
    prefix: number;
}

/** Parses `a.b.c.d/p`; undefined if it is not an IPv4 CIDR. */
export function parseIpv4Cidr(cidr: string): Ipv4Block | undefined {
    const m = /^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\/([0-9]{1,2})$/.exec(cidr);
    if (!m || m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) > 32) {
        return undefined;
    }
    return { base: m.slice(1, 5).reduce((acc, o) => acc * 256 + Number(o), 0), prefix: Number(m[5]) };
}

export function formatIpv4Cidr(base: number, prefix: number): string {
    return `${[24, 16, 8, 0].map((shift) => Math.floor(base / 2 ** shift) % 256).join(".")}/${prefix}`;
}

/**
 * Why `cidr` is not a usable IPv4 block with a prefix in [minPrefix, maxPrefix], or undefined if it
 * is. Clouds reject blocks with host bits set (`10.0.0.1/16`), so those are named with the fix.
 */
export function ipv4BlockProblem(cidr: string, minPrefix: number, maxPrefix: number): string | undefined {
    const block = parseIpv4Cidr(cidr);
    if (block === undefined) {
        return `must be an IPv4 CIDR such as "10.0.0.0/${Math.max(minPrefix, 16)}"`;
    }
    const size = 2 ** (32 - block.prefix);
    if (block.base % size !== 0) {
        return `has host bits set; the block is ${formatIpv4Cidr(block.base - (block.base % size), block.prefix)}`;
    }
    if (block.prefix < minPrefix || block.prefix > maxPrefix) {
        return minPrefix === maxPrefix ? `must be a /${minPrefix}` : `must be a /${minPrefix} to /${maxPrefix}`;
    }
    return undefined;
}

/**
 * Why `text` is not an IPv4 or IPv6 CIDR such as `203.0.113.0/24` or `2001:db8::/32`, or undefined.
 * Host bits are refused as the clouds refuse them (`10.0.0.1/16`): a load balancer would silently
 * open the whole block the prefix names, which is rarely what `10.1.2.3/8` meant.
 */
export function cidrProblem(text: string): string | undefined {
    const usage = "must be a CIDR such as \"203.0.113.0/24\" or \"2001:db8::/32\"";
    const [addr, bits, extra] = text.split("/");
    if (extra !== undefined || bits === undefined || !/^[0-9]{1,3}$/.test(bits)) {
        return usage;
    }
    if (/^[0-9.]+$/.test(addr)) {
        return parseIpv4Cidr(text) === undefined ? usage : ipv4BlockProblem(text, 0, 32);
    }
    const groups = parseIpv6(addr);
    const prefix = Number(bits);
    if (groups === undefined || prefix > 128) {
        return usage;
    }
    const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
    const hostBits = 128n - BigInt(prefix);
    const network = (value >> hostBits) << hostBits;
    if (network !== value) {
        return `has host bits set; the block is ${formatIpv6(network)}/${prefix}`;
    }
    return undefined;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded); undefined if it is not one. */
function parseIpv6(addr: string): number[] | undefined {
    if (!/^[0-9a-fA-F:]+$/.test(addr) || !addr.includes(":")) {
        return undefined;
    }
    const halves = addr.split("::");
    if (halves.length > 2) {
        return undefined;
    }
    const parts = halves.map((h) => (h === "" ? [] : h.split(":")));
    if (!parts.every((p) => p.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)))) {
        return undefined;
    }
    const count = parts[0].length + (parts[1]?.length ?? 0);
    if (halves.length === 2 ? count >= 8 : count !== 8) {
        return undefined;
    }
    const zeros = Array<string>(8 - count).fill("0");
    return [...parts[0], ...(halves.length === 2 ? zeros : []), ...(parts[1] ?? [])].map((g) => parseInt(g, 16));
}

/** An IPv6 address in its short form (the longest run of zero groups as `::`). */
function formatIpv6(value: bigint): string {
    const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
    let best = { start: -1, length: 0 };
    for (let i = 0; i < 8;) {
        let j = i;
        while (j < 8 && groups[j] === 0) {
            j++;
        }
        if (j - i > best.length && j - i > 1) {
            best = { start: i, length: j - i };
        }
        i = j === i ? i + 1 : j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (best.start < 0) {
        return hex.join(":");
    }
    return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

/** True when the two IPv4 CIDRs share an address (one contains the other: CIDR blocks never partly overlap). */
export function ipv4BlocksOverlap(a: string, b: string): boolean {
    const x = parseIpv4Cidr(a);
    const y = parseIpv4Cidr(b);
    if (x === undefined || y === undefined) {
        return false;
    }
    const size = 2 ** (32 - Math.min(x.prefix, y.prefix));
    return Math.floor(x.base / size) === Math.floor(y.base / size);
}
