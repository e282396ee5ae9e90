import * as assert from "assert";
import { bootsOnlyFromHyperdisk, builtInGpus, checkGpuMachine, defaultGpuMachineType, isArmMachineType, machineTypeProblem } from "../../../../../components/clouds/gcp/machines";

describe("GKE machine types", () => {
    it("recognises Arm machine families", () => {
        for (const arm of ["t2a-standard-4", "c4a-standard-8", "n4a-standard-2", "a4x-highgpu-4g"]) {
            assert.ok(isArmMachineType(arm), arm);
        }
        for (const x86 of ["e2-standard-4", "n2-standard-8", "g2-standard-8", "a2-highgpu-1g", "n1-standard-8", "c3-standard-4", "t2d-standard-4"]) {
            assert.ok(!isArmMachineType(x86), x86);
        }
    });

    it("tells a machine type from a typo: a name of a known series that Compute Engine does not list gets a did-you-mean", () => {
        for (const ok of ["e2-standard-4", "c4-standard-2", "c4-highmem-8-lssd", "e2-medium", "n2-custom-4-16384", "custom-4-16384", "e2-custom-small-2048", "a3-megagpu-8g"]) {
            assert.strictEqual(machineTypeProblem(ok), undefined, ok);
        }
        assert.match(machineTypeProblem("e2-standrad-4") ?? "", /^is not a machine type of the E2 series: did you mean "e2-standard-4"\?/);
        assert.match(machineTypeProblem("e2-standard-6") ?? "", /^is not a machine type of the E2 series: did you mean "e2-standard-[0-9]+"\?/);
        assert.match(machineTypeProblem("n2-highmem-128x") ?? "", /did you mean "n2-highmem-128"/);
        assert.match(machineTypeProblem("n2-custom-4") ?? "", /^is not a custom machine type: `SERIES-custom-VCPUS-MEMORY_MB`/);
        // A series newer than the catalog is not refused: the node fit says it could not check it.
        assert.strictEqual(machineTypeProblem("z9-standard-8"), undefined);
    });

    it("knows the series that boot only from Hyperdisk", () => {
        for (const m of ["c4-standard-8", "c4d-standard-8", "n4-standard-4", "n4d-standard-4", "a3-ultragpu-8g"]) {
            assert.strictEqual(bootsOnlyFromHyperdisk(m), true, m);
        }
        for (const m of ["e2-standard-4", "n2-standard-8", "c3-standard-8", "g2-standard-8", "a3-highgpu-8g", "n1-standard-8"]) {
            assert.strictEqual(bootsOnlyFromHyperdisk(m), false, m);
        }
        assert.strictEqual(bootsOnlyFromHyperdisk(defaultGpuMachineType("nvidia-h200-141gb", 8)!), true, "the H200 default machine");
    });

    it("picks a machine type that carries the accelerator", () => {
        assert.strictEqual(defaultGpuMachineType("nvidia-l4", 1), "g2-standard-8");
        assert.strictEqual(defaultGpuMachineType("nvidia-l4", 4), "g2-standard-48");
        assert.strictEqual(defaultGpuMachineType("nvidia-tesla-t4", 2), "n1-standard-8");
        assert.strictEqual(defaultGpuMachineType("nvidia-tesla-a100", 2), "a2-highgpu-2g");
        assert.strictEqual(defaultGpuMachineType("nvidia-tesla-t4", 3), undefined);
        assert.strictEqual(defaultGpuMachineType("nvidia-unknown", 1), undefined);
    });

    it("knows the GPUs built into g2 and a2/a3 machine types", () => {
        assert.strictEqual(builtInGpus("g2-standard-24"), 2);
        assert.strictEqual(builtInGpus("a3-highgpu-8g"), 8);
        assert.strictEqual(builtInGpus("n1-standard-8"), undefined);
    });

    it("accepts valid combinations", () => {
        assert.deepStrictEqual(checkGpuMachine("nvidia-tesla-t4", 1), []);
        assert.deepStrictEqual(checkGpuMachine("nvidia-tesla-t4", 4, "n1-highmem-16"), []);
        assert.deepStrictEqual(checkGpuMachine("nvidia-l4", 2, "g2-standard-24"), []);
    });

    it("names the field to fix for each mismatch", () => {
        assert.deepStrictEqual(checkGpuMachine("nvidia-tesla-t4", 3).map((p) => p.field), ["acceleratorCount"]);
        const family = checkGpuMachine("nvidia-l4", 1, "n1-standard-8");
        assert.deepStrictEqual(family.map((p) => p.field), ["machineType"]);
        assert.match(family[0].problem, /only to g2 machine types, e\.g\. "g2-standard-8"/);
        const count = checkGpuMachine("nvidia-l4", 1, "g2-standard-48");
        assert.match(count[0].problem, /g2-standard-48 has 4 GPU\(s\) built in but acceleratorCount is 1; use "g2-standard-8"/);
        assert.deepStrictEqual(checkGpuMachine("tesla-t4", 1).map((p) => p.field), ["acceleratorType"]);
    });

    it("accepts an NVIDIA type it does not know only with an explicit machine type", () => {
        assert.deepStrictEqual(checkGpuMachine("nvidia-b200", 8).map((p) => p.field), ["machineType"]);
        assert.deepStrictEqual(checkGpuMachine("nvidia-b200", 8, "a4-highgpu-8g"), []);
    });
});
