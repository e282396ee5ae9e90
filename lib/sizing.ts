/**
 * Entry point `tf-serving/sizing` (pure: no Pulumi): a TF Serving pod's memory (reload peak), CPU,
 * thread flags and probe timing from its model, as `ModelServer` derives them; and Kubernetes quantities.
 */
export {
    BATCHING_BYTES, EPHEMERAL_STORAGE, LIMIT_HEADROOM, LOAD_FACTOR, RUNTIME_OVERHEAD_BYTES, SizingError,
    cpuCores, memoryBytes, sizeServer, toMi,
} from "../serving/sizing";
export { humanBytes } from "../contract/quantity";
export type { ProbeTiming, Sizing, SizingInput, SizingKey } from "../serving/sizing";
