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
import * as pulumi from "@pulumi/pulumi";
import type { ReleaseInputs, ReleaseReport } from "./release";

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

/*
 * Where the runner is. The engine runs `diff`, `update` and `delete` with the provider serialized in
 * the state, by whichever checkout wrote it last: a path captured here would name that checkout's
 * files, gone when it is deleted (a workstation's clone, a CI job's). So the provider captures none:
 * it finds the runner when it runs, from the project folder it runs in (the dynamic provider's working
 * folder), as the program found the components. Everything the provider calls is in this file: a
 * function of another module of an installed library would be serialized as a `require` of a path
 * the package's `exports` do not open. And they take Node's modules with `process.getBuiltinModule`
 * when they run: a module imported here is captured as the importing transpiler wrapped it, and the
 * serializer knows TypeScript's wrapper only, not swc's (this repository's transpiler).
 */
/** The package whose runner the provider loads. */
const PACKAGE = "tf-serving";
/** The runner in a package folder: compiled (the installed library ships these) and its source (a checkout). */
const RUNNER_JS = "dist/components/canary/release.js";
const RUNNER_TS = "components/canary/release.ts";
const RUNNER_DOCS = "docs/guides/canary.md#where-the-release-runs";

/** What `runnerLocation` reads of the disk (the tests pass their own). */
export interface RunnerProbe {
    /** The `name` in `dir/package.json`, or undefined when there is none (or it does not parse). */
    packageName(dir: string): string | undefined;
    exists(file: string): boolean;
}

/**
 * The runner module the provider loads, found from `cwd` (the project folder) up: in each folder,
 * first a `tf-serving` checkout (its package.json named so: the project is the checkout, or inside
 * it), whose program runs its sources, so the runner is `components/canary/release.ts`, compiled with
 * that checkout's own tsconfig.json; then the library installed in its `node_modules`, whose
 * compiled `release.js` it loads (its sources when it holds no build: a linked checkout). The nearest
 * wins, as Node's own lookup does. `missing`: one line saying where it looked and what to do.
 */
export function runnerLocation(cwd: string, probe: RunnerProbe): { file: string; tsconfig?: string } | { missing: string } {
    const path = process.getBuiltinModule("path");
    const compiled = (root: string) => (probe.exists(path.join(root, RUNNER_JS)) ? { file: path.join(root, RUNNER_JS) } : undefined);
    const source = (root: string) => (probe.exists(path.join(root, RUNNER_TS)) ? { file: path.join(root, RUNNER_TS), tsconfig: path.join(root, "tsconfig.json") } : undefined);
    const start = path.resolve(cwd);
    for (let dir = start; ; dir = path.dirname(dir)) {
        const installed = path.join(dir, "node_modules", PACKAGE);
        const found = (probe.packageName(dir) === PACKAGE ? source(dir) ?? compiled(dir) : undefined)
            ?? (probe.packageName(installed) === PACKAGE ? compiled(installed) ?? source(installed) : undefined);
        if (found !== undefined) {
            return found;
        }
        if (path.dirname(dir) === dir) {
            return {
                missing: `no ${PACKAGE} checkout (${RUNNER_TS}) or installed library (node_modules/${PACKAGE}/${RUNNER_JS}) in ${start} or a folder above it, ` +
                    `where the canary's runner would be: run pulumi in the project's folder, inside a checkout of ${PACKAGE} or with ${PACKAGE} installed there (${RUNNER_DOCS})`,
            };
        }
    }
}

/** A canary step the provider could not run or finish: its message is the update's error, one line. */
export class CanaryStepError extends Error {
    constructor(message: string) {
        super(message);
        // Set again: serialized, the class calls `Error` as a function for `super`, which sets nothing on `this`.
        this.message = message;
        this.name = "CanaryStepError";
        // The dynamic provider also prints a failed delete, as `${err}: ${err.stack}`: here `error: MESSAGE`, without a trace (it is no bug).
        this.stack = message;
    }

    override toString(): string {
        return "error";
    }
}

/**
 * The runner module, loaded in the provider's process (see `runnerLocation`). That process is plain
 * Node.js: a TypeScript source needs ts-node first, registered with the checkout's own tsconfig.json
 * (the project folder's may say `"swc": true` or name a `transpiler`, which ts-node refuses together
 * when it merges them), as `bin/tfs.js` does for the CLI; a build needs nothing.
 */
