/**
 * Reaching a cluster's API with `@kubernetes/client-node`: the kubeconfig (a file, its text, or the
 * ambient one) checked with a message that names what is missing, and the API clients' configuration.
 * Shared by `tfs doctor` (ops/doctor) and the canary release (components/canary), which run where
 * the user's credentials are. The client is imported by the caller, lazily: it is large.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type * as K8s from "@kubernetes/client-node";

/** Where a kubeconfig comes from: its text or file, or neither (the ambient one); and its context. */
export interface KubeconfigSource {
    kubeconfigFile?: string;
    /** How messages name `kubeconfigFile`; default `--kubeconfig FILE`, the commands' flag. */
    kubeconfigLabel?: string;
    kubeconfigText?: string;
    context?: string;
}

/** The kubeconfig, its context or the namespace do not exist: a usage mistake. */
export class TargetError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "TargetError";
    }
}

/** Where the ambient kubeconfig comes from, as kubectl and client-node look for it. */
export type AmbientKubeconfig =
    | { kind: "env"; files: string[] }
    | { kind: "home"; file: string }
    | { kind: "in-cluster" }
    | { kind: "none" };

const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/**
 * KUBECONFIG (its files), else ~/.kube/config, else a pod's service account. With none of them,
 * client-node would quietly talk to http://localhost:8080: that is no kubeconfig, said as such.
 */
export function findAmbientKubeconfig(env: NodeJS.ProcessEnv, exists: (file: string) => boolean): AmbientKubeconfig {
    const files = (env.KUBECONFIG ?? "").split(path.delimiter).filter((f) => f !== "");
    if (files.length > 0) {
        return { kind: "env", files };
    }
    const home = env.HOME ?? os.homedir();
    const file = path.join(home, ".kube", "config");
    if (home !== "" && exists(file)) {
        return { kind: "home", file };
    }
    return exists(SERVICE_ACCOUNT_TOKEN) ? { kind: "in-cluster" } : { kind: "none" };
}

export const NO_KUBECONFIG = "no kubeconfig found: KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod; "
    + "pass --kubeconfig FILE, set KUBECONFIG, or use --stack NAME (the cluster of a deployed stack); your cluster's tool "
    + "writes one (`gcloud container clusters get-credentials`, `aws eks update-kubeconfig`, `kind export kubeconfig`)";

/** The contexts a loaded kubeconfig has, for `kubeconfigProblem`. */
export interface KubeconfigShape {
    contexts: { name: string; cluster?: string }[];
    clusters: string[];
    currentContext: string | undefined;
}

/** Why a loaded kubeconfig cannot be used with `context` (default its current one), or undefined. */
export function kubeconfigProblem(shape: KubeconfigShape, source: string, context: string | undefined): string | undefined {
    const names = shape.contexts.map((c) => c.name);
    if (names.length === 0) {
        return `${source} has no contexts (is it a kubeconfig?): write one with \`kubectl config set-context\`, `
            + "or use the file your cluster's tool writes, or --stack NAME";
    }
    const chosen = context ?? shape.currentContext;
    if (chosen === undefined || chosen === "") {
        return `${source} has no current context: pass --context NAME (it has: ${names.join(", ")})`;
    }
    const entry = shape.contexts.find((c) => c.name === chosen);
    if (entry === undefined) {
        return `${source} has no context "${chosen}"${context === undefined ? " (its current-context)" : ""} (it has: ${names.join(", ")}); `
            + "pass --context NAME";
    }
    if (entry.cluster === undefined || !shape.clusters.includes(entry.cluster)) {
        return `${source}: context "${chosen}" names cluster "${entry.cluster ?? ""}", which it does not define `
            + `(its clusters: ${shape.clusters.join(", ") || "none"}); \`kubectl config get-contexts\` lists the contexts`;
    }
    return undefined;
}

/** The API clients' configuration for `server` with `kc`'s credentials, each request limited to `timeoutMs`. */
export function apiConfiguration(k8s: typeof K8s, kc: K8s.KubeConfig, server: string, timeoutMs: number): K8s.Configuration {
    return k8s.createConfiguration({
        baseServer: new k8s.ServerConfiguration(server, {}),
        authMethods: { default: kc },
        promiseMiddleware: [{
            pre: async (request) => {
                request.setSignal(AbortSignal.timeout(timeoutMs));
                return request;
            },
            post: async (response) => response,
        }],
    });
}

/**
 * A kubeconfig a component was given as one string, its contents or a file's path (one line naming a
 * file that exists), with an optional context; empty: the ambient one.
 */
export function loadGivenKubeConfig(k8s: typeof K8s, given: string | undefined, context: string | undefined): K8s.KubeConfig {
    const source = given || undefined;
    const isFile = source !== undefined && !source.includes("\n") && fs.existsSync(source);
    return loadKubeConfig(k8s, {
        kubeconfigText: source !== undefined && !isFile ? source : undefined,
        kubeconfigFile: isFile ? source : undefined,
        context: context || undefined,
    });
}

/** `target`'s kubeconfig and context, checked: a `TargetError` names what is missing. */
export function loadKubeConfig(k8s: typeof K8s, target: KubeconfigSource): K8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    let source: string;
    let load: () => void;
    if (target.kubeconfigText !== undefined) {
        source = "the stack's kubeconfig output";
        load = () => kc.loadFromString(target.kubeconfigText as string);
    } else if (target.kubeconfigFile !== undefined) {
        source = target.kubeconfigLabel ?? `--kubeconfig ${target.kubeconfigFile}`;
        load = () => kc.loadFromFile(target.kubeconfigFile as string);
    } else {
        const ambient = findAmbientKubeconfig(process.env, (f) => fs.existsSync(f));
        if (ambient.kind === "none") {
            throw new TargetError(NO_KUBECONFIG);
        }
        source = ambient.kind === "env" ? `KUBECONFIG (${ambient.files.join(path.delimiter)})`
            : ambient.kind === "home" ? ambient.file : "the pod's service account";
        load = ambient.kind === "home" ? () => kc.loadFromFile(ambient.file) : () => kc.loadFromDefault();
    }
    try {
        load();
    } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (err instanceof TypeError) {
            // client-node reads an empty file (or a YAML scalar) as a config without its lists and trips over them.
            throw new TargetError(kubeconfigProblem({ contexts: [], clusters: [], currentContext: undefined }, source, target.context) as string);
        }
        const reason = e.code === "ENOENT" ? `no such file (${e.path ?? ""})`
            : e.code !== undefined ? `${e.code} (${e.path ?? e.message})`
                : `it is not a kubeconfig (${e.message.split("\n")[0]})`;
        throw new TargetError(`cannot read ${source}: ${reason}`);
    }
    const problem = kubeconfigProblem({
        contexts: kc.getContexts().map((c) => ({ name: c.name, cluster: c.cluster })),
        clusters: kc.getClusters().map((c) => c.name),
        currentContext: kc.getCurrentContext() || undefined,
    }, source, target.context);
    if (problem !== undefined) {
        throw new TargetError(problem);
    }
    if (target.context !== undefined) {
        kc.setCurrentContext(target.context);
    }
    return kc;
}
