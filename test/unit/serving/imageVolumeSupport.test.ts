/**
 * Which clusters mount an image volume (serving/imageVolumeSupport.ts), each rule from its source:
 * - Kubernetes: KEP-4639 (kubernetes/enhancements#4639: alpha 1.31, beta 1.33-1.34, stable 1.36) and
 *   kubernetes.io/docs/tasks/configure-pod-container/image-volumes ("FEATURE STATE: Kubernetes v1.35 [beta]
 *   (enabled by default)"); CloudNativePG's requirements say the same ("Kubernetes 1.35 or later ... Users on
 *   Kubernetes 1.33 and 1.34 must manually enable the ImageVolume feature gate").
 * - containerd: its v2.1.0 release notes ("Add OCI/Image Volume Source support (#10579)").
 * - CRI-O: cri-o/cri-o#8317 (merged for 1.31), and the requirements of CloudNativePG's Image Volume
 *   Extensions page ("containerd v2.1.0 or later, or CRI-O v1.31 or later").
 */
import * as assert from "assert";
import {
    ClusterRuntime, clusterImageVolumeProblem, kubernetesImageVolumeProblem, kubernetesMinor, parseRuntimeVersion, runtimeImageVolumeProblem, schedulableNodes, tolerates,
} from "../../../serving/imageVolumeSupport";

