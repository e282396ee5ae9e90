/**
 * cloud: local, through the `CloudRules` interface: an existing cluster (kind, minikube, the e2e
 * environment, any kubeconfig). Nothing to size, nothing a cloud provider would refuse; the
 * credential is the kubeconfig.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { CloudRules, Env } from "../cloud";
import { readLocal } from "./config";
import type { LocalSettings } from "./config";
import { kubeContextIssues } from "./kubeContext";
import { GENERIC_GATEWAY_SECTION } from "../../../config/gateway";

/** local's rules: its section `local`; its stack records nothing. */
export const localCloud: CloudRules<"local", { local: LocalSettings }> = {
    readSection: (r, projectDir) => ({ cloud: "local", local: readLocal(r, projectDir) }),
    gateway: GENERIC_GATEWAY_SECTION,
    // Nothing is assumed installed on an existing cluster but a Prometheus that reads the pods' annotations.
    defaultCollector: "annotations",
    collectorProblem: () => undefined,
    // The user's cluster is not contacted (`tfs doctor` and the HPA's events say when no adapter serves the metric);
    // its kubeconfig, a local file, is read for the context the stack names.
    configIssues: (config) => kubeContextIssues(config.local, process.env, os.homedir(), readIfPresent),
    gpuPool: () => undefined,
    poolNode: () => undefined,
    unsizedPools: () => [],
    cpuPoolSize: () => undefined,
    // An existing cluster: the stack records nothing of it.
    liveChanges: () => undefined,
    providerIssues: () => [],
    warnings: () => [],
    credentialProblems: (config, env, home) => kubeconfigProblems(config.local.kubeconfig, env, home),
};

function kubeconfigProblems(configured: string | undefined, env: Env, home: string): string[] {
    if (configured !== undefined) {
        return fs.existsSync(configured) ? [] : [`tf-serving:kubeconfig = ${configured}: no such file; point it at your cluster's kubeconfig, or remove it to use KUBECONFIG or ~/.kube/config`];
    }
    const fromEnv = (env.KUBECONFIG ?? "").split(path.delimiter).filter((f) => f !== "");
    if (fromEnv.length > 0) {
        return fromEnv.some((f) => fs.existsSync(f)) ? [] : [`KUBECONFIG = ${env.KUBECONFIG}: no such file; fix the variable, or set tf-serving:kubeconfig`];
    }
    const fallback = path.join(home, ".kube", "config");
    return fs.existsSync(fallback) ? [] : [
        `no kubeconfig: neither tf-serving:kubeconfig nor KUBECONFIG is set and ${fallback} does not exist; ` +
        "create a cluster (kind create cluster, minikube start, or `scripts/e2e-env start` for the bundled one) or point tf-serving:kubeconfig at one",
    ];
}

function readIfPresent(file: string): string | undefined {
    try {
        return fs.readFileSync(file, "utf8");
    } catch {
        return undefined;
    }
}
