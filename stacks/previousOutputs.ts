/**
 * The stack's last update read back from its checkpoint: components/previousOutputs.ts, in the
 * library because the multi-language `ModelImage` (facade/) reads it too.
 */
export * from "../components/previousOutputs";
