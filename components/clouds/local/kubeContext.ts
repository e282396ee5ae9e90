/**
 * A `kubeContext` the kubeconfig does not hold. The Kubernetes provider reads the kubeconfig only when
 * it first creates an object, so without this check an update builds and pushes every image, then fails
 * on its first Kubernetes object. The kubeconfig is a local file (the stack's `kubeconfig`, else the
 * files in KUBECONFIG, merged as kubectl merges them, else ~/.kube/config): reading it contacts nothing,
 * so `tfs plan`, `tfs deploy`'s preflight and the preview all refuse the context before anything else.
 */
import * as path from "path";
import * as YAML from "yaml";
import type { ConfigIssue } from "../../../config/configReader";

/** A kubeconfig file's text, or undefined when it cannot be read. */
export type ReadFile = (file: string) => string | undefined;

/** The files the provider reads the kubeconfig from, and how a message names them. */
function kubeconfigFiles(kubeconfig: string | undefined, env: Record<string, string | undefined>, home: string): { files: string[]; source: string } {
    if (kubeconfig !== undefined) {
        return { files: [kubeconfig], source: `tf-serving:kubeconfig (${kubeconfig})` };
    }
    const fromEnv = (env.KUBECONFIG ?? "").split(path.delimiter).filter((f) => f !== "");
    if (fromEnv.length > 0) {
        return { files: fromEnv, source: `KUBECONFIG (${fromEnv.join(path.delimiter)})` };
    }
    const file = path.join(home, ".kube", "config");
    return { files: [file], source: file };
}

/** The context names of a kubeconfig's text, or undefined when it is not YAML (the provider says what is wrong then). */
function contextNames(text: string): string[] | undefined {
    let parsed: unknown;
    try {
        parsed = YAML.parse(text);
    } catch {
        return undefined;
    }
    const contexts = parsed !== null && typeof parsed === "object" ? (parsed as { contexts?: unknown }).contexts : undefined;
    return Array.isArray(contexts) ? contexts.map((c) => (c as { name?: unknown } | null)?.name).filter((n): n is string => typeof n === "string") : [];
}

/**
 * The issue when `context` is set and the kubeconfig holds no context of that name; none when it
 * does, when no context is set (the current one is used), or when no kubeconfig file can be read
 * (a missing one is a credential problem, reported where credentials are checked).
 */
export function kubeContextIssues(local: { kubeconfig?: string; context?: string }, env: Record<string, string | undefined>, home: string, read: ReadFile): ConfigIssue[] {
    if (local.context === undefined) {
        return [];
    }
    const { files, source } = kubeconfigFiles(local.kubeconfig, env, home);
    const texts = files.map(read).filter((t): t is string => t !== undefined);
    const names = texts.map(contextNames);
    if (texts.length === 0 || names.some((n) => n === undefined)) {
        return [];
    }
    const held = [...new Set(names.flatMap((n) => n ?? []))];
    if (held.includes(local.context)) {
        return [];
    }
    return [{
        key: "kubeContext", value: local.context,
        expected: `is not a context of ${source}, which ${held.length === 0 ? "has no contexts" : `has ${held.map((n) => JSON.stringify(n)).join(", ")}`}: `
            + "name one of its contexts (`kubectl config get-contexts` lists them), point tf-serving:kubeconfig at the file that holds it, "
            + "or remove kubeContext to use the current context (see docs/reference/configuration.md)",
    }];
}
