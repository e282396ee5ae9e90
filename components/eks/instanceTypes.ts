/**
 * What an EC2 instance type means for TF Serving: Graviton (arm64) types cannot run it (there is no
 * arm64 image), and GPU serving needs an NVIDIA GPU type that the `AL2023_x86_64_NVIDIA` AMI supports.
 */

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

/** `nvidia.com/gpu` a node of this instance type advertises, or undefined when not known here. */
export function nvidiaGpusPerInstance(instanceType: string): number | undefined {
    const [family, size] = instanceType.split(".");
    return MULTI_GPU_SIZES[family]?.[size] ?? (SINGLE_GPU_SIZES[family]?.includes(size) ? 1 : undefined);
}
