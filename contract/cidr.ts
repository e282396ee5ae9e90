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

/** True for a valid IPv4 or IPv6 CIDR such as `203.0.113.0/24` or `2001:db8::/32`. */
export function isCidr(text: string): boolean {
    const [addr, bits, extra] = text.split("/");
    if (extra !== undefined || bits === undefined || !/^[0-9]{1,3}$/.test(bits)) {
        return false;
    }
    const prefix = Number(bits);
    if (/^[0-9.]+$/.test(addr)) {
        const parts = addr.split(".");
        return parts.length === 4 && parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255) && prefix <= 32;
    }
    if (/^[0-9a-fA-F:]+$/.test(addr) && addr.includes(":")) {
        const groups = addr.split("::");
        if (groups.length > 2) {
            return false;
        }
        const count = groups.map((g) => (g === "" ? 0 : g.split(":").length)).reduce((a, b) => a + b, 0);
        const wellFormed = groups.every((g) => g === "" || g.split(":").every((h) => /^[0-9a-fA-F]{1,4}$/.test(h)));
        return wellFormed && (groups.length === 2 ? count < 8 : count === 8) && prefix <= 128;
    }
    return false;
}