describe("image volume support", () => {
    describe("the Kubernetes version (KEP-4639; kubernetes.io image-volumes task page)", () => {
        it("reads the versions clusters write: plain, v-prefixed, a provider's build suffix", () => {
            assert.deepStrictEqual(["1.35", "v1.35.2", "v1.35.1-eks-4d1e5c8", "v1.34.3-gke.1000", "1.36+"].map(kubernetesMinor),
                [[1, 35], [1, 35], [1, 35], [1, 34], [1, 36]]);
            assert.strictEqual(kubernetesMinor("latest"), undefined);
            assert.strictEqual(kubernetesMinor("1.3x"), undefined);
        });

        it("mounts them from 1.35, where the ImageVolume gate is beta and on by default, and in 1.36, where it is GA", () => {
            assert.strictEqual(kubernetesImageVolumeProblem("1.35"), undefined);
            assert.strictEqual(kubernetesImageVolumeProblem("v1.36.0"), undefined);
            assert.strictEqual(kubernetesImageVolumeProblem("v2.0.0"), undefined);
        });

        it("refuses 1.33 and 1.34 (beta, off by default: a managed cluster cannot turn it on), 1.31 and 1.32 (alpha) and older (absent)", () => {
            assert.match(kubernetesImageVolumeProblem("v1.34.2") ?? "", /^Kubernetes 1\.34 has the ImageVolume feature gate beta and off by default \(on by default from 1\.35, GA in 1\.36: KEP-4639\)$/);
            assert.match(kubernetesImageVolumeProblem("1.33") ?? "", /1\.33 has the ImageVolume feature gate beta and off by default/);
            assert.match(kubernetesImageVolumeProblem("1.31") ?? "", /alpha and off by default/);
            assert.match(kubernetesImageVolumeProblem("1.30") ?? "", /gate absent/);
        });

        it("refuses a version it cannot read, saying so rather than guessing", () => {
            assert.match(kubernetesImageVolumeProblem("next") ?? "", /"next" cannot be read as MAJOR\.MINOR, so whether it has image volumes is not known/);
        });
    });

    describe("the node's runtime (containerd 2.1.0 release notes; CRI-O 1.31: cri-o#8317, CloudNativePG's requirements)", () => {
        it("reads status.nodeInfo.containerRuntimeVersion as the runtime's name and version", () => {
            assert.deepStrictEqual(parseRuntimeVersion("containerd://1.6.20"), { runtime: "containerd", text: "1.6.20", version: [1, 6] });
            assert.deepStrictEqual(parseRuntimeVersion("cri-o://1.31.3"), { runtime: "cri-o", text: "1.31.3", version: [1, 31] });
            assert.deepStrictEqual(parseRuntimeVersion("containerd://v2.1.0-rc.1"), { runtime: "containerd", text: "2.1.0-rc.1", version: [2, 1] });
            assert.strictEqual(parseRuntimeVersion("1.6.20"), undefined);
        });

        it("mounts them on containerd 2.1 and later, and CRI-O 1.31 and later", () => {
            for (const runtime of ["containerd://2.1.0", "containerd://2.1.5", "containerd://2.2.4", "containerd://3.0.0", "cri-o://1.31.0", "cri-o://1.35.1"]) {
                assert.strictEqual(runtimeImageVolumeProblem(runtime), undefined, runtime);
            }
        });

        it("refuses containerd 1.6 (Debian's), 1.7 and 2.0 (GKE 1.33's), and CRI-O 1.30, naming the version found and the one needed", () => {
            assert.strictEqual(runtimeImageVolumeProblem("containerd://1.6.20"), "it runs containerd 1.6.20, and image volumes need containerd 2.1 or later");
            assert.match(runtimeImageVolumeProblem("containerd://1.7.27") ?? "", /containerd 1\.7\.27, and image volumes need containerd 2\.1/);
            assert.match(runtimeImageVolumeProblem("containerd://2.0.6") ?? "", /containerd 2\.0\.6, and image volumes need containerd 2\.1/);
            assert.strictEqual(runtimeImageVolumeProblem("cri-o://1.30.4"), "it runs cri-o 1.30.4, and image volumes need CRI-O 1.31 or later");
        });

        it("refuses a runtime it does not know (cri-dockerd), a version it cannot read, and a report that names no runtime, with the reason", () => {
            assert.strictEqual(runtimeImageVolumeProblem("docker://27.3.1"),
                "it runs docker 27.3.1, a runtime not known to mount image volumes (containerd 2.1 or CRI-O 1.31 or later do)");
            assert.match(runtimeImageVolumeProblem("containerd://main") ?? "", /containerd main, whose version cannot be read/);
            assert.match(runtimeImageVolumeProblem("") ?? "", /names no runtime, so whether it mounts image volumes is not known/);
        });
    });

    describe("an existing cluster: its API server, every node's kubelet and runtime", () => {
        const node = (name: string, containerRuntimeVersion: string, kubeletVersion = "v1.35.2") => ({ name, kubeletVersion, containerRuntimeVersion });
        const cluster = (nodes: ClusterRuntime["nodes"], serverVersion = "v1.35.2"): ClusterRuntime => ({ serverVersion, nodes });

        it("mounts them when the API server and every kubelet are 1.35 or later and every runtime mounts them", () => {
            assert.strictEqual(clusterImageVolumeProblem(cluster([node("a", "containerd://2.1.5"), node("b", "cri-o://1.35.0", "v1.36.0")])), undefined);
        });

        it("names the API server's version first", () => {
            assert.match(clusterImageVolumeProblem(cluster([node("a", "containerd://2.2.0")], "v1.34.1")) ?? "",
                /^the cluster's API server runs v1\.34\.1: Kubernetes 1\.34 has the ImageVolume feature gate beta and off by default/);
        });

        it("names the node whose runtime cannot (the loopback environment's containerd 1.6)", () => {
            assert.strictEqual(clusterImageVolumeProblem(cluster([node("tfs-e2e-control-plane", "containerd://1.6.20")])),
                "1 of 1 node(s) cannot mount an image volume (tfs-e2e-control-plane: it runs containerd 1.6.20, and image volumes need containerd 2.1 or later)");
        });

        it("names a lagging kubelet, where the gate is off whatever the runtime", () => {
            assert.match(clusterImageVolumeProblem(cluster([node("a", "containerd://2.2.0"), node("old", "containerd://2.2.0", "v1.34.0")])) ?? "",
                /^1 of 2 node\(s\) run a kubelet older than 1\.35, where the ImageVolume gate is off by default \(old: kubelet v1\.34\.0\)$/);
        });

        it("names three of the nodes that cannot, and counts the rest", () => {
            const nodes = ["a", "b", "c", "d", "e"].map((n) => node(n, "containerd://1.7.0"));
            const problem = clusterImageVolumeProblem(cluster([...nodes, node("ok", "containerd://2.1.0")])) ?? "";
            assert.match(problem, /^5 of 6 node\(s\) cannot mount an image volume \(a: .*; b: .*; c: .*; and 2 more\)$/);
            assert.doesNotMatch(problem, /\bd: /);
        });

        it("refuses a cluster that lists no node: nothing says what a pod would land on", () => {
            assert.match(clusterImageVolumeProblem(cluster([])) ?? "", /lists no amd64 Linux node/);
        });

        // The loopback environment's nodes: a real one on containerd 2.2, and kwok's simulated GPU node
        // (no runtime at all), tainted so CPU pods never land there.
        const gpuTaint = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" };
        const loopback = () => cluster([node("tfs-e2e-cpu", "containerd://2.2.10"), { ...node("tfs-e2e-gpu", "kwok-0.8.0"), taints: [gpuTaint] }]);
        const gpuToleration = { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" };

        it("judges only the nodes the pods may land on: a tainted GPU node has no say for a CPU model's pods", () => {
            assert.strictEqual(clusterImageVolumeProblem(loopback()), undefined);
            assert.match(clusterImageVolumeProblem(loopback(), [gpuToleration]) ?? "", /^1 of 2 node\(s\) cannot mount an image volume \(tfs-e2e-gpu: its runtime reports "kwok-0\.8\.0", which names no runtime/);
        });

        it("refuses when every node carries a taint the pods do not tolerate, saying so", () => {
            const tainted = cluster([{ ...node("a", "containerd://2.2.0"), taints: [gpuTaint] }]);
            assert.match(clusterImageVolumeProblem(tainted) ?? "", /^the cluster's 1 amd64 Linux node\(s\) all carry a taint the model's pods do not tolerate/);
            assert.strictEqual(clusterImageVolumeProblem(tainted, [gpuToleration]), undefined);
        });

        it("tolerates as Kubernetes does: key and value (Equal, the default) or key alone (Exists), the effect or any; PreferNoSchedule keeps no pod off", () => {
            assert.ok(tolerates([{ key: "nvidia.com/gpu", value: "present" }], gpuTaint));
            assert.ok(!tolerates([{ key: "nvidia.com/gpu", value: "absent" }], gpuTaint));
            assert.ok(!tolerates([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoExecute" }], gpuTaint));
            assert.ok(tolerates([{ operator: "Exists" }], gpuTaint), "an empty key with Exists tolerates every taint");
            assert.ok(!tolerates([{ key: "other", operator: "Exists" }], gpuTaint));
            assert.ok(!tolerates([], gpuTaint));
            const soft = { ...node("soft", "containerd://2.2.0"), taints: [{ key: "k", effect: "PreferNoSchedule" }] };
            const hard = { ...node("hard", "containerd://2.2.0"), taints: [{ key: "k", effect: "NoExecute" }] };
            assert.deepStrictEqual(schedulableNodes([soft, hard], []).map((n) => n.name), ["soft"]);
        });
    });
});
