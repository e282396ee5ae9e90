/**
 * Image volumes on the EKS stack's nodes (components/clouds/aws/imageVolumes.ts). Source: awslabs/amazon-eks-ami
 * CHANGELOG.md, each release's package table: the AL2023 AMIs of Kubernetes 1.35 ship containerd 2.1.5 from their first
 * release (v20260114) and 2.2.4 from v20260610, the NVIDIA type as the standard one; containerd mounts image volumes from
 * 2.1 (its v2.1.0 release notes). The gate: KEP-4639, on by default from 1.35.
 */
import * as assert from "assert";
import { EKS_IMAGE_VOLUME_AMI_TYPES, eksImageVolumeProblem } from "../../../../../components/clouds/aws/imageVolumes";
import { AMI_TYPES } from "../../../../../components/clouds/aws/nodeGroup";

describe("image volumes on EKS", () => {
    it("knows the containerd of every AMI type the stack creates (a new AMI type is refused until its containerd is recorded)", () => {
        assert.deepStrictEqual(Object.values(AMI_TYPES).filter((t) => !EKS_IMAGE_VOLUME_AMI_TYPES.includes(t)), []);
    });

    it("mounts them on 1.35 and 1.36, on the CPU and the GPU node group", () => {
        for (const version of ["1.35", "1.36"]) {
            assert.strictEqual(eksImageVolumeProblem(version, false), undefined);
            assert.strictEqual(eksImageVolumeProblem(version, true), undefined);
        }
    });

    it("refuses 1.33 and 1.34, where the gate is off and EKS offers no way to turn it on", () => {
        assert.match(eksImageVolumeProblem("1.33", false) ?? "", /^eks\.kubernetesVersion is "1\.33": Kubernetes 1\.33 has the ImageVolume feature gate beta and off by default/);
        assert.match(eksImageVolumeProblem("1.34", true) ?? "", /EKS does not let a cluster turn the gate on; set eks\.kubernetesVersion to "1\.35" or later$/);
    });

    it("refuses a stack that leaves the version to EKS: its default is not known at preview", () => {
        assert.match(eksImageVolumeProblem(undefined, false) ?? "", /^eks\.kubernetesVersion is not set, .*set eks\.kubernetesVersion to "1\.35" or later$/);
    });
});
