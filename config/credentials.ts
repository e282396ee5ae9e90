/**
 * Is there a credential for the target at all? Checked before anything is registered, so a
 * missing kubeconfig or cloud login stops the preview with the fix, instead of a provider error
 * halfway through an update.
 *
 * Only the presence of a source is checked (a file, an environment variable), never its validity:
 * that needs the network, and the providers say it well enough. On a VM that takes its cloud
 * credentials from the instance metadata (no file, no variable), set `TFS_INSTANCE_CREDENTIALS=1`.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ServingConfig } from "./config";

type Env = Record<string, string | undefined>;

/** Problems with where credentials come from; empty when every source the stack needs is there. */
export function credentialProblems(config: ServingConfig, env: Env = process.env, home: string = os.homedir()): string[] {
    switch (config.cloud) {
        case "local":
            return kubeconfigProblems(config.local.kubeconfig, env, home);
        case "gcp":
            return env.TFS_INSTANCE_CREDENTIALS === "1" || hasGoogleCredentials(env, home) ? [] : [
                "no Google Cloud credentials: run `gcloud auth application-default login` (a workstation), or set " +
                "GOOGLE_APPLICATION_CREDENTIALS to a credentials file (CI: google-github-actions/auth does); on a VM using its " +
                "service account, set TFS_INSTANCE_CREDENTIALS=1",
            ];
        case "aws":
            return env.TFS_INSTANCE_CREDENTIALS === "1" || hasAwsCredentials(env, home, config.eks.profile) ? [] : [
                `no AWS credentials${config.eks.profile ? ` for profile "${config.eks.profile}" (tf-serving:eks.profile)` : ""}: run ` +
                "`aws configure` or `aws sso login`, or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (CI: aws-actions/configure-aws-credentials " +
                "does); on an instance with a role, set TFS_INSTANCE_CREDENTIALS=1",
            ];
    }
}

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

function hasGoogleCredentials(env: Env, home: string): boolean {
    if (env.GOOGLE_CREDENTIALS || env.GOOGLE_OAUTH_ACCESS_TOKEN || env.CLOUDSDK_AUTH_ACCESS_TOKEN) {
        return true;
    }
    if (env.GOOGLE_APPLICATION_CREDENTIALS) {
        return fs.existsSync(env.GOOGLE_APPLICATION_CREDENTIALS);
    }
    const gcloudDir = env.CLOUDSDK_CONFIG ?? path.join(home, ".config", "gcloud");
    return fs.existsSync(path.join(gcloudDir, "application_default_credentials.json"));
}

function hasAwsCredentials(env: Env, home: string, profile: string | undefined): boolean {
    if (!profile && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
        return true;
    }
    if (env.AWS_WEB_IDENTITY_TOKEN_FILE || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI) {
        return true;
    }
    const wanted = profile ?? env.AWS_PROFILE ?? "default";
    const files = [env.AWS_SHARED_CREDENTIALS_FILE ?? path.join(home, ".aws", "credentials"), env.AWS_CONFIG_FILE ?? path.join(home, ".aws", "config")];
    return files.some((file) => {
        try {
            const text = fs.readFileSync(file, "utf8");
            return new RegExp(`^\\[(profile )?${wanted.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\]`, "m").test(text);
        } catch {
            return false;
        }
    });
}
