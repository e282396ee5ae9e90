/**
 * What a client sees when a stack's endpoint moves to a new address (`endpoint` switched between
 * `loadBalancer` and `gateway`): predicts to the old address and to the new one, side by side, so the
 * time when neither answers is measured rather than guessed. The new address may be unknown when the
 * change starts (a LoadBalancer's ingress IP is assigned during the update): `newUrl` is asked again
 * until it names one.
 */
import { request } from "./traffic";

export interface AddressProbe {
    /** Predicts sent and failed (a failure: no answer, a non-200, or other predictions than expected). */
    requests: number;
    failed: number;
    /** First and last answer as expected, first and last failure (ms since the epoch); undefined without one. */
    firstOk?: number;
    lastOk?: number;
    firstFailure?: number;
    lastFailure?: number;
}

export interface SwitchReport {
    oldAddress: AddressProbe;
    newAddress: AddressProbe;
    /** When the update ended (the new address is then in the stack's outputs). */
    updateEnded: number;
    /**
     * Seconds when neither address answered: from the old address's first failure to the new address's
     * first answer (0 when the new one answered before the old one failed).
     */
    gapSeconds: number;
    /**
     * Seconds a client that follows `restUrl` (and moves when the update ends) got no answer: from the
     * old address's first failure to the later of the update's end and the new address's first answer.
     */
    followerOutageSeconds: number;
}

const emptyProbe = (): AddressProbe => ({ requests: 0, failed: 0 });

async function probeOnce(url: string, model: string, instances: number[], expected: number[], into: AddressProbe): Promise<void> {
    into.requests++;
    let ok = false;
    try {
        const a = await request(`${url}/v1/models/${model}:predict`, { body: JSON.stringify({ instances }), timeoutMs: 2000 });
        ok = a.status === 200 && JSON.stringify((JSON.parse(a.body) as { predictions: number[] }).predictions) === JSON.stringify(expected);
    } catch {
        ok = false;
    }
    const now = Date.now();
    if (ok) {
        into.firstOk ??= now;
        into.lastOk = now;
    } else {
        into.failed++;
        into.firstFailure ??= now;
        into.lastFailure = now;
    }
}

/**
 * Probes `oldUrl` and the new address every `everyMs` while `during` runs, and after it until the new
 * address answers (at most `afterSeconds`).
 */
export async function watchSwitch(oldUrl: string, newUrl: () => Promise<string | undefined>, model: string, during: Promise<unknown>,
    options: { instances: number[]; expected: number[]; everyMs?: number; afterSeconds?: number }): Promise<SwitchReport> {
    const every = options.everyMs ?? 250;
    let updateEnded = 0;
    void during.then(() => { updateEnded = Date.now(); }, () => { updateEnded = Date.now(); });
    const oldAddress = emptyProbe();
    const newAddress = emptyProbe();
    let target: string | undefined;
    for (;;) {
        const started = Date.now();
        if (updateEnded !== 0 && (newAddress.firstOk !== undefined || started > updateEnded + (options.afterSeconds ?? 60) * 1000)) {
            break;
        }
        target ??= await newUrl().catch(() => undefined);
        await Promise.all([
            probeOnce(oldUrl, model, options.instances, options.expected, oldAddress),
            target === undefined ? Promise.resolve() : probeOnce(target, model, options.instances, options.expected, newAddress),
        ]);
        await new Promise((r) => setTimeout(r, Math.max(0, every - (Date.now() - started))));
    }
    return { oldAddress, newAddress, updateEnded, ...switchOutage(oldAddress, newAddress, updateEnded) };
}

/**
 * The two outages of a `SwitchReport` from the probes' times (see there), each address taken as down
 * from its first failure on and up from its first answer on.
 */
export function switchOutage(oldAddress: AddressProbe, newAddress: AddressProbe, updateEnded: number): { gapSeconds: number; followerOutageSeconds: number } {
    const newOk = newAddress.firstOk ?? Infinity;
    const oldDown = oldAddress.firstFailure ?? Infinity;
    return {
        gapSeconds: oldDown === Infinity ? 0 : Math.max(0, newOk - oldDown) / 1000,
        // On the old address until the update ends, on the new one after.
        followerOutageSeconds: (Math.max(0, updateEnded - oldDown) + Math.max(0, newOk - updateEnded)) / 1000,
    };
}
