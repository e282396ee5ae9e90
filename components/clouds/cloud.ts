/**
 * What a cloud gives the config layer, behind one interface: each cloud's folder
 * (`components/clouds/<cloud>/`) implements it in its `cloud.ts`, and the registry (`registry.ts`)
 * loads that module only for the configured cloud, so a local stack never loads `@pulumi/gcp` or
 * `@pulumi/aws`. The stack a cloud composes is in `stacks/<cloud>.ts`; docs/development/adding-a-cloud.md
 * says how to add one.
 *
 * The interface knows no cloud: it takes each cloud's name, section and record as type parameters,
 * and imports only the config layer's modules that know no cloud either. The registry, which lists
 * the clouds, and `config/config.ts`, which reads the keys, sit above the folders, so the imports run
 * one way (test/unit/project/importCycles.test.ts).
 */
import type { ConfigIssue, ConfigReader } from "../../config/configReader";
import type { GatewaySection } from "../../config/gateway";
import type { GpuPool } from "../../config/gpuCapacity";
import type { LiveChanges } from "../../config/liveChangeRules";
import type { PoolNode, PoolSize, UnsizedPool } from "../../config/nodeFit";
import type { ModelSettings, StackConfig } from "../../config/settings";
import type { Collector } from "./collectors";

/** Where a check finds credentials: the environment and the home folder. */
export type Env = Record<string, string | undefined>;

/** A stack's configuration on cloud `C` without the settings every cloud shares: `cloud` and its section. */
export type CloudPart<C extends string, Section extends object> = { cloud: C } & Section;

/** What the config layer knows of a cloud without loading it (each folder's `about.ts`, which imports nothing). */
export interface CloudAbout {
    /** The top-level config keys only this cloud reads (its section: `gke`, `eks`). */
    readonly ownKeys: readonly string[];
    /**
     * What the stack creates instead of what an existing cluster brings (a registry and the cluster),
     * said when another cloud's keys for those are set; undefined for a cloud that creates none.
     */
    readonly createsInstead?: string;
    /**
     * The provider SDK its components load (`@pulumi/gcp`), which no other cloud's stack loads: an
     * optional peer of the packages, installed by the users of this cloud only. Undefined for a cloud
     * whose stack needs no SDK beyond `@pulumi/kubernetes`.
     */
    readonly sdk?: string;
}

/** The `deployedSettings` record of a stack on cloud `C` whose own part is `Recorded` (`never` for a cloud that records nothing). */
export type DeployedFor<C extends string, Recorded extends object> = { schema: number; cloud: C } & Recorded;

/**
 * What a cloud checks and reads (each folder's `cloud.ts`, loaded only for its cloud): `C` is its
 * `cloud` key's value, `Section` its own keys (`{ gke: GcpConfig }`), `Recorded` what its running stack
 * records (`{ gke: GkeDeployed }`; `never`: nothing). The registry checks that each cloud's three are
 * its `CloudSections` and `CloudRecords` members (`RulesOf`).
 */
export interface CloudRules<C extends string, Section extends object, Recorded extends object = never> {
    /** Reads its keys, defaults filled; every problem is recorded on `r` under its full key. */
    readSection(r: ConfigReader, projectDir: string): CloudPart<C, Section>;
    /** The Gateway controller its clusters run, as the `gateway` keys meet it (`endpoint: gateway`). */
    readonly gateway: GatewaySection;
    /** The collector its stacks get without `monitoring.collector`. */
    readonly defaultCollector: Collector;
    /** Why `collector` cannot run on its clusters (the fix included), or undefined. */
    collectorProblem(collector: Collector): string | undefined;
    /** Its checks across the whole configuration (a GPU pool for GPU models, what autoscaling needs). */
    configIssues(config: StackConfig<C, Section>, models: ModelSettings[]): ConfigIssue[];
    /** The GPU pool the stack creates, in its config keys' terms; undefined for none or one it cannot size. */
    gpuPool(config: StackConfig<C, Section>): GpuPool | undefined;
    /** The node a model's pods land on (`gpu`: the GPU pool's), for the node-fit check; undefined where it cannot say. */
    poolNode(config: StackConfig<C, Section>, gpu: boolean): PoolNode | undefined;
    /** The pools it creates whose machine type its catalog does not know (their node fit goes unchecked, with a warning). */
    unsizedPools(config: StackConfig<C, Section>): UnsizedPool[];
    /** How many nodes its CPU pool can have, where that is fixed; undefined where the pool autoscales or is not the stack's. */
    cpuPoolSize(config: StackConfig<C, Section>): PoolSize | undefined;
    /**
     * The changes from the settings its running stack recorded to `next` that are refused (`out.issues`)
     * or worth a warning (`out.warnings`); nothing for a cloud that records none.
     */
    liveChanges(deployed: DeployedFor<C, Recorded>, next: DeployedFor<C, Recorded>, out: LiveChanges): void;
    /** The values its provider would refuse (`config/providerRules.ts` has the rule shape). */
    providerIssues(config: StackConfig<C, Section>): ConfigIssue[];
    /**
     * Warnings on values it accepts (an EKS Kubernetes version in extended support), each naming its
     * full key (`project:key = ...`); `today` (UTC, YYYY-MM-DD) dates what the cloud supports, default the current day.
     */
    warnings(config: StackConfig<C, Section>, project: string, today?: string): string[];
    /** Where credentials would come from, when no source is there: one line each with the fix. */
    credentialProblems(config: StackConfig<C, Section>, env: Env, home: string): string[];
}
