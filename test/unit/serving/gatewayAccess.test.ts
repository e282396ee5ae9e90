import * as assert from "assert";
import { createHash } from "crypto";
import { grpcHostnameFor, hostnameProblem, hostnameTemplateProblem, htpasswdProblem, sourceRangeIssues } from "../../../serving/gatewayAccess";
import { renderGenericGateway, restMatches } from "../../../serving/gateway";

/* eslint-disable @typescript-eslint/no-explicit-any */
const sha = (user: string, password: string) => `${user}:{SHA}${createHash("sha1").update(password).digest("base64")}`;
// `openssl passwd -apr1 -salt abcdefgh s3cret`
const APR1 = "bob:$apr1$abcdefgh$M2T3erDstkD7SsE2QQnfH0";
const BCRYPT = "carol:$2y$05$" + "a".repeat(22) + "b".repeat(31);

describe("who may call a model behind a Gateway (serving/gatewayAccess.ts)", () => {
    describe("htpasswdProblem: the callers' lines", () => {
        it("takes bcrypt, Apache MD5 and SHA1 lines, blank lines and CRLF aside", () => {
            assert.strictEqual(htpasswdProblem([sha("alice", "pw"), APR1, BCRYPT].join("\r\n") + "\n\n"), undefined);
        });

        it("refuses a plain password, naming the line but never its content", () => {
            const problem = htpasswdProblem(`${sha("alice", "pw")}\nbob:hunter2`);
            assert.match(problem ?? "", /^line 2 is not `user:HASH`.*htpasswd -nbB/);
            assert.doesNotMatch(problem ?? "", /hunter2/);
        });

        it("refuses an empty list, a caller named twice, and more than 100 callers", () => {
            assert.match(htpasswdProblem(" \n") ?? "", /holds no caller/);
            assert.match(htpasswdProblem(`${sha("alice", "a")}\n${sha("alice", "b")}`) ?? "", /names the caller "alice" twice/);
            const many = Array.from({ length: 101 }, (_, i) => sha(`u${i}`, "pw")).join("\n");
            assert.match(htpasswdProblem(many) ?? "", /holds 101 callers, more than 100/);
        });

        it("takes the offline plan's placeholder for a secret it cannot decrypt", () => {
            assert.strictEqual(htpasswdProblem("[secret]"), undefined);
        });
    });

    describe("the gRPC host", () => {
        it("a DNS name, optionally a wildcard; no IP, no port, no uppercase", () => {
            assert.strictEqual(hostnameProblem("two.models.example.com"), undefined);
            assert.strictEqual(hostnameProblem("*.models.example.com"), undefined);
            for (const bad of ["127.0.0.1", "two.example.com:8500", "Two.example.com", "two_models.example.com", ""]) {
                assert.match(hostnameProblem(bad) ?? "", /must be a DNS name/, bad);
            }
        });

        it("a template fills {model} with each model's name", () => {
            assert.strictEqual(grpcHostnameFor("{model}.grpc.example.com", "two"), "two.grpc.example.com");
            assert.strictEqual(hostnameTemplateProblem("{model}.grpc.example.com"), undefined);
            assert.match(hostnameTemplateProblem("{Model}.grpc.example.com") ?? "", /must be a DNS name/);
        });
    });

    it("sourceRangeIssues names each malformed range by its index", () => {
        assert.deepStrictEqual(sourceRangeIssues(["203.0.113.0/24", "10.0.0.1/8", "2001:db8::/32", "nope"]).map((i) => i.field), ["sourceRanges[1]", "sourceRanges[3]"]);
    });
});

