/**
 * The local stack's image volume check at preview: the cluster's version and nodes read through
 * client-node (components/clouds/local/clusterRuntime.ts) from a loopback stand-in of the API server,
 * judged by serving/imageVolumeSupport.ts (containerd 2.1: its v2.1.0 release notes; Kubernetes 1.35:
 * KEP-4639), and the whole stack composed under mocks against it.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ClusterReadError, readClusterRuntime } from "../../../../../components/clouds/local/clusterRuntime";
import { localImageVolumeIssues } from "../../../../../components/clouds/local/imageVolumes";
import { ConfigError } from "../../../../../config/configReader";
import type { ModelSettings } from "../../../../../config/settings";
import { FakeApiServer, fakeKubeconfig } from "../../../../support/fakeApiServer";
import { runCloudStack } from "../../../../support/cloudMocks";

/* eslint-disable @typescript-eslint/no-explicit-any */
const node = (name: string, runtime: string, kubelet = "v1.35.0", taints?: { key: string; value?: string; effect: string }[]) =>
    ({ metadata: { name }, ...(taints ? { spec: { taints } } : {}), status: { nodeInfo: { containerRuntimeVersion: runtime, kubeletVersion: kubelet } } });
const model = (modelDelivery: ModelSettings["modelDelivery"], key = "modelDelivery", gpu = false) => ({ modelDelivery, gpu, configKey: () => key }) as unknown as ModelSettings;
/** The loopback environment's nodes: the real one on containerd 2.2, kwok's GPU node (no runtime), tainted for GPU pods only. */
const loopbackNodes = () => [node("tfs-e2e-cpu", "containerd://2.2.10", "v1.35.4"), node("tfs-e2e-gpu", "kwok-0.8.0", "v1.35.4", [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }])];

