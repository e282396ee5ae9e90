/**
 * Where a stack's model servers run, from its outputs and config: the `kubeconfig` output (cloud
 * stacks, a secret), else the `kubeconfig`/`kubeContext` config (local stacks; unset means the
 * ambient kubeconfig), and the namespace.
 */
import * as path from "path";
import { ClusterTarget } from "./collector";

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
