/**
 * Whether the EKS stack's nodes mount image volumes (`modelDelivery: imageVolume`), pure: from the
 * cluster's Kubernetes version (`eks.kubernetesVersion`) and the AMI type of the node group a model's
 * pods land on (`AMI_TYPES`, the only ones the stack creates: AL2023 standard and AL2023 NVIDIA).
 *
 * The EKS-optimized AL2023 AMIs ship containerd 2.1.5 from their first Kubernetes 1.35 release
 * (v20260114) and containerd 2.2.4 for every Kubernetes version from v20260610 on, the NVIDIA type as
 * the standard one (awslabs/amazon-eks-ami CHANGELOG.md, each release's package table): on 1.35 and
 * later every AMI type the stack creates runs a containerd that mounts them. Below 1.35 the gate is
 * off by default and EKS offers no way to turn it on. Without `eks.kubernetesVersion` EKS creates the
 * cluster on its default version, which a preview cannot know: refused, with the way out.
 */
import { AMI_TYPES } from "./nodeGroup";
import { kubernetesImageVolumeProblem } from "../../../serving/imageVolumeSupport";

/** The AMI types whose containerd mounts image volumes on Kubernetes 1.35 and later (the CHANGELOG's AL2023 tables). */
export const EKS_IMAGE_VOLUME_AMI_TYPES: readonly string[] = ["AL2023_x86_64_STANDARD", "AL2023_x86_64_NVIDIA"];

const SOURCE = "awslabs/amazon-eks-ami CHANGELOG.md";

/** Why a model's pods on the EKS stack's `gpu` or CPU node group could not mount an image volume, or undefined. */
export function eksImageVolumeProblem(kubernetesVersion: string | undefined, gpu: boolean): string | undefined {
    if (kubernetesVersion === undefined) {
        return "eks.kubernetesVersion is not set, so EKS creates the cluster on its default version, which the preview cannot know; "
            + "set eks.kubernetesVersion to \"1.35\" or later";
    }
    const version = kubernetesImageVolumeProblem(kubernetesVersion);
    if (version !== undefined) {
        return `eks.kubernetesVersion is "${kubernetesVersion}": ${version}, and EKS does not let a cluster turn the gate on; set eks.kubernetesVersion to "1.35" or later`;
    }
    const amiType = AMI_TYPES[gpu ? "gpu" : "cpu"];
    return EKS_IMAGE_VOLUME_AMI_TYPES.includes(amiType) ? undefined
        : `the ${gpu ? "GPU" : "CPU"} node group runs AMI type ${amiType}, whose containerd is not recorded as mounting image volumes (${SOURCE})`;
}
