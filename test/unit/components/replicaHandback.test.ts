import * as assert from "assert";
import { GONE_POLL_MS, GONE_WITHIN_MS, HandbackApi, HandbackFailed, handBack, handbackTarget, handbackWarning, hooksSupported } from "../../../components/replicaHandback";
import { REPLICAS_FROM_CONFIG_ANNOTATIONS, replicaOwnership, turnsAutoscalingOff } from "../../../serving/autoscaling";

/** A cluster holding one Deployment and maybe its HPA, which disappears `lag` reads after its deletion. */
function cluster(opts: { uid?: string; hpa?: { target: string }; lag?: number }) {
    const calls: string[] = [];
    let hpa = opts.hpa;
    let deletedAt: number | undefined;
    let reads = 0;
    const api: HandbackApi = {
        async deploymentUid(namespace, name) {
            calls.push(`get deployment ${namespace}/${name}`);
            return opts.uid;
        },
        async scales(namespace, name, target) {
            calls.push(`get hpa ${namespace}/${name}`);
            reads++;
            if (deletedAt !== undefined && reads - deletedAt > (opts.lag ?? 0)) {
                hpa = undefined;
            }
            return hpa?.target === target;
        },
        async deleteHpa(namespace, name) {
            calls.push(`delete hpa ${namespace}/${name}`);
            deletedAt = reads;
        },
    };
    return { api, calls };
}

const target = { namespace: "models", name: "half-plus-two", uid: "uid-1" };
const noSleep = async () => undefined;

describe("turnsAutoscalingOff: the Deployment update that takes the count back from an HPA", () => {
    const withHpa = { metadata: { name: "m" }, spec: { replicas: 2 } };
    const withoutHpa = { metadata: { name: "m", annotations: { ...REPLICAS_FROM_CONFIG_ANNOTATIONS } }, spec: { replicas: 1 } };

    it("is the update from inputs without the annotation to inputs with it", () => {
        assert.strictEqual(turnsAutoscalingOff(withHpa, withoutHpa), true);
    });

    it("is no other update: autoscaling stays off, stays on, or is turned on", () => {
        assert.strictEqual(turnsAutoscalingOff(withoutHpa, withoutHpa), false);
        assert.strictEqual(turnsAutoscalingOff(withHpa, withHpa), false);
        assert.strictEqual(turnsAutoscalingOff(withoutHpa, withHpa), false);
        assert.strictEqual(turnsAutoscalingOff(undefined, withoutHpa), false);
    });

    it("reads the annotation replicaOwnership gives each side", () => {
        const on = { metadata: { annotations: replicaOwnership(1, { minReplicas: 2, maxReplicas: 3 }).annotations } };
        const off = { metadata: { annotations: replicaOwnership(1, undefined).annotations } };
        assert.strictEqual(turnsAutoscalingOff(on, off), true);
        assert.strictEqual(turnsAutoscalingOff(off, on), false);
    });

    it("takes another value of the annotation as no annotation", () => {
        const other = { metadata: { annotations: { "pulumi.com/patchForce": "false" } } };
        assert.strictEqual(turnsAutoscalingOff(other, withoutHpa), true);
    });
});

describe("handBack: the HPA deleted before the Deployment takes the count", () => {
    it("deletes the HPA that scales the Deployment and waits until it is gone", async () => {
        const { api, calls } = cluster({ uid: "uid-1", hpa: { target: "half-plus-two" }, lag: 3 });
        let slept = 0;
        assert.deepStrictEqual(await handBack(api, target, async () => { slept++; }), { kind: "deleted" });
        assert.deepStrictEqual(calls.slice(0, 3), ["get deployment models/half-plus-two", "get hpa models/half-plus-two", "delete hpa models/half-plus-two"]);
        assert.strictEqual(slept, 3, "one pause per read that still found it");
        assert.strictEqual(calls.filter((c) => c === "get hpa models/half-plus-two").length, 5);
    });

    it("does nothing on a cluster whose Deployment of that name is another one (the ambient kubeconfig names another cluster)", async () => {
        const { api, calls } = cluster({ uid: "uid-other", hpa: { target: "half-plus-two" } });
        assert.deepStrictEqual(await handBack(api, target, noSleep), { kind: "other-cluster", liveUid: "uid-other" });
        assert.deepStrictEqual(calls, ["get deployment models/half-plus-two"]);
    });

    it("does nothing where the Deployment does not exist", async () => {
        const { api, calls } = cluster({ hpa: { target: "half-plus-two" } });
        assert.deepStrictEqual(await handBack(api, target, noSleep), { kind: "other-cluster", liveUid: undefined });
        assert.ok(!calls.some((c) => c.startsWith("delete")));
    });

    it("deletes nothing when the HPA is gone already, or scales something else", async () => {
        for (const hpa of [undefined, { target: "another-deployment" }]) {
            const { api, calls } = cluster({ uid: "uid-1", hpa });
            assert.deepStrictEqual(await handBack(api, target, noSleep), { kind: "none" });
            assert.ok(!calls.some((c) => c.startsWith("delete")), JSON.stringify(hpa));
        }
    });

    it("gives up after a bounded wait, with the HPA named", async () => {
        const { api } = cluster({ uid: "uid-1", hpa: { target: "half-plus-two" }, lag: Number.MAX_SAFE_INTEGER });
        let slept = 0;
        await assert.rejects(handBack(api, target, async () => { slept++; }),
            (err: Error) => err instanceof HandbackFailed && /HorizontalPodAutoscaler models\/half-plus-two was still there 30 s after its deletion/.test(err.message));
        assert.strictEqual(slept, GONE_WITHIN_MS / GONE_POLL_MS);
    });
});

describe("the hook's inputs and words", () => {
    it("takes the Deployment's namespace, name and uid from its outputs in the state", () => {
        assert.deepStrictEqual(handbackTarget({ metadata: { namespace: "models", name: "m", uid: "u" }, spec: {} }), { namespace: "models", name: "m", uid: "u" });
        assert.strictEqual(handbackTarget({ metadata: { namespace: "models", name: "m" } }), undefined);
        assert.strictEqual(handbackTarget(undefined), undefined);
    });

    it("warns with the cause, the way out and the page", () => {
        const w = handbackWarning("half-plus-two", "connect ECONNREFUSED");
        assert.match(w, /^model "half-plus-two": autoscaling is turned off, but the HorizontalPodAutoscaler could not be deleted before/);
        assert.match(w, /\(connect ECONNREFUSED\)/);
        assert.match(w, /`pulumi up --refresh` takes the count back \(docs\/guides\/autoscaling\.md#turning-it-on-and-off\)$/);
    });

    it("registers hooks only where the monitor can (the engine's, not Pulumi's mocks)", () => {
        assert.strictEqual(hooksSupported({ registerResourceHook: () => undefined, registerResource: () => undefined }), true);
        assert.strictEqual(hooksSupported({ registerResource: () => undefined }), false);
        assert.strictEqual(hooksSupported(undefined), false);
    });
});
