import * as assert from "assert";
import * as k8s from "@pulumi/kubernetes";
import { renderGkeGatewayObjects } from "../../../../../components/clouds/gcp/gateway";
import { ModelGateway } from "../../../../../components/modelGateway";
import { startMockRuntime } from "../../../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const NAME = "half-plus-two";
const GKE = { name: NAME, labels: { app: "m" }, className: "gke-l7-global-external-managed", platform: "gke" as const, certificateMap: "tfs-map" };
const IAP = { clientID: "123456789012-abc123def456.apps.googleusercontent.com", oauth2ClientSecretName: "iap-oauth" };
const BACKEND_POLICY = "kubernetes:networking.gke.io/v1:GCPBackendPolicy";

describe("GKE Gateway: the GCPBackendPolicy of source ranges and IAP", () => {
    it("without source ranges or IAP nothing new: the health checks only, as before", () => {
        for (const canaryService of [undefined, `${NAME}-canary`]) {
            const objects = renderGkeGatewayObjects({ ...GKE, canaryService });
            assert.strictEqual(objects.gcpBackendPolicy, undefined);
            assert.strictEqual(objects.canaryGcpBackendPolicy, undefined);
            assert.deepStrictEqual(objects.policies.map((p) => p.suffix), canaryService ? ["canary-health-check", "health-check"] : ["health-check"]);
        }
    });

    it("the Cloud Armor policy alone, or IAP alone: the policy carries just that", () => {
        const armor = renderGkeGatewayObjects({ ...GKE, sourceRanges: ["203.0.113.0/24"], securityPolicy: "tfs-policy" }).gcpBackendPolicy;
        assert.deepStrictEqual((armor?.spec as any).default, { securityPolicy: "tfs-policy" });
        const iap = renderGkeGatewayObjects({ ...GKE, iap: IAP }).gcpBackendPolicy;
        assert.deepStrictEqual((iap?.spec as any).default, { iap: { enabled: true, clientID: IAP.clientID, oauth2ClientSecret: { name: "iap-oauth" } } });
        assert.deepStrictEqual(iap?.metadata, { name: NAME, labels: { app: "m" } });
    });

    it("registered before the routes, the canary's as the canary's own: no route sends a request to a Service its checks do not cover yet", () => {
        const { policies } = renderGkeGatewayObjects({ ...GKE, canaryService: `${NAME}-canary`, securityPolicy: "tfs-policy", sourceRanges: ["203.0.113.0/24"] });
        const backend = policies.filter((p) => p.object.kind === "GCPBackendPolicy");
        assert.deepStrictEqual(backend.map((p) => [p.suffix, p.before, p.canary ?? false]), [["canary-backend-policy", "routes", true], ["backend-policy", "routes", false]]);
    });

    it("refuses source ranges without the Cloud Armor policy that enforces them: on GKE nothing else would", () => {
        assert.throws(() => renderGkeGatewayObjects({ ...GKE, sourceRanges: ["203.0.113.0/24"] }),
            /^Error: GKE Gateway half-plus-two: securityPolicy is required with sourceRanges on GKE.*docs\/guides\/endpoint-security\.md#gke/);
    });

    it("refuses IAP with a malformed client ID, a secret where the Secret's name goes (never repeating it), or no HTTPS", () => {
        const secret = "GOCSPX-AbCdEf_0123456789";
        assert.throws(() => renderGkeGatewayObjects({ ...GKE, iap: { clientID: "my-client", oauth2ClientSecretName: "iap-oauth" } }),
            /iap\.clientID must be the OAuth 2\.0 client's ID, `NUMBER-ID\.apps\.googleusercontent\.com`/);
        assert.throws(() => renderGkeGatewayObjects({ ...GKE, iap: { ...IAP, oauth2ClientSecretName: secret } }),
            (err: Error) => /iap\.oauth2ClientSecretName must name a Secret in the namespace.*not the secret itself/.test(err.message) && !err.message.includes(secret));
        assert.throws(() => renderGkeGatewayObjects({ ...GKE, certificateMap: undefined, iap: IAP }), /iap needs HTTPS/);
    });

    it("ModelGateway registers both policies, the routes wait for them, the canary's is its own child", async () => {
        const rec = await startMockRuntime({ state: ({ type }) => (type.endsWith(":Gateway") ? { status: { addresses: [{ value: "192.0.2.9" }] } } : undefined) });
        const provider = new k8s.Provider("test", {});
        new ModelGateway(NAME, {
            model: NAME, namespace: "serving", className: GKE.className, platform: "gke", certificateMap: "tfs-map",
            securityPolicy: "tfs-policy", iap: IAP, canary: true,
        }, { provider });
        await rec.settle();
        const policies = rec.ofType(BACKEND_POLICY);
        assert.deepStrictEqual(policies.map((p) => [p.name, (p.inputs as any).metadata.namespace, (p.inputs as any).spec.targetRef.name]).sort(), [
            [`${NAME}-backend-policy`, "serving", NAME], [`${NAME}-canary-backend-policy`, "serving", `${NAME}-canary`],
        ]);
        const route = rec.one("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute");
        for (const p of policies) {
            assert.ok(route.dependsOn.includes(`${BACKEND_POLICY}::${p.name}`), p.name);
        }
        assert.deepStrictEqual(rec.one(BACKEND_POLICY, "canary").aliasParents, [], "the canary's policy was never ModelServer's");
    });
});
