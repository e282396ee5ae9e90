import * as assert from "assert";
import {
    AUTOSCALER_SERVICE_ACCOUNT, CLUSTER_AUTOSCALER_IMAGE_TAGS, autoscalerDiscoveryTags, clusterAutoscalerChartValues, clusterAutoscalerImageTag,
    clusterAutoscalerPolicy, gpuNodeTemplateTags, nodeEphemeralStorageGi,
} from "../../../../../components/clouds/aws/clusterAutoscaler";
import { EPHEMERAL_STORAGE } from "../../../../../serving/sizing";
import { EKS_KUBERNETES_VERSIONS } from "../../../../../components/clouds/aws/kubernetesVersions";
import { GPU_TAINT_KEY, poolLabels } from "../../../../../components/nodePlacement";

/* The Cluster Autoscaler's settings on EKS, stated from its AWS provider README
 * (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, at cluster-autoscaler-chart-9.59.0):
 * auto-discovery by the ASG tags `k8s.io/cluster-autoscaler/enabled` and `k8s.io/cluster-autoscaler/<cluster>`;
 * the "full features" IAM actions; a group at zero described by `eks:DescribeNodegroup` (labels and taints of a
 * managed group that never had a node) or by the ASG's `k8s.io/cluster-autoscaler/node-template/label|taint|resources/...`
 * tags, a taint written `<value>:<effect>`. The chart's values (its values.yaml at the same tag): `cloudProvider`,
 * `awsRegion`, `autoDiscovery.clusterName`, `image.tag`, `rbac.serviceAccount.name`, `nodeSelector`, `extraArgs`. */

describe("Cluster Autoscaler (EKS node groups)", () => {
    it("discovers the groups by the tags its chart matches on", () => {
        assert.deepStrictEqual(autoscalerDiscoveryTags("tf-serving"), { "k8s.io/cluster-autoscaler/enabled": "true", "k8s.io/cluster-autoscaler/tf-serving": "owned" });
    });

    it("knows a GPU group at zero by the pool label, the GPU taint, the GPUs, the ephemeral storage and the accelerator label, as the nodes will carry them", () => {
        assert.deepStrictEqual(gpuNodeTemplateTags({ gpusPerNode: 4, diskSizeGb: 100, accelerator: "nvidia-a10g" }), {
            "k8s.io/cluster-autoscaler/node-template/label/tf-serving/pool": poolLabels("gpu")["tf-serving/pool"],
            [`k8s.io/cluster-autoscaler/node-template/taint/${GPU_TAINT_KEY}`]: "true:NoSchedule",
            "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "4",
            "k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage": "84Gi",
            "k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator": "nvidia-a10g",
        });
        const unknown = gpuNodeTemplateTags({ diskSizeGb: 100, accelerator: "nvidia" });
        assert.ok(!(`k8s.io/cluster-autoscaler/node-template/resources/${GPU_TAINT_KEY}` in unknown), "an unknown type's GPUs are left to the autoscaler's catalog");
        assert.deepStrictEqual(Object.keys(gpuNodeTemplateTags({ gpusPerNode: 1, diskSizeGb: 100, accelerator: "x" })).slice(0, 3),
            Object.keys(gpuNodeTemplateTags({ gpusPerNode: 1, diskSizeGb: 50, accelerator: "y" })).slice(0, 3),
            "the tags' resource names are their positions: the first three stay where earlier versions put them");
    });

    it("sizes the template's ephemeral storage under what a node of that disk reports", () => {
        // kubelet default evictionHard nodefs.available<10%, the EKS AMI's kubeReserved ephemeral-storage 1Gi: a node of D GiB offers
        // at most 0.9 D - 1 GiB; the template must not promise more, nor nothing.
        for (const disk of [20, 50, 100, 500]) {
            const gi = nodeEphemeralStorageGi(disk);
            assert.ok(gi > 0 && gi <= 0.9 * disk - 1, `${disk} GiB disk: ${gi} GiB`);
            assert.ok(gi * 1024 > parseInt(EPHEMERAL_STORAGE.limit, 10), `${disk} GiB disk holds a model pod's ephemeral-storage limit`);
        }
    });

    it("may read everything it needs and change only this cluster's groups", () => {
        const [read, write] = clusterAutoscalerPolicy("tf-serving").Statement;
        assert.ok(read.Action.includes("eks:DescribeNodegroup"), "scale from zero of a managed node group");
        assert.ok(read.Action.every((a) => /^(autoscaling|ec2|eks):(Describe|Get)/.test(a)), "the first statement only reads");
        assert.deepStrictEqual(write.Action, ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"]);
        assert.deepStrictEqual(write.Condition, { StringEquals: { "aws:ResourceTag/k8s.io/cluster-autoscaler/tf-serving": "owned" } });
    });

    it("runs the release of the control plane's minor, for every minor EKS creates clusters on", () => {
        for (const { version } of EKS_KUBERNETES_VERSIONS) {
            assert.match(clusterAutoscalerImageTag(version), new RegExp(`^v${version.replace(".", "\\.")}\\.[0-9]+$`), version);
        }
        assert.strictEqual(clusterAutoscalerImageTag("1.33.4-eks-abc"), CLUSTER_AUTOSCALER_IMAGE_TAGS["1.33"]);
        assert.strictEqual(clusterAutoscalerImageTag("1.36"), "v1.36.1", "kubernetes/autoscaler tag cluster-autoscaler-1.36.1");
        assert.strictEqual(clusterAutoscalerImageTag("1.40"), CLUSTER_AUTOSCALER_IMAGE_TAGS["1.36"], "a newer minor: the newest pinned");
        assert.throws(() => clusterAutoscalerImageTag("1.20"), /kubernetesVersion names Kubernetes 1\.20, for which no Cluster Autoscaler release is pinned \(1\.32, /);
    });

    it("the chart's values: the AWS provider discovering this cluster, on the CPU nodes, under the service account Pod Identity names", () => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const values = clusterAutoscalerChartValues({ clusterName: "tf-serving", region: "us-west-2", kubernetesVersion: "1.34" }) as any;
        assert.strictEqual(values.cloudProvider, "aws");
        assert.strictEqual(values.awsRegion, "us-west-2");
        assert.deepStrictEqual(values.autoDiscovery, { clusterName: "tf-serving" });
        assert.strictEqual(values.image.tag, "v1.34.5");
        assert.deepStrictEqual(values.rbac.serviceAccount, { create: true, name: AUTOSCALER_SERVICE_ACCOUNT.name });
        assert.deepStrictEqual(values.nodeSelector, poolLabels("cpu"), "never on a GPU node, which it could then not remove");
    });
});
