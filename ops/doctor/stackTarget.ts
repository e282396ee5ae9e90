/**
 * Where a stack's model servers run, from its outputs and config: the `kubeconfig` output (cloud
 * stacks, a secret), else the `kubeconfig`/`kubeContext` config (local stacks; unset means the
 * ambient kubeconfig), and the namespace.
 */
import * as path from "path";
import { ClusterTarget } from "./collector";
import { ModelEndpoints } from "./endpointProbe";

type Values = Record<string, { value: unknown } | undefined>;

/** The namespace the program uses when the stack does not set one (`Pulumi.yaml`). */
export const DEFAULT_NAMESPACE = "tf-serving";

export function targetFromStack(args: {
    outputs: Values;
    config: Values;
    project: string;
    projectDir: string;
    /** `--namespace` given beside `--stack`; it wins. */
    namespace?: string;
}): ClusterTarget {
    const setting = (key: string): string | undefined => {
        const v = args.config[`${args.project}:${key}`]?.value;
        return typeof v === "string" && v !== "" ? v : undefined;
    };
    const output = args.outputs.kubeconfig?.value;
    const namespaceOutput = args.outputs.namespace?.value;
    const namespace = args.namespace
        ?? (typeof namespaceOutput === "string" && namespaceOutput !== "" ? namespaceOutput : undefined)
        ?? setting("namespace")
        ?? DEFAULT_NAMESPACE;
    if (typeof output === "string" && output !== "") {
        return { kubeconfigText: output, namespace };
    }
    if (output !== null && typeof output === "object") {
        // A kubeconfig exported as an object is still valid kubeconfig text once written as JSON.
        return { kubeconfigText: JSON.stringify(output), namespace };
    }
    const file = setting("kubeconfig");
    return {
        kubeconfigFile: file === undefined ? undefined : path.resolve(args.projectDir, file),
        context: setting("kubeContext"),
        namespace,
    };
}

/**
 * Where each model of a stack is served, from its `models` output (each model's `restUrl` and
 * `grpcEndpoint`), else (a stack without it) its `restUrl` and `grpcEndpoint` for every model. The gRPC endpoint is TLS
 * where the REST one is https (a Gateway with a certificate serves both). Empty for a stack with none.
 */
export function endpointsFromStack(outputs: Values): { models?: Record<string, ModelEndpoints>; fallback?: ModelEndpoints } {
    const endpoints = (value: unknown): ModelEndpoints | undefined => {
        const { restUrl, grpcEndpoint, grpcAuthority } = (value ?? {}) as { restUrl?: unknown; grpcEndpoint?: unknown; grpcAuthority?: unknown };
        const rest = typeof restUrl === "string" && restUrl !== "" ? restUrl : undefined;
        const grpc = typeof grpcEndpoint === "string" && grpcEndpoint !== "" ? grpcEndpoint : undefined;
        const authority = typeof grpcAuthority === "string" && grpcAuthority !== "" ? { grpcAuthority } : {};
        return rest === undefined && grpc === undefined ? undefined
            : { ...(rest === undefined ? {} : { restUrl: rest }), ...(grpc === undefined ? {} : { grpcEndpoint: grpc, tls: /^https:/i.test(rest ?? ""), ...authority }) };
    };
    const models = outputs.models?.value;
    const byModel = models !== null && typeof models === "object" && !Array.isArray(models)
        ? Object.fromEntries(Object.entries(models).flatMap(([name, value]) => {
            const found = endpoints(value);
            return found === undefined ? [] : [[name, found]];
        }))
        : {};
    if (Object.keys(byModel).length > 0) {
        return { models: byModel };
    }
    const fallback = endpoints({ restUrl: outputs.restUrl?.value, grpcEndpoint: outputs.grpcEndpoint?.value });
    return fallback === undefined ? {} : { fallback };
}
