/**
 * What a cloud gives the config layer, behind one interface: each cloud's folder
 * (`components/clouds/<cloud>/`) implements it in its `cloud.ts`, and the registry (`registry.ts`)
 * loads that module only for the configured cloud, so a local stack never loads `@pulumi/gcp` or
 * `@pulumi/aws`. The stack a cloud composes is in `stacks/<cloud>.ts`; docs/development/adding-a-cloud.md
 * says how to add one.
 */
import type { CommonConfig, ConfigFor, ModelSettings, Cloud } from "../../config/config";
import type { ConfigIssue, ConfigReader } from "../../config/configReader";
import type { GpuPool } from "../../config/gpuCapacity";
import type { DeployedSettings, LiveChanges } from "../../config/liveChanges";
import type { PoolNode, PoolSize, UnsizedPool } from "../../config/nodeFit";
import type { GatewaySection } from "../../config/gateway";
import type { Collector } from "./collectors";

/** Where a check finds credentials: the environment and the home folder. */
export type Env = Record<string, string | undefined>;

/** A stack's configuration on cloud `C` without the settings every cloud shares: `cloud` and its section. */
export type CloudPart<C extends Cloud> = Omit<ConfigFor<C>, keyof CommonConfig>;

/** What the config layer knows of a cloud without loading it (each folder's `about.ts`, which imports nothing). */
export interface CloudAbout {
    /** The top-level config keys only this cloud reads (its section: `gke`, `eks`). */
    readonly ownKeys: readonly string[];
    /**
     * What the stack creates instead of what an existing cluster brings (a registry and the cluster),
     * said when another cloud's keys for those are set; undefined for a cloud that creates none.
     */
    readonly createsInstead?: string;
}

/** The `deployedSettings` record of a stack on cloud `C`. */
export type DeployedFor<C extends Cloud> = Extract<DeployedSettings, { cloud: C }>;

/** What a cloud checks and reads (each folder's `cloud.ts`, loaded only for its cloud). */
export interface CloudRules<C extends Cloud> {
    /** Reads its keys, defaults filled; every problem is recorded on `r` under its full key. */
    readSection(r: ConfigReader, projectDir: string): CloudPart<C>;
    /** The Gateway controller its clusters run, as the `gateway` keys meet it (`endpoint: gateway`). */
    readonly gateway: GatewaySection;
    /** The collector its stacks get without `monitoring.collector`. */
    readonly defaultCollector: Collector;
    /** Why `collector` cannot run on its clusters (the fix included), or undefined. */
    collectorProblem(collector: Collector): string | undefined;
    /** Its checks across the whole configuration (a GPU pool for GPU models, what autoscaling needs). */
    configIssues(config: ConfigFor<C>, models: ModelSettings[]): ConfigIssue[];
    /** The GPU pool the stack creates, in its config keys' terms; undefined for none or one it cannot size. */
    gpuPool(config: ConfigFor<C>): GpuPool | undefined;
    /** The node a model's pods land on (`gpu`: the GPU pool's), for the node-fit check; undefined where it cannot say. */
    poolNode(config: ConfigFor<C>, gpu: boolean): PoolNode | undefined;
    /** The pools it creates whose machine type its catalog does not know (their node fit goes unchecked, with a warning). */
    unsizedPools(config: ConfigFor<C>): UnsizedPool[];
    /** How many nodes its CPU pool can have, where that is fixed; undefined where the pool autoscales or is not the stack's. */
    cpuPoolSize(config: ConfigFor<C>): PoolSize | undefined;
    /**
     * The changes from the settings its running stack recorded to `next` that are refused (`out.issues`)
     * or worth a warning (`out.warnings`); nothing for a cloud that records none.
     */
    liveChanges(deployed: DeployedFor<C>, next: DeployedFor<C>, out: LiveChanges): void;
    /** The values its provider would refuse (`config/providerRules.ts` has the rule shape). */
    providerIssues(config: ConfigFor<C>): ConfigIssue[];
    /**
     * Warnings on values it accepts (an EKS Kubernetes version in extended support), each naming its
     * full key (`project:key = ...`); `today` (UTC, YYYY-MM-DD) dates what the cloud supports, default the current day.
     */
    warnings(config: ConfigFor<C>, project: string, today?: string): string[];
    /** Where credentials would come from, when no source is there: one line each with the fix. */
    credentialProblems(config: ConfigFor<C>, env: Env, home: string): string[];
}