describe("the generic Gateway's routes (serving/gateway.ts)", () => {
    const base = { name: "two", labels: { app: "two" }, className: "tfs-e2e-traefik" };

    it("REST is routed by the model's own paths, so two models on one address never take each other's requests", () => {
        const paths = restMatches("two").map((m: any) => `${m.path.type} ${m.path.value}`);
        assert.deepStrictEqual(paths, ["PathPrefix /v1/models/two", "Exact /v1/models/two:predict", "Exact /v1/models/two:classify", "Exact /v1/models/two:regress"]);
        const route = renderGenericGateway(base).httpRoute.spec as any;
        assert.deepStrictEqual(route.rules[0].matches, restMatches("two"));
        // A PathPrefix matches whole path elements (gateway-api apis/v1/httproute_types.go, PathMatchPathPrefix), as Traefik
        // renders it: Path("/v1/models/two") || PathPrefix("/v1/models/two/") (traefik pkg/provider/kubernetes/gateway/httproute.go, buildPathRule).
        const matched = (p: string) => p === "/v1/models/two" || p.startsWith("/v1/models/two/") || ["predict", "classify", "regress"].some((m) => p === `/v1/models/two:${m}`);
        for (const own of ["/v1/models/two", "/v1/models/two:predict", "/v1/models/two/versions/3:predict", "/v1/models/two/labels/stable:classify", "/v1/models/two/metadata"]) {
            assert.ok(matched(own), own);
        }
        for (const other of ["/v1/models/one:predict", "/v1/models/twofold:predict", "/v1/models/tw:predict", "/monitoring/prometheus/metrics"]) {
            assert.ok(!matched(other), other);
        }
    });

    it("a gRPC host goes on the GRPCRoute only: REST stays reachable at the address", () => {
        const objects = renderGenericGateway({ ...base, grpcHostname: "two.grpc.example.com" });
        assert.deepStrictEqual((objects.grpcRoute?.spec as any).hostnames, ["two.grpc.example.com"]);
        assert.strictEqual((objects.httpRoute.spec as any).hostnames, undefined);
    });

    it("without the controller named, no Middleware and no filter, whatever the ranges (the config layer refuses them)", () => {
        const objects = renderGenericGateway({ ...base, sourceRanges: ["10.0.0.0/8"] });
        assert.deepStrictEqual(objects.policies, []);
        assert.strictEqual((objects.httpRoute.spec as any).rules[0].filters, undefined);
    });

    it("with Traefik: an ipAllowList and a basicAuth Middleware, referenced in that order from every rule of both routes, the canary's backend in the same rules", () => {
        const objects = renderGenericGateway({ ...base, controller: "traefik", sourceRanges: ["127.0.0.0/8"], basicAuthSecret: "two-callers", canaryService: "two-canary" });
        assert.deepStrictEqual(objects.policies.map((p) => [p.suffix, p.object.kind, p.object.metadata.name, p.before]), [
            ["source-ranges", "Middleware", "two-source-ranges", "routes"], ["basic-auth", "Middleware", "two-basic-auth", "routes"],
        ]);
        assert.deepStrictEqual(objects.policies[0].object.spec, { ipAllowList: { sourceRange: ["127.0.0.0/8"] } });
        assert.deepStrictEqual(objects.policies[1].object.spec, { basicAuth: { secret: "two-callers", realm: "tf-serving", removeHeader: true } });
        assert.strictEqual(objects.policies[0].object.apiVersion, "traefik.io/v1alpha1");
        for (const route of [objects.httpRoute, objects.grpcRoute!]) {
            for (const rule of (route.spec as any).rules) {
                assert.deepStrictEqual(rule.filters.map((f: any) => [f.type, f.extensionRef.group, f.extensionRef.kind, f.extensionRef.name]),
                    [["ExtensionRef", "traefik.io", "Middleware", "two-source-ranges"], ["ExtensionRef", "traefik.io", "Middleware", "two-basic-auth"]]);
                assert.deepStrictEqual(rule.backendRefs.map((b: any) => b.name), ["two", "two-canary"]);
            }
        }
    });

    it("with Traefik and nothing to enforce, the routes of any other controller", () => {
        assert.deepStrictEqual(renderGenericGateway({ ...base, controller: "traefik" }), renderGenericGateway(base));
    });
});
