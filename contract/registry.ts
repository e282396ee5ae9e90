/**
 * A repository path under a registry host (`tf-serving`, `team/models`), as the OCI distribution
 * spec's name grammar allows it and ECR accepts it: lowercase components joined by `/`.
 */
export const REPOSITORY_PATH = /^[a-z0-9]+([._-][a-z0-9]+)*(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;

/**
 * The `.dockerconfigjson` of a `kubernetes.io/dockerconfigjson` Secret: one login for one registry
 * host, keyed by the host as written in image references (`127.0.0.1:5001`, `registry.example.com`),
 * which is how the kubelet matches an image to its credentials.
 */
export function dockerConfigJson(server: string, username: string, password: string): string {
    const auth = Buffer.from(`${username}:${password}`).toString("base64");
    return JSON.stringify({ auths: { [server]: { username, password, auth } } });
}

/** `NAME[:TAG]@sha256:<64 hex>`: an image reference that can only ever mean one image (the policy pack refuses any other). */
export const DIGEST_PINNED_IMAGE = /^[^\s@]+@sha256:[0-9a-f]{64}$/;
