import * as assert from "assert";
import { isAcceleratedInstanceType, isArm64InstanceType, isNvidiaGpuInstanceType, nvidiaGpusPerInstance } from "../../../../../components/clouds/aws/instanceTypes";

describe("EKS instance types", () => {
    it("recognises Graviton (arm64) types", () => {
        for (const arm of ["m6g.large", "m7gd.xlarge", "c7gn.2xlarge", "r8g.large", "t4g.medium", "im4gn.large", "is4gen.xlarge", "x2gd.large", "g5g.xlarge", "hpc7g.4xlarge", "a1.large"]) {
            assert.ok(isArm64InstanceType(arm), arm);
        }
        for (const x86 of ["m6i.xlarge", "m7i-flex.large", "c6a.large", "g5.xlarge", "g4dn.xlarge", "p4d.24xlarge", "t3.medium", "inf2.xlarge", "r7iz.large", "g6e.xlarge"]) {
            assert.ok(!isArm64InstanceType(x86), x86);
        }
    });

    it("recognises x86 NVIDIA GPU types, and not AMD or Graviton GPUs", () => {
        for (const gpu of ["g4dn.xlarge", "g5.12xlarge", "g6.xlarge", "g6e.2xlarge", "p3.2xlarge", "p4d.24xlarge", "p5.48xlarge"]) {
            assert.ok(isNvidiaGpuInstanceType(gpu), gpu);
        }
        for (const other of ["g4ad.xlarge", "g5g.xlarge", "m6i.xlarge", "inf2.xlarge"]) {
            assert.ok(!isNvidiaGpuInstanceType(other), other);
        }
    });

    it("flags accelerated types that do not belong in the CPU group", () => {
        assert.ok(isAcceleratedInstanceType("g4ad.xlarge"));
        assert.ok(isAcceleratedInstanceType("inf2.xlarge"));
        assert.ok(isAcceleratedInstanceType("p3.2xlarge"));
        assert.ok(!isAcceleratedInstanceType("m6i.xlarge"));
        assert.ok(!isAcceleratedInstanceType("c7i.large"));
    });

    it("knows how many GPUs a node of each NVIDIA type advertises, and says so when it does not know", () => {
        const expected: Record<string, number> = {
            "g4dn.xlarge": 1, "g4dn.12xlarge": 4, "g4dn.metal": 8, "g5.xlarge": 1, "g5.16xlarge": 1, "g5.12xlarge": 4,
            "g5.48xlarge": 8, "g6e.24xlarge": 4, "p3.2xlarge": 1, "p3.8xlarge": 4, "p4d.24xlarge": 8, "p5.48xlarge": 8,
        };
        for (const [type, gpus] of Object.entries(expected)) {
            assert.strictEqual(nvidiaGpusPerInstance(type), gpus, type);
        }
        for (const unknown of ["g6f.large", "g5.3xlarge", "m6i.xlarge"]) {
            assert.strictEqual(nvidiaGpusPerInstance(unknown), undefined, unknown);
        }
    });
});
