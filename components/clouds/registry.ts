/**
 * The clouds a stack runs on, by the `cloud` config key. Each cloud's module is required only when
 * that cloud is asked for: its components load its provider SDK (`@pulumi/gcp`, `@pulumi/aws`), about
 * a second of every run of a local stack otherwise. `readConfig` is synchronous, hence `require`
 * rather than `import()`. The config layer and the program reach a cloud only through here (a unit
 * test checks the imports: test/unit/components/clouds/imports.test.ts).
 */
import type { Cloud } from "../../config/config";
import type { CloudAbout, CloudRules } from "./cloud";
import { awsAbout } from "./aws/about";
import { gcpAbout } from "./gcp/about";
import { localAbout } from "./local/about";

export type { CloudAbout, CloudPart, CloudRules } from "./cloud";
export type { GcpConfig } from "./gcp/config";
export type { AwsConfig } from "./aws/config";
export type { LocalSettings } from "./local/config";
export type { GkeDeployed } from "./gcp/liveChanges";
export type { EksDeployed } from "./aws/liveChanges";

/* eslint-disable @typescript-eslint/no-require-imports -- each cloud loads only when configured (see above) */
const CLOUDS: { [C in Cloud]: () => CloudRules<C> } = {
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

/** The rules of `cloud`, its module loaded on first use. */
export function cloudRules<C extends Cloud>(cloud: C): CloudRules<C> {
    return CLOUDS[cloud]() as CloudRules<C>;
}
