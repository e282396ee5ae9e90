/**
 * What this stack exported at its last update, read back through a `StackReference` to itself:
 * how the program knows, at preview, what a change changes from. A stack never updated (or one
 * run under mocks, as `tfs plan` runs it) has none. Call once per program: it registers the reference.
 */
import * as pulumi from "@pulumi/pulumi";

/** Reads outputs of this stack's last update; each is undefined when there is none. */
export function previousOutputs(): (name: string) => pulumi.Output<unknown> {
    const self = new pulumi.StackReference("previous-outputs", {
        name: `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`,
    });
    // One output at a time, not `outputs`: the whole map is secret as soon as one output is (a
    // kubeconfig), and a secret would turn every input derived from it into one.
    return (name) => self.getOutput(name);
}