export function runner(model: string, cwd = process.cwd()): typeof import("./release") {
    const fs = process.getBuiltinModule("fs");
    const path = process.getBuiltinModule("path");
    const found = runnerLocation(cwd, {
        packageName(dir) {
            try {
                return (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string }).name;
            } catch {
                return undefined;
            }
        },
        exists: (file) => fs.existsSync(file),
    });
    if ("missing" in found) {
        throw new CanaryStepError(`canary of ${model}: ${found.missing}`);
    }
    try {
        if (found.tsconfig !== undefined && !(process as unknown as { [key: symbol]: boolean })[Symbol.for("ts-node.register.instance")]) {
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            require(require.resolve("ts-node", { paths: [path.dirname(found.tsconfig)] })).register({ project: found.tsconfig, transpileOnly: true });
        }
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        return require(found.file);
    } catch (err) {
        throw new CanaryStepError(`canary of ${model}: its runner ${found.file} did not load (${String((err as Error).message).split("\n")[0]}); ` +
            `install the project's packages again (npm ci) or run pulumi from an intact checkout (${RUNNER_DOCS})`);
    }
}

/**
 * What a delete does when the runner could not retire the canary (`err`): fail, since a delete that
 * passed would leave the canary Deployment running, forgotten by the state, and the routes maybe
 * still weighted to it; unless the cluster did not answer at all (no HTTP status: refused, no such
 * host, timed out) and `PULUMI_K8S_DELETE_UNREACHABLE` is true, the Kubernetes provider's own switch
 * for a cluster that is gone, which lets the stack's other Kubernetes objects leave the state too.
 */
export function retireFailure(props: Pick<Props, "model" | "canary" | "namespace">, err: unknown, env: Record<string, string | undefined>): { error: string } | { line: string } {
    const reason = String((err as Error)?.message ?? err).split("\n")[0];
    const answered = typeof (err as { code?: unknown })?.code === "number";
    if (!answered && env.PULUMI_K8S_DELETE_UNREACHABLE === "true") {
        return { line: `canary of ${props.model}: nothing retired, the cluster did not answer (${reason}); PULUMI_K8S_DELETE_UNREACHABLE=true lets the canary leave the state` };
    }
    return {
        error: `canary of ${props.model}: not retired (${reason}): the canary Deployment ${props.canary} in ${props.namespace} may still run, and the routes may still send it traffic; ` +
            `run the update again once the cluster answers${answered ? "" : ", or, if the cluster is gone for good, with PULUMI_K8S_DELETE_UNREACHABLE=true"} (${RUNNER_DOCS})`,
    };
}

/**
 * Inputs whose change is no change of the release (the kubeconfig is how it gets there, not what it
 * does). An array: Pulumi's closure serialization does not carry a Set's contents.
 */
const IGNORED = ["kubeconfig", "__provider", "report"];

/** The provider: serialized with every CanaryRelease into the state (exported for the tests that read what it captures). */
export const canaryProvider: pulumi.dynamic.ResourceProvider = {
    async check(_olds: Props, news: Props) {
        return { inputs: news };
    },

    async diff(_id: string, olds: Props, news: Props) {
        const changed = Object.keys(news).filter((k) => !IGNORED.includes(k) && JSON.stringify(olds[k as keyof Props]) !== JSON.stringify(news[k as keyof Props]));
        // A runner not found fails the preview here, with the message the update would fail with.
        const steps = runner(news.model);
        let left: string | undefined;
        try {
            left = await steps.leftovers(news);
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
        // Not found or not loaded: the delete fails (its message says what to do); it never passes with the canary left.
        const steps = runner(props.model);
        try {
            await steps.finish(props, (line) => console.log(line));
        } catch (err) {
            const failure = retireFailure(props, err, process.env);
            if ("error" in failure) {
                throw new CanaryStepError(failure.error);
            }
            console.log(failure.line);
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
        const steps = runner(inputs.model);
        if (inputs.phase === "finish") {
            await steps.finish(inputs, log);
            return undefined;
        }
        return await steps.release(inputs, log);
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
        super(canaryProvider, name, { ...args, kubeconfig: pulumi.secret(args.kubeconfig ?? ""), report: undefined },
            pulumi.mergeOptions(opts, { additionalSecretOutputs: ["kubeconfig"] }));
    }
}
