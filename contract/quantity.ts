/**
 * Kubernetes resource quantities ("512Mi", "1.5", "250m", "1e3") as `resource.Quantity` reads them:
 * config accepts them, sizing derives them, doctor reads them back off the pods. And how every
 * message writes sizes and counts.
 */

const QUANTITY = /^([+]?[0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;
const QUANTITY_MULTIPLIER: Record<string, number> = {
    "": 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
    Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** Parses a Kubernetes quantity ("512Mi", "1.5", "250m", "1e3") to a number, or undefined if it does not parse. */
export function parseQuantity(text: string): number | undefined {
    const m = QUANTITY.exec(text.trim());
    if (!m) {
        return undefined;
    }
    const suffix = m[3] ?? "";
    if (/^[eE]/.test(suffix)) {
        return Number(m[1]) * 10 ** Number(suffix.slice(1));
    }
    return Number(m[1]) * QUANTITY_MULTIPLIER[suffix];
}

/** Human-readable size for messages ("1.5 GiB", "300 MiB"). */
export function humanBytes(bytes: number): string {
    if (bytes >= 2 ** 30) {
        return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
    }
    if (bytes >= 2 ** 20) {
        return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    }
    return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** "1 warning", "2 warnings". */
export function plural(count: number, one: string, many = `${one}s`): string {
    return `${count} ${count === 1 ? one : many}`;
}
