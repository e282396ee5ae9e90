/**
 * Which Compute Engine machine types go with which NVIDIA accelerators on GKE, and which machine
 * types cannot run TF Serving at all (Arm: TF Serving publishes amd64 images only).
 */

interface AcceleratorSpec {
    /** Machine family the accelerator attaches to (`n1`, `g2`, `a2`, `a3`). */
    family: string;
    /** GPUs per node GKE accepts. */
    counts: number[];
    /** The machine type this project picks for `count` GPUs when none is configured. */
    machineFor(count: number): string;
}

const G2_BY_COUNT: Record<number, string> = { 1: "g2-standard-8", 2: "g2-standard-24", 4: "g2-standard-48", 8: "g2-standard-96" };

/** GPUs built into each g2 machine type. */
const G2_GPUS: Record<string, number> = {
    "g2-standard-4": 1, "g2-standard-8": 1, "g2-standard-12": 1, "g2-standard-16": 1, "g2-standard-32": 1,
    "g2-standard-24": 2, "g2-standard-48": 4, "g2-standard-96": 8,
};

export const GKE_ACCELERATORS: Readonly<Record<string, AcceleratorSpec>> = {
    "nvidia-tesla-t4": { family: "n1", counts: [1, 2, 4], machineFor: () => "n1-standard-8" },
    "nvidia-tesla-p4": { family: "n1", counts: [1, 2, 4], machineFor: () => "n1-standard-8" },
    "nvidia-tesla-v100": { family: "n1", counts: [1, 2, 4, 8], machineFor: () => "n1-standard-8" },
    "nvidia-tesla-p100": { family: "n1", counts: [1, 2, 4], machineFor: () => "n1-standard-8" },
    "nvidia-l4": { family: "g2", counts: [1, 2, 4, 8], machineFor: (n) => G2_BY_COUNT[n] },
    "nvidia-tesla-a100": { family: "a2", counts: [1, 2, 4, 8, 16], machineFor: (n) => (n === 16 ? "a2-megagpu-16g" : `a2-highgpu-${n}g`) },
    "nvidia-a100-80gb": { family: "a2", counts: [1, 2, 4, 8], machineFor: (n) => `a2-ultragpu-${n}g` },
    "nvidia-h100-80gb": { family: "a3", counts: [1, 2, 4, 8], machineFor: (n) => `a3-highgpu-${n}g` },
    "nvidia-h100-mega-80gb": { family: "a3", counts: [8], machineFor: () => "a3-megagpu-8g" },
    "nvidia-h200-141gb": { family: "a3", counts: [8], machineFor: () => "a3-ultragpu-8g" },
};

/** Arm machine families (Tau T2A, Axion C4A/N4A, Grace A4X). */
const ARM_FAMILIES = ["t2a", "c4a", "n4a", "a4x"];

export function machineFamily(machineType: string): string {
    return machineType.split("-")[0];
}

export function isArmMachineType(machineType: string): boolean {
    return ARM_FAMILIES.includes(machineFamily(machineType));
}

/** x86 series whose machines boot only from Hyperdisk, never from a Persistent Disk (`pd-*`). */
const HYPERDISK_ONLY_FAMILIES = ["c4", "c4d", "n4", "n4d"];

/**
 * True for machine types known to refuse a Persistent Disk boot disk: the C4, C4D, N4 and N4D series
 * and A3 Ultra (`a3-ultragpu-*`, the H200 machines). Not exhaustive: GKE still refuses others itself.
 */
export function bootsOnlyFromHyperdisk(machineType: string): boolean {
    return HYPERDISK_ONLY_FAMILIES.includes(machineFamily(machineType)) || machineType.startsWith("a3-ultragpu-");
}

/** GPUs a machine type comes with (a2/a3 `-Ng` types, g2), or undefined where GPUs are attached separately (n1). */
export function builtInGpus(machineType: string): number | undefined {
    if (machineType in G2_GPUS) {
        return G2_GPUS[machineType];
    }
    const m = /^a[0-9]+-[a-z]+-([0-9]+)g$/.exec(machineType);
    return m ? Number(m[1]) : undefined;
}

export interface GpuMachineProblem {
    field: "acceleratorType" | "acceleratorCount" | "machineType";
    problem: string;
}

/**
 * Checks an accelerator type, GPU count and (optional) machine type together; returns what GKE
 * would refuse, each naming the field to fix. An accelerator this table does not know is accepted
 * when it looks like an NVIDIA type and the machine type is given explicitly.
 */
