import * as assert from "assert";
import { CanarySample, observedSteps } from "../../support/canaryWatch";

describe("the canary's observed share per step (the e2e's reading of the pods' counts)", () => {
    /** One sample a second: the route's weight, and the calls each side answered in that second. */
    const run = (seconds: [weight: number, serving: number, canary: number][]): CanarySample[] => {
        const totals = { serving: 0, canary: 0 };
        return seconds.map(([weight, serving, canary], i) => {
            totals.serving += serving;
            totals.canary += canary;
            return { at: i * 1000, weight, ...totals, servingPods: ["s"], canaryPods: ["c"] };
        });
    };

    it("a step from 0 counts from the canary's first call: the seconds the Gateway took to apply the route are left out", () => {
        const lag: [number, number, number][] = [[10, 40, 0], [10, 40, 0], [10, 40, 0], [10, 40, 0], [10, 40, 0]];
        const held: [number, number, number][] = Array.from({ length: 10 }, () => [10, 36, 4]);
        const [step] = observedSteps(run([[0, 40, 0], ...lag, ...held, [0, 40, 0]]));
        assert.strictEqual(step.weight, 10);
        assert.strictEqual(step.routedAfter, 5, "the first sample with a canary call, 5 s after the route changed");
        assert.strictEqual(step.calls, 9 * 40, "from that sample to the step's last");
        assert.strictEqual(step.canaryPercent, 10);
    });

    it("a canary that answers at once, or never: the share counts from the settle time", () => {
        const steady: [number, number, number][] = Array.from({ length: 10 }, () => [50, 20, 20]);
        const [a] = observedSteps(run([[10, 36, 4], ...steady]));
        assert.strictEqual(a.weight, 50);
        assert.strictEqual(a.calls, 7 * 40, "2 s settle, then the run's last 7 s");
        assert.strictEqual(a.canaryPercent, 50);
        const [b] = observedSteps(run([[0, 40, 0], ...Array.from({ length: 6 }, (): [number, number, number] => [10, 40, 0]), [0, 40, 0]]));
        assert.strictEqual(b.routedAfter, undefined);
        assert.strictEqual(b.canaryPercent, 0, "a Gateway that never applied the weight fails the share check");
    });
});
