/**
 * The node-fit check's questions to the stack's cloud (`CloudRules`, through the registry): the node a
 * model's pods land on, the CPU pool's size, the pools it cannot size. The arithmetic they feed is in
 * `config/nodeFit.ts`, which knows no cloud, so each cloud's `nodes.ts` can build on it.
 */
import { cloudRules } from "../components/clouds/registry";
import type { ServingConfig } from "./config";
import type { PoolNode, PoolSize } from "./nodeFit";

/** The node a model's pods land on when the stack creates the pool; undefined on an existing cluster or an unknown machine type. */
export function poolNodeOf(config: ServingConfig, gpu: boolean): PoolNode | undefined {
    return cloudRules(config.cloud).poolNode(config, gpu);
}

/**
 * A warning for each pool the stack creates for models whose machine type this program cannot size
 * (a series newer than its catalog, an instance family it does not list): their node fit is not
 * checked, and the preview says so rather than passing in silence.
 */
export function uncheckedNodeWarnings(config: ServingConfig, project: string): string[] {
    const used = (gpu: boolean) => config.models.some((m) => m.gpu === gpu);
    const pools = cloudRules(config.cloud).unsizedPools(config).filter((p) => used(p.gpu));
    return pools.map((p) => `${project}:${p.key} = ${p.type}: this program does not know its vCPUs and memory, so whether a model pod fits on one node `
        + `was not checked (docs/concepts/model-server.md#node-size): compare the pods' cpu and memoryRequest with what ${p.command} reports, less the kubelet's reservation`);
}

/** How many nodes the CPU pool the stack creates can have; undefined where a pool autoscales (GKE: checked per node only) and on existing clusters. */
export function cpuPoolSizeOf(config: ServingConfig): PoolSize | undefined {
    return cloudRules(config.cloud).cpuPoolSize(config);
}