export function checkGpuMachine(acceleratorType: string, count: number, machineType?: string): GpuMachineProblem[] {
    const spec = GKE_ACCELERATORS[acceleratorType];
    const known = Object.keys(GKE_ACCELERATORS).join(", ");
    if (spec === undefined) {
        if (!/^nvidia-[a-z0-9-]+$/.test(acceleratorType)) {
            return [{ field: "acceleratorType", problem: `must be an NVIDIA accelerator type GKE knows, one of ${known}` }];
        }
        return machineType === undefined
            ? [{ field: "machineType", problem: `required for accelerator "${acceleratorType}" (this program knows default machine types only for ${known})` }]
            : [];
    }
    const problems: GpuMachineProblem[] = [];
    if (!spec.counts.includes(count)) {
        problems.push({ field: "acceleratorCount", problem: `${acceleratorType} comes ${spec.counts.join(", ")} per node` });
    }
    if (machineType !== undefined) {
        if (machineFamily(machineType) !== spec.family) {
            problems.push({ field: "machineType", problem: `${acceleratorType} attaches only to ${spec.family} machine types, e.g. "${spec.machineFor(spec.counts[0])}"` });
        } else {
            const fixed = builtInGpus(machineType);
            if (fixed !== undefined && fixed !== count) {
                const fit = spec.counts.includes(count) ? `use "${spec.machineFor(count)}" or ` : "set ";
                problems.push({ field: "machineType", problem: `${machineType} has ${fixed} GPU(s) built in but acceleratorCount is ${count}; ${fit}acceleratorCount ${fixed}` });
            }
        }
    }
    return problems;
}

/** The machine type used for a GPU pool when none is configured (undefined for an unknown accelerator). */
export function defaultGpuMachineType(acceleratorType: string, count: number): string | undefined {
    const spec = GKE_ACCELERATORS[acceleratorType];
    return spec && spec.counts.includes(count) ? spec.machineFor(count) : undefined;
}

/** vCPUs and memory (GiB, as Compute Engine's "GB" means) of a machine type. */
export interface MachineShape {
    vcpus: number;
    memoryGib: number;
}

/**
 * Memory per vCPU of the predefined `FAMILY-CLASS-N` machine types (N vCPUs), in GiB. Shared-core
 * types (`e2-medium`, `e2-small`, `e2-micro`) and custom types are not here.
 */
const GIB_PER_VCPU: Record<string, Record<string, number>> = {
    e2: { standard: 4, highmem: 8, highcpu: 1 },
    n1: { standard: 3.75, highmem: 6.5, highcpu: 0.9 },
    n2: { standard: 4, highmem: 8, highcpu: 1 },
    n2d: { standard: 4, highmem: 8, highcpu: 1 },
    n4: { standard: 4, highmem: 8, highcpu: 2 },
    c2: { standard: 4 },
    c2d: { standard: 4, highmem: 8, highcpu: 2 },
    c3: { standard: 4, highmem: 8, highcpu: 2 },
    c3d: { standard: 4, highmem: 8, highcpu: 2 },
    c4: { standard: 3.75, highmem: 7.75, highcpu: 2 },
    t2d: { standard: 4 },
    g2: { standard: 4 },
};

/** The accelerator-optimized types whose shape follows no per-vCPU rule. */
const GPU_MACHINE_SHAPES: Record<string, MachineShape> = {
    "a2-highgpu-1g": { vcpus: 12, memoryGib: 85 }, "a2-highgpu-2g": { vcpus: 24, memoryGib: 170 },
    "a2-highgpu-4g": { vcpus: 48, memoryGib: 340 }, "a2-highgpu-8g": { vcpus: 96, memoryGib: 680 },
    "a2-megagpu-16g": { vcpus: 96, memoryGib: 1360 },
    "a2-ultragpu-1g": { vcpus: 12, memoryGib: 170 }, "a2-ultragpu-2g": { vcpus: 24, memoryGib: 340 },
    "a2-ultragpu-4g": { vcpus: 48, memoryGib: 680 }, "a2-ultragpu-8g": { vcpus: 96, memoryGib: 1360 },
    "a3-highgpu-1g": { vcpus: 26, memoryGib: 234 }, "a3-highgpu-2g": { vcpus: 52, memoryGib: 468 },
    "a3-highgpu-4g": { vcpus: 104, memoryGib: 936 }, "a3-highgpu-8g": { vcpus: 208, memoryGib: 1872 },
    "a3-megagpu-8g": { vcpus: 208, memoryGib: 1872 }, "a3-ultragpu-8g": { vcpus: 224, memoryGib: 2952 },
};

/** vCPUs and memory of a machine type, or undefined for one this table does not know (custom, shared-core, other series). */
export function machineShape(machineType: string): MachineShape | undefined {
    if (machineType in GPU_MACHINE_SHAPES) {
        return GPU_MACHINE_SHAPES[machineType];
    }
    const m = /^([a-z0-9]+)-([a-z]+)-([0-9]+)$/.exec(machineType);
    const perVcpu = m ? GIB_PER_VCPU[m[1]]?.[m[2]] : undefined;
    return m && perVcpu !== undefined ? { vcpus: Number(m[3]), memoryGib: Number(m[3]) * perVcpu } : undefined;
}
