/**
 * The clouds a stack runs on, by the `cloud` config key. Each cloud's module is required only when
 * that cloud is asked for: its components load its provider SDK (`@pulumi/gcp`, `@pulumi/aws`), about
 * a second of every run of a local stack otherwise. `readConfig` is synchronous, hence `require`
 * rather than `import()`. The config layer and the program reach a cloud only through here (a unit
 * test checks the imports: test/unit/components/clouds/imports.test.ts). Nothing in a cloud's folder
 * imports this module or a config module that does: it sits above them (test/unit/project/importCycles.test.ts).
 */
import type { CloudAbout, CloudRules } from "./cloud";
import type { AwsConfig } from "./aws/config";
import type { EksDeployed } from "./aws/liveChanges";
import type { GcpConfig } from "./gcp/config";
import type { GkeDeployed } from "./gcp/liveChanges";
import type { LocalSettings } from "./local/config";
import { awsAbout } from "./aws/about";
import { gcpAbout } from "./gcp/about";
import { localAbout } from "./local/about";

export type { CloudAbout, CloudPart, CloudRules } from "./cloud";
export type { GcpConfig } from "./gcp/config";
export type { AwsConfig } from "./aws/config";
export type { LocalSettings } from "./local/config";
export type { GatewayInput, GatewayPlatform, GatewayPlatformSettings } from "./gateways";
export { COLLECTORS } from "./collectors";
export type { Collector } from "./collectors";
export type { GkeDeployed } from "./gcp/liveChanges";
export type { EksDeployed } from "./aws/liveChanges";

/** The clouds a stack runs on (the `cloud` key), each a folder beside this file. */
export const CLOUDS = ["local", "gcp", "aws"] as const;
export type Cloud = (typeof CLOUDS)[number];

/** Each cloud's section of the configuration, under its own key (`CloudAbout.ownKeys`). */
export interface CloudSections {
    local: { local: LocalSettings };
    gcp: { gke: GcpConfig };
    aws: { eks: AwsConfig };
}

/** What each cloud's running stack records (`deployedSettings`), under its section's key; a cloud that records nothing is not here. */
export interface CloudRecords {
    gcp: { gke: GkeDeployed };
    aws: { eks: EksDeployed };
}

/**
 * The rules of cloud `C`, with its section and its record: each cloud's `cloud.ts` declares its own
 * (`CloudRules<"gcp", { gke: GcpConfig }, { gke: GkeDeployed }>`), and `RULES` below checks they are these.
 */
export type RulesOf<C extends Cloud> = CloudRules<C, CloudSections[C], C extends keyof CloudRecords ? CloudRecords[C] : never>;

/* eslint-disable @typescript-eslint/no-require-imports -- each cloud loads only when configured (see above) */
const RULES: { [C in Cloud]: () => RulesOf<C> } = {
    local: () => (require("./local/cloud") as typeof import("./local/cloud")).localCloud,
    gcp: () => (require("./gcp/cloud") as typeof import("./gcp/cloud")).gcpCloud,
    aws: () => (require("./aws/cloud") as typeof import("./aws/cloud")).awsCloud,
};
/* eslint-enable @typescript-eslint/no-require-imports */

const ABOUT: { [C in Cloud]: CloudAbout } = { local: localAbout, gcp: gcpAbout, aws: awsAbout };

/** What the config layer knows of `cloud` without loading it. */
export function cloudAbout(cloud: Cloud): CloudAbout {
    return ABOUT[cloud];
}

/**
 * Why a stack on `cloud` cannot run here: its provider SDK (`CloudAbout.sdk`) is not installed, with
 * the fix; undefined when it is, or when the cloud needs none. The packages make the cloud SDKs
 * optional peers, which a user of an existing cluster never installs. `resolve` is Node's resolution
 * from here (a test passes its own).
 */
export function cloudSdkProblem(cloud: Cloud, resolve: (name: string) => string = require.resolve): string | undefined {
    const sdk = ABOUT[cloud].sdk;
    if (sdk === undefined) {
        return undefined;
    }
    try {
        resolve(sdk);
        return undefined;
    } catch {
        return `needs the ${sdk} package, which is not installed: a stack on cloud "${cloud}" loads it, a stack on an existing cluster does not. ` +
            `Install it beside tf-serving-cli (\`npm install ${sdk}\`, at the range the package's peerDependencies give; docs/reference/cli.md#installing-tfs)`;
    }
}

/** The rules of `cloud`, its module loaded on first use. */
export function cloudRules<C extends Cloud>(cloud: C): RulesOf<C> {
    return RULES[cloud]() as RulesOf<C>;
}
