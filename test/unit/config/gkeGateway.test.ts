import * as assert from "assert";
import { readConfig } from "../../../config/config";
import { ConfigError, ConfigIssue } from "../../../config/configReader";

/* `endpoint: gateway` on gcp: loadBalancerSourceRanges (a Cloud Armor policy) and `gateway.auth` (IAP), as the
 * config layer reads them. The cloud's own limits are stated, with their sources, in
 * test/unit/components/clouds/gcp/cloudArmor.test.ts and gatewayAdmission.test.ts. */

const PROJECT = "tf-serving";
const GCP = { modelPath: "models/half_plus_two", cloud: "gcp", gke: { project: "my-project", region: "us-central1" }, endpoint: "gateway" };
const CLIENT_ID = "123456789012-abc123def456.apps.googleusercontent.com";
const IAP = { type: "iap", clientID: CLIENT_ID, oauth2ClientSecret: { name: "iap-oauth" } };
const SECRET = "GOCSPX-AbCdEf_0123456789";

function cfg(values: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(Object.entries(values).map(([k, v]) => [`${PROJECT}:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
}

function read(values: Record<string, unknown>) {
    return readConfig(cfg({ ...GCP, ...values }), PROJECT, "/project");
}

function issues(values: Record<string, unknown>): ConfigIssue[] {
    try {
        read(values);
    } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.issues;
    }
    return assert.fail("expected the configuration to be refused");
}

/** Each issue as the preview prints it: `key: expected`, the value as ConfigError shows it. */
const lines = (values: Record<string, unknown>) => issues(values).map((i) => `${i.key} = ${JSON.stringify(i.value)}: ${i.expected}`).join("\n");

describe("endpoint gateway on gcp: source ranges and IAP", () => {
    it("takes loadBalancerSourceRanges (a Cloud Armor policy the stack creates); without them the endpoint must be public on purpose", () => {
        const c = read({ gateway: { certificateMap: "tfs-map" }, loadBalancerSourceRanges: ["203.0.113.0/24", "2001:db8::/32"] });
        assert.deepStrictEqual(c.service.sourceRanges, ["203.0.113.0/24", "2001:db8::/32"]);
        assert.deepStrictEqual(c.service.gateway, { className: "gke-l7-global-external-managed", tlsSecretName: undefined, platform: "gke", certificateMap: "tfs-map" },
            "nothing new in the settings: the stack adds the policy's name");
        assert.match(lines({ gateway: { certificateMap: "tfs-map" } }), /^publicEndpoint = undefined: with `endpoint: gateway` on gcp and no loadBalancerSourceRanges the load balancer is open to every address: list the CIDRs allowed in loadBalancerSourceRanges \(a Cloud Armor policy\)/m);
    });

    it("a malformed range is refused by the CIDR check, each by its index", () => {
        assert.match(lines({ gateway: { certificateMap: "tfs-map" }, loadBalancerSourceRanges: ["203.0.113.0/24", "10.1.2.3/8", "300.0.0.0/8"] }),
            /^loadBalancerSourceRanges\[1\] = "10\.1\.2\.3\/8": has host bits set; the block is 10\.0\.0\.0\/8\nloadBalancerSourceRanges\[2\] = "300\.0\.0\.0\/8": must be a CIDR/m);
    });

    it("more ranges than one Cloud Armor policy holds within the default quota: one line, nothing deployed", () => {
        const many = Array.from({ length: 1991 }, (_, i) => `198.18.${Math.floor(i / 256)}.${i % 256}/32`);
        const found = issues({ gateway: { certificateMap: "tfs-map" }, loadBalancerSourceRanges: many });
        assert.deepStrictEqual(found.map((i) => i.key), ["loadBalancerSourceRanges"]);
        assert.match(found[0].expected, /^lists 1991 ranges; .*Cloud Armor policy, 10 ranges a rule.*list at most 1990/);
        assert.doesNotThrow(() => read({ gateway: { certificateMap: "tfs-map" }, loadBalancerSourceRanges: many.slice(0, 1990) }));
    });

    it("gateway.auth type iap: the OAuth client's ID and its Secret's name, into the Gateway's settings", () => {
        const c = read({ gateway: { certificateMap: "tfs-map", auth: IAP }, publicEndpoint: "true" });
        assert.deepStrictEqual(c.service.gateway, {
            className: "gke-l7-global-external-managed", tlsSecretName: undefined, platform: "gke", certificateMap: "tfs-map",
            iap: { clientID: CLIENT_ID, oauth2ClientSecretName: "iap-oauth" },
        });
        assert.ok(c.cloud === "gcp");
        const withoutType = read({ gateway: { certificateMap: "tfs-map", auth: { clientID: CLIENT_ID, oauth2ClientSecret: { name: "iap-oauth" } } }, publicEndpoint: "true" });
        assert.deepStrictEqual(withoutType.service.gateway, c.service.gateway, "iap is GKE's one type, the default");
    });

    it("refuses an OAuth client secret written into the config, as the value or beside the name, never repeating it", () => {
        for (const auth of [
            { ...IAP, oauth2ClientSecret: SECRET },
            { ...IAP, oauth2ClientSecret: { name: "iap-oauth", value: SECRET } },
            { ...IAP, oauth2ClientSecret: { name: SECRET } },
            { ...IAP, clientSecret: SECRET },
        ]) {
            const text = lines({ gateway: { certificateMap: "tfs-map", auth }, publicEndpoint: "true" });
            assert.ok(!text.includes(SECRET), text);
            assert.strictEqual(text.split("\n").length, 1, text);
            assert.match(text, /^gateway\.auth\.(oauth2ClientSecret(\.name)?|clientSecret) = "\(not shown\)": /, text);
        }
        assert.match(lines({ gateway: { certificateMap: "tfs-map", auth: { ...IAP, oauth2ClientSecret: SECRET } }, publicEndpoint: "true" }),
            /must be `\{name: SECRET\}`, the name of a Secret in the namespace .*never the secret itself.*kubectl create secret generic iap-oauth --from-file=key=FILE/);
        assert.match(lines({ gateway: { certificateMap: "tfs-map", auth: { ...IAP, clientSecret: SECRET } }, publicEndpoint: "true" }), /unknown key: known keys are type, clientID, oauth2ClientSecret/);
    });

    it("refuses a malformed client ID, a missing one or a missing Secret, and a type GKE has no implementation of", () => {
        assert.match(lines({ gateway: { certificateMap: "tfs-map", auth: { ...IAP, clientID: "my-app" } }, publicEndpoint: "true" }),
            /^gateway\.auth\.clientID = "my-app": must be the OAuth 2\.0 client's ID, `NUMBER-ID\.apps\.googleusercontent\.com`/);
        assert.deepStrictEqual(issues({ gateway: { certificateMap: "tfs-map", auth: { type: "iap" } }, publicEndpoint: "true" }).map((i) => i.key),
            ["gateway.auth.clientID", "gateway.auth.oauth2ClientSecret"]);
        assert.match(lines({ gateway: { certificateMap: "tfs-map", auth: { ...IAP, type: "basic" } }, publicEndpoint: "true" }), /^gateway\.auth\.type = "basic": must be one of "iap"/);
        assert.match(lines({ gateway: { certificateMap: "tfs-map", auth: "iap" }, publicEndpoint: "true" }), /^gateway\.auth = "iap": must be an object/);
    });
});
