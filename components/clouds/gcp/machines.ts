/**
 * Which Compute Engine machine types go with which NVIDIA accelerators on GKE, which machine
 * types cannot run TF Serving at all (Arm: TF Serving publishes amd64 images only), and the shape
 * (vCPUs, memory) of every type the catalog (`machineCatalog.ts`) or a custom type's name states.
 */
import { closest } from "../../../contract/spelling";
import { PREDEFINED_NAMED, PREDEFINED_SERIES, SHARED_CORE } from "./machineCatalog";

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
    /** A shared-core E2 type: a fraction of a core that bursts, which GKE reserves CPU for by its own rule. */
    sharedCore?: true;
}

/** Every predefined type of the catalog, by name. */
const PREDEFINED: ReadonlyMap<string, MachineShape> = new Map([
    ...Object.entries(PREDEFINED_SERIES).flatMap(([template, shapes]) => shapes.split(" ").map((pair): [string, MachineShape] => {
        const [vcpus, gb] = pair.split(":").map(Number);
        return [template.replace("-N", `-${vcpus}`), { vcpus, memoryGib: gb }];
    })),
    ...Object.entries(PREDEFINED_NAMED).map(([name, [vcpus, gb]]): [string, MachineShape] => [name, { vcpus, memoryGib: gb }]),
]);

/** The series of the catalog (`e2`, `n2`, `c4`, ...): a type of one of them that the catalog lacks is no type at all. */
const SERIES = new Set([...PREDEFINED.keys(), ...Object.keys(SHARED_CORE)].map(machineFamily));

/** The shared-core E2 sizes a custom E2 type may take instead of a vCPU count (`e2-custom-medium-4096`): their vCPUs as the node reports them. */
const E2_SHARED_CUSTOM: Record<string, number> = { micro: 2, small: 2, medium: 2 };

/**
 * A custom type's shape: `SERIES-custom-VCPUS-MEMORY_MB` (N1's are `custom-VCPUS-MEMORY_MB`, without
 * the series), `-ext` for extended memory, and E2's shared-core `e2-custom-micro|small|medium-MEMORY_MB`.
 * Undefined for anything else. Which series take custom shapes, and which sizes, GKE checks itself.
 */
export function customMachineShape(machineType: string): MachineShape | undefined {
    const m = /^(?:([a-z0-9]+)-)?custom-([0-9]+|micro|small|medium)-([0-9]+)(-ext)?$/.exec(machineType);
    if (m === null || (m[1] !== undefined && !SERIES.has(m[1]))) {
        return undefined;
    }
    const memoryGib = Number(m[3]) / 1024;
    if (m[2] in E2_SHARED_CUSTOM) {
        return m[1] === "e2" && m[4] === undefined ? { vcpus: E2_SHARED_CUSTOM[m[2]], memoryGib, sharedCore: true } : undefined;
    }
    const vcpus = Number(m[2]);
    return vcpus >= 1 && memoryGib > 0 ? { vcpus, memoryGib } : undefined;
}

/**
 * vCPUs and memory of a machine type: predefined (the catalog), shared-core E2 or custom; undefined
 * for a type this program cannot size (a series newer than the catalog, `f1-micro` and `g1-small`).
 */
export function machineShape(machineType: string): MachineShape | undefined {
    const predefined = PREDEFINED.get(machineType);
    if (predefined !== undefined) {
        return predefined;
    }
    if (machineType.startsWith("e2-") && machineType in SHARED_CORE) {
        const [vcpus, gb] = SHARED_CORE[machineType];
        return { vcpus, memoryGib: gb, sharedCore: true };
    }
    return customMachineShape(machineType);
}

/**
 * Why `machineType` is not a machine type, or undefined when it is one or may be (a series the
 * catalog does not know: `machineShape` is then undefined and the node fit says it could not check).
 * A name of a known series that the catalog lacks is a typo or a size the series does not come in.
 */
export function machineTypeProblem(machineType: string): string | undefined {
    if (machineType in SHARED_CORE || PREDEFINED.has(machineType) || customMachineShape(machineType) !== undefined) {
        return undefined;
    }
    const custom = machineType.startsWith("custom-") || machineType.includes("-custom-");
    const series = custom ? undefined : machineFamily(machineType);
    const seriesOfCustom = machineType.includes("-custom-") ? machineFamily(machineType) : "n1";
    if ((series !== undefined && !SERIES.has(series)) || (custom && !SERIES.has(seriesOfCustom))) {
        return undefined;
    }
    const near = closest(machineType, [...PREDEFINED.keys(), ...Object.keys(SHARED_CORE)].filter((t) => series === undefined || machineFamily(t) === series), 3);
    const what = series === undefined
        ? "is not a custom machine type: `SERIES-custom-VCPUS-MEMORY_MB` (e.g. \"n2-custom-4-16384\"; N1: \"custom-4-16384\"; shared-core E2: \"e2-custom-medium-4096\"), `-ext` for extended memory"
        : `is not a machine type of the ${series.toUpperCase()} series`;
    return `${what}${near ? `: did you mean "${near}"?` : ""} (\`gcloud compute machine-types list --filter="name~^${series ?? "n2"}-"\` lists them)`;
}