describe("image volumes on an existing cluster (read at preview)", function () {
    this.timeout(30_000);
    let api: FakeApiServer;
    let dir: string;
    let kubeconfig: string;

    beforeEach(async () => {
        api = new FakeApiServer();
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-image-volumes-"));
        kubeconfig = fakeKubeconfig(dir, await api.start());
    });
    afterEach(async () => {
        await api.stop();
        fs.rmSync(dir, { recursive: true, force: true });
    });

    it("reads the API server's version and the kubelet and runtime of each node a server's pod may land on", async () => {
        api.version = { major: "1", minor: "35", gitVersion: "v1.35.2" };
        api.nodes = [node("a", "containerd://2.1.5"), node("b", "containerd://1.6.20", "v1.34.1")];
        assert.deepStrictEqual(await readClusterRuntime({ kubeconfigFile: kubeconfig }), {
            serverVersion: "v1.35.2",
            nodes: [
                { name: "a", kubeletVersion: "v1.35.0", containerRuntimeVersion: "containerd://2.1.5" },
                { name: "b", kubeletVersion: "v1.34.1", containerRuntimeVersion: "containerd://1.6.20" },
            ],
        });
        assert.ok(api.requests.includes("/version"), api.requests.join(", "));
        assert.ok(api.requests.some((r) => r.startsWith("/api/v1/nodes?") && decodeURIComponent(r).includes("labelSelector=kubernetes.io/arch=amd64,kubernetes.io/os=linux")), api.requests.join(", "));
    });

    it("says which read failed and why: nodes a user may not list", async () => {
        api.nodes = undefined;
        await assert.rejects(readClusterRuntime({ kubeconfigFile: kubeconfig }), (err: Error) => {
            assert.ok(err instanceof ClusterReadError);
            assert.match(err.message, /^listing the nodes at http:\/\/127\.0\.0\.1:\d+ \(context fake\): HTTP 403: nodes is forbidden: User "alice" cannot list resource "nodes"/);
            return true;
        });
    });

    it("refuses the loopback environment's containerd 1.6 in one line naming the key, the runtime found and the docs page", async () => {
        api.nodes = [node("tfs-e2e-control-plane", "containerd://1.6.20")];
        const issues = await localImageVolumeIssues([model("imageVolume")], () => readClusterRuntime({ kubeconfigFile: kubeconfig }));
        assert.strictEqual(issues.length, 1);
        assert.deepStrictEqual([issues[0].key, issues[0].value], ["modelDelivery", "imageVolume"]);
        assert.strictEqual(issues[0].expected, "cannot be mounted on this cluster: 1 of 1 node(s) cannot mount an image volume (tfs-e2e-control-plane: it runs containerd 1.6.20, "
            + "and image volumes need containerd 2.1 or later). Set modelDelivery to \"embedded\" (the default), or serve it on a cluster with Kubernetes 1.35 or later "
            + "and nodes on containerd 2.1 or later (or CRI-O 1.31 or later) (see docs/concepts/model-image.md#two-ways-to-deliver-the-model)");
        assert.ok(!issues[0].expected.includes("\n"));
    });

    it("accepts nodes on containerd 2.1; a cluster it cannot read is refused with the reason; embedded models ask nothing", async () => {
        api.nodes = [node("a", "containerd://2.1.0"), node("b", "cri-o://1.31.2")];
        assert.deepStrictEqual(await localImageVolumeIssues([model("imageVolume")], () => readClusterRuntime({ kubeconfigFile: kubeconfig })), []);
        const unreadable = await localImageVolumeIssues([model("imageVolume", "models[0].modelDelivery")], () => readClusterRuntime({ kubeconfigFile: path.join(dir, "missing"), kubeconfigLabel: "tf-serving:kubeconfig (missing)" }));
        assert.strictEqual(unreadable[0].key, "models[0].modelDelivery");
        assert.match(unreadable[0].expected, /^cannot be mounted on this cluster: the cluster's version and nodes could not be read at preview \(cannot read tf-serving:kubeconfig \(missing\): no such file.*\), so whether its nodes mount image volumes is not known/);
        let asked = false;
        assert.deepStrictEqual(await localImageVolumeIssues([model("embedded")], async () => { asked = true; throw new Error("not asked"); }), []);
        assert.strictEqual(asked, false);
    });

    it("reads each node's taints, and judges each model on the nodes its pods tolerate: the loopback environment's kwok GPU node has no say for a CPU model", async () => {
        api.nodes = loopbackNodes();
        const read = () => readClusterRuntime({ kubeconfigFile: kubeconfig });
        assert.deepStrictEqual((await read()).nodes[1].taints, [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }]);
        const gpuTolerations = (m: ModelSettings) => (m.gpu ? [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }] : []);
        assert.deepStrictEqual(await localImageVolumeIssues([model("imageVolume")], read, gpuTolerations), []);
        const gpu = await localImageVolumeIssues([model("imageVolume", "models[1].modelDelivery", true)], read, gpuTolerations);
        assert.deepStrictEqual(gpu.map((i) => i.key), ["models[1].modelDelivery"]);
        assert.match(gpu[0].expected, /tfs-e2e-gpu: its runtime reports "kwok-0\.8\.0"/);
    });

    describe("the local stack (composed under mocks, the cluster the stand-in)", () => {
        const config = (extra: Record<string, string> = {}) => ({
            "tf-serving:modelPath": "models/half_plus_two", "tf-serving:publicEndpoint": "true", "tf-serving:kubeconfig": kubeconfig,
            "tf-serving:modelDelivery": "imageVolume", ...extra,
        });

        it("stops before anything is registered on a node that cannot mount the artifact", async () => {
            api.nodes = [node("kind-control-plane", "containerd://1.7.24")];
            await assert.rejects(runCloudStack(config(), {}), (err: Error) => {
                assert.ok(err instanceof ConfigError);
                assert.match(err.message, /^invalid configuration \(1 problem\):\n {2}- tf-serving:modelDelivery = "imageVolume": cannot be mounted on this cluster: .*containerd 1\.7\.24/);
                return true;
            });
        });

        it("on a cluster that can: the artifact FROM scratch, the pinned base, the volume, and the artifact as the model's output", async () => {
            // The loopback environment's: a CPU model's pods never land on the tainted kwok GPU node.
            api.nodes = loopbackNodes();
            const { recorder, dockerfiles, outputs } = await runCloudStack(config(), {});
            assert.match(dockerfiles["half-plus-two"], /^FROM scratch$/m);
            const spec = (recorder.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template.spec;
            assert.match(spec.containers[0].image, /^tensorflow\/serving:2\.21\.0@sha256:[0-9a-f]{64}$/);
            const artifact = spec.volumes.find((v: any) => v.name === "model").image;
            assert.match(artifact.reference, /^localhost:5001\/tf-serving\/half-plus-two@sha256:[0-9a-f]{64}$/);
            assert.strictEqual(artifact.pullPolicy, "IfNotPresent");
            assert.deepStrictEqual(spec.imagePullSecrets, undefined, "no registry login configured: none to pull with");
            assert.strictEqual((outputs.models as any)["half-plus-two"].imageRef, artifact.reference);
            assert.deepStrictEqual(Object.keys(outputs.imageBuilds as object), ["half-plus-two"]);
        });
    });
});
