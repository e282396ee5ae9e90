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
