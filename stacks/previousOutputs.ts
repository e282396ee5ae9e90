/**
 * What this stack exported at its last update, read back through a `StackReference` to itself:
 * how the program knows, at preview, what a change changes from (the settings a running cluster
 * must keep, the image each model ran). A stack never updated, or one run under mocks, has none;
 * offline (`tfs plan`: no engine, no backend) nothing is read. One per program run: it registers
 * the reference.
 */
import * as pulumi from "@pulumi/pulumi";

export class PreviousOutputs {
    private readonly self?: pulumi.StackReference;

    constructor(readonly offline: boolean) {
        this.self = offline ? undefined : new pulumi.StackReference("previous-outputs", {
            name: `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`,
        });
    }

    /**
     * The output `name` of the last update (undefined when there is none). One output, not
     * `outputs`: the whole map is secret as soon as one output is (a kubeconfig), and a secret would
     * turn every input derived from it into one.
     */
    output(name: string): pulumi.Output<unknown> {
        return this.self === undefined ? pulumi.output(undefined) : this.self.getOutput(name);
    }

    /** The same, awaited before anything else is registered. */
    async value(name: string): Promise<unknown> {
        return this.self === undefined ? undefined : (await this.self.getOutputDetails(name)).value;
    }
}
