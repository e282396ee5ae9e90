/**
 * What an EC2 instance type means for TF Serving: Graviton (arm64) types cannot run it (there is no
 * arm64 image), and GPU serving needs an NVIDIA GPU type that the `AL2023_x86_64_NVIDIA` AMI supports.
 */

import { closest } from "../../../contract/spelling";

/** The family of an instance type: `g5` for `g5.xlarge`, `p6-b200` for `p6-b200.48xlarge`. */
export function instanceFamily(instanceType: string): string {
    return instanceType.split(".")[0];
}

/**
 * Graviton families carry a `g` right after the generation digit (`m6g`, `c7gn`, `r8gd`, `t4g`,
 * `im4gn`, `is4gen`, `g5g`), plus the first-generation `a1`.
 */
export function isArm64InstanceType(instanceType: string): boolean {
    const family = instanceFamily(instanceType);
    return family === "a1" || /^[a-z]+[0-9]+g[a-z]*$/.test(family);
}

/** x86 NVIDIA GPU families (AMD `g4ad` and Graviton `g5g` are not among them). */
export const NVIDIA_GPU_FAMILIES = [
    "g4dn", "g5", "g6", "g6e", "g6f", "gr6", "gr6f", "p3", "p3dn", "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200",
] as const;

export function isNvidiaGpuInstanceType(instanceType: string): boolean {
    return (NVIDIA_GPU_FAMILIES as readonly string[]).includes(instanceFamily(instanceType));
}

/** Any accelerated family: none of them belong in the CPU node group. */
export function isAcceleratedInstanceType(instanceType: string): boolean {
    return isNvidiaGpuInstanceType(instanceType) || /^(g[0-9]|p[0-9]|inf[0-9]|trn[0-9]|dl[0-9]|f[0-9]|vt[0-9])/.test(instanceFamily(instanceType));
}

/**
 * NVIDIA GPUs per instance of the sizes that have more than one; every other size of a GPU family has
 * one (`g5.xlarge` to `g5.16xlarge`, `p3.2xlarge`). The fractional-GPU families (`g6f`, `gr6f`) are not
 * known here: `nvidiaGpusPerInstance` answers undefined for them, and for sizes it does not list.
 */
const MULTI_GPU_SIZES: Record<string, Record<string, number>> = {
    "g4dn": { "12xlarge": 4, "metal": 8 },
    "g5": { "12xlarge": 4, "24xlarge": 4, "48xlarge": 8 },
    "g6": { "12xlarge": 4, "24xlarge": 4, "48xlarge": 8 },
    "g6e": { "12xlarge": 4, "24xlarge": 4, "48xlarge": 8 },
    "p3": { "8xlarge": 4, "16xlarge": 8 },
    "p3dn": { "24xlarge": 8 },
    "p4d": { "24xlarge": 8 },
    "p4de": { "24xlarge": 8 },
    "p5": { "48xlarge": 8 },
    "p5e": { "48xlarge": 8 },
    "p5en": { "48xlarge": 8 },
    "p6-b200": { "48xlarge": 8 },
};
const SINGLE_GPU_SIZES: Record<string, string[]> = {
    "g4dn": ["xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"],
    "g5": ["xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"],
    "g6": ["xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"],
    "g6e": ["xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"],
    "gr6": ["4xlarge", "8xlarge"],
    "p3": ["2xlarge"],
    "p5": ["4xlarge"],
};

/** The NVIDIA GPU of each family (AWS's accelerated-computing instance pages), as a label value. */
const NVIDIA_GPU_MODELS: Record<(typeof NVIDIA_GPU_FAMILIES)[number], string> = {
    "g4dn": "nvidia-t4", "g5": "nvidia-a10g", "g6": "nvidia-l4", "g6e": "nvidia-l40s", "g6f": "nvidia-l4", "gr6": "nvidia-l4", "gr6f": "nvidia-l4",
    "p3": "nvidia-v100", "p3dn": "nvidia-v100", "p4d": "nvidia-a100", "p4de": "nvidia-a100", "p5": "nvidia-h100", "p5e": "nvidia-h200",
    "p5en": "nvidia-h200", "p6-b200": "nvidia-b200",
};

/** The GPU of an NVIDIA instance type (`nvidia-a10g` for `g5.xlarge`); `nvidia` for a family not listed here. */
export function nvidiaGpuModel(instanceType: string): string {
    return NVIDIA_GPU_MODELS[instanceFamily(instanceType) as (typeof NVIDIA_GPU_FAMILIES)[number]] ?? "nvidia";
}

