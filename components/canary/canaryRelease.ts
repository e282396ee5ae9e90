/**
 * CanaryRelease: the steps of a canary inside `pulumi up`, as a dynamic resource (Pulumi's
 * Node.js dynamic provider, the `pulumi-resource-pulumi-nodejs` plugin every Pulumi install ships).
 *
 * Two per model with a canary: `release` before the serving Deployment (the serving Deployment
 * depends on it, so the engine changes its image only after every gate passed; a failed gate fails
 * this resource and the serving Deployment is left as it was), and `finish` after it (the routes
 * back to the serving pods alone, the canary's pods deleted). The work is in
 * `release.ts`; this file only adapts it to the provider protocol.
 *
 * The state tells the truth: the routes and Deployments the engine manages are, at the end of an
 * update, exactly what it recorded. The canary Deployment exists only during an update; if one is
 * killed, `diff` finds what it left (the canary Deployment, weights still moved) and reports a
 * change, so the next preview shows it and the next update cleans it up first.
 */
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import type { ReleaseInputs, ReleaseReport } from "./release";

/** The runner, resolved where this file is: `release.ts` when the program runs from sources, `release.js` from a build. */
const RUNNER = require.resolve("./release");
/**
 * The tsconfig.json of the checkout the runner's sources are in (two folders up). The provider's
 * process runs in the Pulumi project's folder, whose own tsconfig may say `"swc": true` or name a
 * `transpiler` (this repository's does): ts-node merges its register options with the tsconfig it
 * finds, and refuses `swc` beside `transpiler`. Naming this file compiles the runner with the settings
 * of the sources it belongs to, wherever the project is, as `bin/tfs.js` does for the CLI.
 */
const RUNNER_TSCONFIG = path.join(path.dirname(RUNNER), "..", "..", "tsconfig.json");

/** The Kubernetes client the runner talks to the cluster with: an optional peer of the library, which only a canary loads. */
export const CANARY_CLIENT = "@kubernetes/client-node";

/**
 * Why a canary cannot run from here: the runner's Kubernetes client is not installed, with the fix;
 * undefined when it resolves from the runner's folder, as the provider's process will load it.
 * `resolve` is Node's resolution from this file (a test passes its own).
 */
export function canaryClientProblem(resolve: (name: string) => string = require.resolve): string | undefined {
    try {
        resolve(CANARY_CLIENT);
        return undefined;
    } catch {
        return `needs the ${CANARY_CLIENT} package, which is not installed: the canary's steps talk to the cluster with it. ` +
            `Install it in the program (\`npm install ${CANARY_CLIENT}\`, at the range the tf-serving package's peerDependencies give; docs/reference/library.md#install)`;
    }
}

type Phase = "release" | "finish";
type Props = ReleaseInputs & { phase: Phase };

/**
 * The runner module, loaded in the provider's process. That process is plain Node.js: a
 * TypeScript source needs ts-node first (the program itself ran under it), a build does not.
 */
export function runner(): typeof import("./release") {
    const file = RUNNER;
    if (file.endsWith(".ts") && !(process as unknown as { [key: symbol]: boolean })[Symbol.for("ts-node.register.instance")]) {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("ts-node").register({ project: RUNNER_TSCONFIG, transpileOnly: true });
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file);
}

/**
 * Inputs whose change is no change of the release (the kubeconfig is how it gets there, not what it
 * does). An array: Pulumi's closure serialization does not carry a Set's contents.
 */
const IGNORED = ["kubeconfig", "__provider", "report"];

const provider: pulumi.dynamic.ResourceProvider = {
    async check(_olds: Props, news: Props) {
        return { inputs: news };
    },

    async diff(_id: string, olds: Props, news: Props) {
        const changed = Object.keys(news).filter((k) => !IGNORED.includes(k) && JSON.stringify(olds[k as keyof Props]) !== JSON.stringify(news[k as keyof Props]));
        let left: string | undefined;
        try {
            left = await runner().leftovers(news);
        } catch {
            // No cluster to read yet (a preview before it exists): only the inputs decide.
        }
        // For the finish, a canary still serving is its own work (the release before it left it so); for a release it is a leftover.
        if (left !== undefined && news.phase === "release") {
            console.log(`canary of ${news.model}: an earlier update left ${left}; this update retires it first`);
        }
        return { changes: changed.length > 0 || left !== undefined };
    },

    async create(inputs: Props) {
        return { id: `${inputs.namespace}/${inputs.model}/${inputs.phase}`, outs: withReport(inputs, await act(inputs)) };
    },

    async update(_id: string, _olds: Props, news: Props) {
        return { outs: withReport(news, await act(news)) };
    },

    async delete(_id: string, props: Props) {
        try {
            await runner().finish(props, (line) => console.log(line));
        } catch (err) {
            // A cluster already gone has nothing left to retire.
            console.log(`canary of ${props.model}: nothing retired (${(err as Error).message})`);
        }
    },
};

/** The outputs: the inputs, and the release's report when there is one (the protocol's structs carry no undefined). */
function withReport(inputs: Props, report: ReleaseReport | undefined): Record<string, unknown> {
    return report === undefined ? { ...inputs } : { ...inputs, report };
}

/**
 * Runs a phase. Its lines go to the update's output (the engine shows a plugin's stdout); once the
 * engine is gone (a killed `pulumi up`) that pipe is closed, so a failed write is ignored, and a
 * release that stopped for that reason ends this process too: no engine will ever call it again.
 */
async function act(inputs: Props): Promise<ReleaseReport | undefined> {
    const engine = process.ppid;
    if (process.stdout.listenerCount("error") === 0) {
        process.stdout.on("error", () => undefined);
    }
    const log = (line: string) => { process.stdout.write(`${line}\n`); };
    try {
        if (inputs.phase === "finish") {
            await runner().finish(inputs, log);
            return undefined;
        }
        return await runner().release(inputs, log);
    } catch (err) {
        if (process.ppid !== engine) {
            process.exit(1);
        }
        throw err;
    }
}

export type CanaryReleaseArgs = { [K in keyof Props]: pulumi.Input<Props[K]> };

export class CanaryRelease extends pulumi.dynamic.Resource {
    /** The steps' lines and outcome of the last release (undefined for `finish`). */
    declare readonly report: pulumi.Output<ReleaseReport | undefined>;

    constructor(name: string, args: CanaryReleaseArgs, opts?: pulumi.CustomResourceOptions) {
        // The provider returns its inputs as outputs in the clear: the engine keeps the kubeconfig secret only when told.
        super(provider, name, { ...args, kubeconfig: pulumi.secret(args.kubeconfig ?? ""), report: undefined },
            pulumi.mergeOptions(opts, { additionalSecretOutputs: ["kubeconfig"] }));
    }
}
