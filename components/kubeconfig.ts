/**
 * The one kubeconfig renderer for the clusters this project creates.
 *
 * The Kubernetes provider is built from this text, and a provider whose kubeconfig changes (or turns
 * unknown in a preview) is replaced together with everything deployed through it. So the text depends
 * only on what identifies the cluster (API endpoint, CA, names, region) and on nothing that moves
 * with node pools or other settings, and it holds no token: credentials come from an exec plugin
 * (`gke-gcloud-auth-plugin`, `aws eks get-token`) each time a client connects.
 */
import * as pulumi from "@pulumi/pulumi";
import { stringify } from "yaml";

export interface KubeconfigCluster {
    /** Name of the kubeconfig's cluster, user and context entries (gcloud's `gke_PROJECT_LOCATION_NAME`, or the EKS cluster ARN as `aws eks update-kubeconfig` writes). */
    contextName: string;
    /** API server address; a bare host or IP (GKE's `endpoint`) gets `https://`. */
    server: string;
    /** Base64-encoded PEM of the cluster CA, as the cloud API returns it. */
    certificateAuthorityData: string;
}

/** How clients get a token: GKE's auth plugin, or the AWS CLI for an EKS cluster. */
export type KubeconfigAuth =
    | { kind: "gke" }
    | {
        kind: "eks";
        /** EKS cluster name (not the ARN). */
        clusterName: string;
        region: string;
        /** AWS CLI profile the token is requested with; unset means the ambient credentials. */
        profile?: string;
    };

const EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1";

/** The `users[].user.exec` block for `auth`. */
export function execCredential(auth: KubeconfigAuth): Record<string, unknown> {
    if (auth.kind === "gke") {
        return {
            apiVersion: EXEC_API_VERSION,
            command: "gke-gcloud-auth-plugin",
            installHint: "Install the GKE auth plugin: gcloud components install gke-gcloud-auth-plugin",
            provideClusterInfo: true,
        };
    }
    return {
        apiVersion: EXEC_API_VERSION,
        command: "aws",
        args: ["eks", "get-token", "--cluster-name", auth.clusterName, "--region", auth.region, "--output", "json"],
        ...(auth.profile === undefined ? {} : { env: [{ name: "AWS_PROFILE", value: auth.profile }] }),
        installHint: "Install the AWS CLI v2 and configure credentials that have an access entry on this cluster",
    };
}

/** Renders a kubeconfig with one cluster, one user and one context. Same inputs, same text. */
export function renderKubeconfig(cluster: KubeconfigCluster, auth: KubeconfigAuth): string {
    const name = cluster.contextName;
    const server = /^https?:\/\//.test(cluster.server) ? cluster.server : `https://${cluster.server}`;
    return stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name, cluster: { server, "certificate-authority-data": cluster.certificateAuthorityData } }],
        users: [{ name, user: { exec: execCredential(auth) } }],
        contexts: [{ name, context: { cluster: name, user: name } }],
        "current-context": name,
        preferences: {},
    });
}

/** `renderKubeconfig` over outputs, as a secret (the CA and endpoint are not for public stack outputs). */
export function kubeconfigOutput(
    cluster: { [K in keyof KubeconfigCluster]: pulumi.Input<string> },
    auth: KubeconfigAuth,
): pulumi.Output<string> {
    return pulumi.secret(pulumi.output(cluster).apply((c) => renderKubeconfig(c, auth)));
}