/** `nvidia.com/gpu` a node of this instance type advertises, or undefined when not known here. */
export function nvidiaGpusPerInstance(instanceType: string): number | undefined {
    const [family, size] = instanceType.split(".");
    return MULTI_GPU_SIZES[family]?.[size] ?? (SINGLE_GPU_SIZES[family]?.includes(size) ? 1 : undefined);
}

/** vCPUs, memory (GiB) and the pods the VPC CNI lets an instance type run (its ENIs x (IPv4 per ENI - 1) + 2). */
export interface InstanceShape {
    vcpus: number;
    memoryGib: number;
    maxPods: number;
}

/**
 * Memory per vCPU of the families whose sizes follow the usual ladder (`large` 2 vCPUs, `xlarge` 4,
 * `Nxlarge` 4N), and their pods per size from the EKS AMI's ENI table: these families share the
 * standard Nitro ENI limits (3 x 10 at `large`, 4 x 15 at `xlarge`/`2xlarge`, 8 x 30 up to `12xlarge`,
 * 15 x 50 above), except the GPU families, listed apart.
 */
const GIB_PER_VCPU: Record<string, number> = {
    m5: 4, m5a: 4, m6i: 4, m6a: 4, m7i: 4, m7a: 4,
    c5: 2, c5a: 2, c6i: 2, c6a: 2, c7i: 2, c7a: 2,
    r5: 8, r5a: 8, r6i: 8, r6a: 8, r7i: 8, r7a: 8,
    g4dn: 4, g5: 4,
};
const NITRO_MAX_PODS: Record<string, number> = {
    "large": 29, "xlarge": 58, "2xlarge": 58, "4xlarge": 234, "8xlarge": 234, "9xlarge": 234, "12xlarge": 234,
    "16xlarge": 737, "18xlarge": 737, "24xlarge": 737, "32xlarge": 737, "48xlarge": 737,
};
const GPU_MAX_PODS: Record<string, Record<string, number>> = {
    g4dn: { "xlarge": 29, "2xlarge": 29, "4xlarge": 29, "8xlarge": 58, "12xlarge": 234, "16xlarge": 58 },
    g5: { "xlarge": 58, "2xlarge": 58, "4xlarge": 234, "8xlarge": 234, "12xlarge": 737, "16xlarge": 234, "24xlarge": 737, "48xlarge": 345 },
};
/** The burstable t3 sizes, whose memory follows no per-vCPU rule. */
const T3_SHAPES: Record<string, InstanceShape> = {
    "t3.medium": { vcpus: 2, memoryGib: 4, maxPods: 17 }, "t3.large": { vcpus: 2, memoryGib: 8, maxPods: 35 },
    "t3.xlarge": { vcpus: 4, memoryGib: 16, maxPods: 58 }, "t3.2xlarge": { vcpus: 8, memoryGib: 32, maxPods: 58 },
};

/** vCPUs, memory and pods of an instance type, or undefined for one this table does not know. */
export function instanceShape(instanceType: string): InstanceShape | undefined {
    if (instanceType in T3_SHAPES) {
        return T3_SHAPES[instanceType];
    }
    const [family, size] = instanceType.split(".");
    const perVcpu = GIB_PER_VCPU[family];
    const m = /^([0-9]*)xlarge$/.exec(size ?? "");
    const vcpus = size === "large" ? 2 : m ? 4 * Number(m[1] || 1) : undefined;
    const maxPods = family in GPU_MAX_PODS ? GPU_MAX_PODS[family][size] : NITRO_MAX_PODS[size];
    return perVcpu === undefined || vcpus === undefined || maxPods === undefined ? undefined : { vcpus, memoryGib: vcpus * perVcpu, maxPods };
}

/** EC2's size names: `nano` to `large`, `xlarge`, `Nxlarge`, `metal` and `metal-Nxl` (e.g. `metal-24xl`). */
const SIZE = /^(nano|micro|small|medium|large|xlarge|[1-9][0-9]*xlarge|metal|metal-[1-9][0-9]*xl)$/;

/**
 * Why `instanceType` (`FAMILY.SIZE`) cannot be an EC2 instance type because of its size, or undefined.
 * Families come and go too often to list; sizes follow one pattern, so a misspelt size is a typo.
 */
export function instanceSizeProblem(instanceType: string): string | undefined {
    const [family, size] = instanceType.split(".");
    if (size === undefined || SIZE.test(size)) {
        return undefined;
    }
    const near = closest(size, ["nano", "micro", "small", "medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge", "metal"], 2);
    return `has no EC2 size "${size}" (sizes are nano, micro, small, medium, large, xlarge, 2xlarge, ... metal)${near ? `: did you mean "${family}.${near}"?` : ""}`;
}
