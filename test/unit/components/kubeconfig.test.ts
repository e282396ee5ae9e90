import * as assert from "assert";
import { parse } from "yaml";
import { KubeconfigCluster, renderKubeconfig } from "../../../components/kubeconfig";

const cluster: KubeconfigCluster = {
    contextName: "gke_my-project_us-central1_tf-serving",
    server: "198.51.100.1",
    certificateAuthorityData: "Q0EK",
};

describe("renderKubeconfig", () => {
    it("writes one cluster, user and context, with the CA and an https server", () => {
        const kc = parse(renderKubeconfig(cluster, { kind: "gke" }));
        assert.strictEqual(kc.kind, "Config");
        assert.strictEqual(kc["current-context"], cluster.contextName);
        assert.deepStrictEqual(kc.clusters, [{ name: cluster.contextName, cluster: { server: "https://198.51.100.1", "certificate-authority-data": "Q0EK" } }]);
        assert.deepStrictEqual(kc.contexts, [{ name: cluster.contextName, context: { cluster: cluster.contextName, user: cluster.contextName } }]);
        assert.strictEqual(kc.users.length, 1);
    });

    it("keeps a server that already has a scheme (EKS endpoints do)", () => {
        const kc = parse(renderKubeconfig({ ...cluster, server: "https://ABC.gr7.us-west-2.eks.amazonaws.com" }, { kind: "gke" }));
        assert.strictEqual(kc.clusters[0].cluster.server, "https://ABC.gr7.us-west-2.eks.amazonaws.com");
    });

    it("GKE: exec credentials from gke-gcloud-auth-plugin, no token in the file", () => {
        const text = renderKubeconfig(cluster, { kind: "gke" });
        const exec = parse(text).users[0].user.exec;
        assert.strictEqual(exec.command, "gke-gcloud-auth-plugin");
        assert.strictEqual(exec.apiVersion, "client.authentication.k8s.io/v1beta1");
        assert.strictEqual(exec.provideClusterInfo, true);
        assert.doesNotMatch(text, /token:|password:/);
    });

    it("EKS: exec `aws eks get-token --cluster-name N --region R`", () => {
        const exec = parse(renderKubeconfig(cluster, { kind: "eks", clusterName: "tf-serving", region: "us-west-2" })).users[0].user.exec;
        assert.strictEqual(exec.command, "aws");
        assert.deepStrictEqual(exec.args, ["eks", "get-token", "--cluster-name", "tf-serving", "--region", "us-west-2", "--output", "json"]);
        assert.strictEqual(exec.env, undefined);
    });

    it("EKS with a profile: AWS_PROFILE in the exec environment", () => {
        const exec = parse(renderKubeconfig(cluster, { kind: "eks", clusterName: "c", region: "eu-west-1", profile: "prod" })).users[0].user.exec;
        assert.deepStrictEqual(exec.env, [{ name: "AWS_PROFILE", value: "prod" }]);
    });

    it("is the same text for the same inputs, and changes when the cluster does", () => {
        const auth = { kind: "eks", clusterName: "c", region: "us-west-2" } as const;
        assert.strictEqual(renderKubeconfig({ ...cluster }, auth), renderKubeconfig({ ...cluster }, { ...auth }));
        assert.notStrictEqual(renderKubeconfig({ ...cluster, certificateAuthorityData: "T1RIRVIK" }, auth), renderKubeconfig(cluster, auth));
        assert.notStrictEqual(renderKubeconfig(cluster, { ...auth, region: "us-east-1" }), renderKubeconfig(cluster, auth));
    });
});
