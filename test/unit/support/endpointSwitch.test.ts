import * as assert from "assert";
import { switchOutage } from "../../support/endpointSwitch";

describe("an endpoint switch's outage (the e2e's reading of the probes of both addresses)", () => {
    const at = (s: number) => s * 1000;

    it("the old address down at 10 s, the update over at 14 s, the new one answering at 12 s: 2 s with neither, 4 s for a client following restUrl", () => {
        const o = switchOutage({ requests: 60, failed: 20, firstFailure: at(10) }, { requests: 40, failed: 0, firstOk: at(12) }, at(14));
        assert.deepStrictEqual(o, { gapSeconds: 2, followerOutageSeconds: 4 });
    });

    it("both answering for a while: no gap; a client moving when the update ends loses nothing", () => {
        const o = switchOutage({ requests: 60, failed: 5, firstFailure: at(20) }, { requests: 40, failed: 0, firstOk: at(8) }, at(15));
        assert.deepStrictEqual(o, { gapSeconds: 0, followerOutageSeconds: 0 });
    });

    it("the old address never failed and the new one answers only after the update: the follower waits for it", () => {
        const o = switchOutage({ requests: 60, failed: 0 }, { requests: 40, failed: 10, firstOk: at(18) }, at(15));
        assert.deepStrictEqual(o, { gapSeconds: 0, followerOutageSeconds: 3 });
    });

    it("the new address never answered: the outage has no end", () => {
        const o = switchOutage({ requests: 60, failed: 30, firstFailure: at(10) }, { requests: 40, failed: 40 }, at(15));
        assert.strictEqual(o.gapSeconds, Infinity);
        assert.strictEqual(o.followerOutageSeconds, Infinity);
    });
});
