import * as assert from "assert";
import { EksNodeGroupSettings, autoscaledSize, boundsChanged } from "../../../../../components/clouds/aws/nodeGroup";

/* What one `pulumi up` sends to EKS for a managed node group's scaling block, as the engine and the provider do it:
 * - pulumi/pulumi pkg/resource/deploy/step_generator.go, `processIgnoreChanges`: each ignored path of the new inputs takes
 *   the value of the OLD INPUTS (what the last update sent), not of the live resource;
 * - terraform-provider-aws internal/service/eks/node_group.go, `resourceNodeGroupUpdate`: when `scaling_config` differs from
 *   the state, `UpdateNodegroupConfig` gets `ScalingConfig` expanded from the configuration, all three sizes
 *   (`expandNodegroupScalingConfig`: desired, max, min);
 * - EKS refuses a desired size outside [min, max] ("Minimum capacity N can't be greater than desired size M",
 *   terraform-aws-eks#748).
 * The engine also hands ignoreChanges to the provider's diff, so an ignored field alone is no change. */
interface Scaling { desiredSize: number; minSize: number; maxSize: number }

function sentToEks(state: Scaling, oldInputs: Scaling, next: { scaling: Scaling; ignoreDesired: boolean }): Scaling | undefined {
    const inputs = next.ignoreDesired ? { ...next.scaling, desiredSize: oldInputs.desiredSize } : next.scaling;
    const changed = inputs.minSize !== state.minSize || inputs.maxSize !== state.maxSize || (!next.ignoreDesired && inputs.desiredSize !== state.desiredSize);
    return changed ? inputs : undefined;
}

function eksAccepts(s: Scaling): boolean {
    return s.minSize <= s.desiredSize && s.desiredSize <= s.maxSize;
}

const group = (minNodes: number, maxNodes: number, desiredNodes = Math.max(minNodes, 1)): EksNodeGroupSettings =>
    ({ instanceType: "g5.xlarge", desiredNodes, minNodes, maxNodes, diskSizeGb: 100, capacityType: "ON_DEMAND" });

/** The update the stack makes for `settings`, given the live size it reads when the bounds change. */
function update(settings: EksNodeGroupSettings, recorded: Scaling, live: number) {
    const changed = boundsChanged(settings, { clusterName: "c", nodeGroupName: "g", minSize: recorded.minSize, maxSize: recorded.maxSize });
    const size = autoscaledSize(settings, changed ? live : undefined);
    return { scaling: { desiredSize: size.desiredSize, minSize: settings.minNodes, maxSize: settings.maxNodes }, ignoreDesired: size.keepLiveSize };
}

describe("EKS node group bounds under the Cluster Autoscaler", () => {
    // Created at 1 node within 0..4; the autoscaler then grew it to 3. The state, never refreshed, still says 1.
    const created: Scaling = { desiredSize: 1, minSize: 0, maxSize: 4 };
    const LIVE = 3;

    it("a preview that changes no bounds sends nothing: no diff after the autoscaler acted", () => {
        assert.strictEqual(sentToEks(created, created, update(group(0, 4), created, LIVE)), undefined);
    });

    it("a new maxNodes keeps the nodes the autoscaler added (the creation-time size would drop them)", () => {
        const sent = sentToEks(created, created, update(group(0, 6), created, LIVE));
        assert.deepStrictEqual(sent, { desiredSize: 3, minSize: 0, maxSize: 6 });
        const ignoringAlways = sentToEks(created, created, { scaling: { desiredSize: 1, minSize: 0, maxSize: 6 }, ignoreDesired: true });
        assert.strictEqual(ignoringAlways?.desiredSize, 1, "what ignoreChanges alone sends: the group shrinks from 3 to 1");
    });

    it("a minNodes above the live size raises the group to it, which EKS accepts (ignoreChanges alone is refused)", () => {
        const sent = sentToEks(created, created, update(group(4, 6, 4), created, LIVE));
        assert.deepStrictEqual(sent, { desiredSize: 4, minSize: 4, maxSize: 6 });
        assert.ok(sent && eksAccepts(sent));
        const ignoringAlways = sentToEks(created, created, { scaling: { desiredSize: 4, minSize: 4, maxSize: 6 }, ignoreDesired: true });
        assert.ok(ignoringAlways && !eksAccepts(ignoringAlways), "desired 1 under min 4: \"Minimum capacity 4 can't be greater than desired size 1\"");
    });

    it("a maxNodes under the live size brings the group down to it, the only size EKS accepts", () => {
        const sent = sentToEks(created, created, update(group(0, 2), created, LIVE));
        assert.deepStrictEqual(sent, { desiredSize: 2, minSize: 0, maxSize: 2 });
    });

    it("keeps the live size (ignoreChanges) for a new group and for unchanged bounds; reads it only when they change", () => {
        assert.deepStrictEqual(autoscaledSize(group(0, 4, 2), undefined), { desiredSize: 2, keepLiveSize: true });
        assert.deepStrictEqual(autoscaledSize(group(1, 5), 7), { desiredSize: 5, keepLiveSize: false });
        assert.deepStrictEqual(autoscaledSize(group(1, 5), 0), { desiredSize: 1, keepLiveSize: false });
        assert.strictEqual(boundsChanged(group(0, 4), { clusterName: "c", nodeGroupName: "g", minSize: 0, maxSize: 4 }), false);
        assert.strictEqual(boundsChanged(group(1, 4), { clusterName: "c", nodeGroupName: "g", minSize: 0, maxSize: 4 }), true);
        assert.strictEqual(boundsChanged(group(0, 4), { clusterName: "c", nodeGroupName: "g" }), true, "a record without bounds: read the live size rather than guess");
    });
});
