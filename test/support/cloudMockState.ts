/**
 * Output state the clouds compute for resources the GKE/EKS components read back (service account
 * emails, role ARNs, repository names), for `startMockRuntime({ state: cloudMockState })`.
 */
export const MOCK_ACCOUNT = "123456789012";

export function cloudMockState(r: { type: string; name: string; inputs: Record<string, unknown> }): Record<string, unknown> | undefined {
    switch (r.type) {
        case "gcp:serviceaccount/account:Account":
            return { email: `${r.inputs.accountId}@${r.inputs.project}.iam.gserviceaccount.com` };
        case "gcp:artifactregistry/repository:Repository":
            return { name: r.inputs.repositoryId };
        case "aws:iam/role:Role":
            return { name: r.name, arn: `arn:aws:iam::${MOCK_ACCOUNT}:role/${r.name}` };
        default:
            return undefined;
    }
}
