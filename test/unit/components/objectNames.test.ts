/**
 * The Kubernetes objects' names are valid whatever the component's own Pulumi name is. A Pulumi
 * YAML program names its resources in camelCase (`twoServer`); the API server refuses an object
 * whose `metadata.name` is no DNS-1123 subdomain (k8s.io/apimachinery
 * `pkg/util/validation/validation.go`, `IsDNS1123Subdomain`: lowercase letters, digits, '-' and '.',
 * alphanumeric at both ends, at most 253 characters; a ConfigMap's name is checked with it,
 * `ValidateConfigMapName` = `NameIsDNSSubdomain` in kubernetes `pkg/apis/core/validation`). The
 * objects are named after the model, a DNS label; the one auto-named object, the server's
 * ConfigMap, keeps the name it has on live stacks where that name is valid.
 */
import * as assert from "assert";
import * as YAML from "yaml";
import * as k8s from "@pulumi/kubernetes";
import { ModelServer, serverConfigName } from "../../../components/modelServer";
import { ModelGateway } from "../../../components/modelGateway";
import { ModelMonitoring } from "../../../components/modelMonitoring";
import { isDnsSubdomain } from "../../../contract/labels";
import * as facade from "../../../facade";
import { fixtureModelDir } from "../../support/fixtures";
import { MockRun, startMockRuntime } from "../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const MODEL = { name: "half-plus-two", versionBytes: [300 * 2 ** 20] };

/** The `metadata.name` of every Kubernetes object `rec` holds (the ConfigMap's as the provider would auto-name it). */
function objectNames(rec: MockRun): { type: string; pulumiName: string; objectName: string }[] {
    return rec.resources.filter((r) => r.custom && r.type.startsWith("kubernetes:") && !r.type.startsWith("pulumi:providers")).map((r) => ({
        type: r.type,
        pulumiName: r.name,
        // The provider's auto-name: the Pulumi name, '-', 8 random lowercase letters or digits.
        objectName: (r.inputs as any).metadata?.name ?? `${r.name}-0a1b2c3d`,
    }));
}

async function underMocks(construct: (provider: k8s.Provider) => void): Promise<MockRun> {
    const rec = await startMockRuntime();
    construct(new k8s.Provider("test", {}));
    await rec.settle();
    return rec;
}

describe("Kubernetes object names", () => {
    it("a camelCase ModelServer, ModelGateway and ModelMonitoring name only valid objects, after the model", async () => {
        const rec = await underMocks((provider) => {
            const gateway = new ModelGateway("twoGateway", { model: MODEL.name, namespace: "serving", className: "traefik", tlsSecretName: "tfs-tls" }, { provider });
            new ModelServer("twoServer", {
                model: MODEL, namespace: "serving", image: "r/m@sha256:0123",
                imagePullCredentials: { server: "r", username: "u", password: "p" },
                autoscaling: { minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 60 }, batching: { enabled: true },
            } as any, { provider });
            new ModelMonitoring("twoMonitoring", { model: MODEL.name, namespace: "serving", collector: "prometheus-operator" }, { provider });
            assert.ok(gateway);
        });
        const names = objectNames(rec);
        assert.ok(names.length >= 12, JSON.stringify(names));
        assert.deepStrictEqual(names.filter((n) => !isDnsSubdomain(n.objectName)), []);
        assert.deepStrictEqual(names.filter((n) => /^two/i.test(n.objectName)), [], "no object is named after the component");
        const configMap = names.find((n) => n.pulumiName === "twoServer-server-config");
        assert.match(configMap?.objectName ?? "", /^half-plus-two-server-config-[0-9a-f]{10}$/);
    });

    it("a server config ConfigMap named after a valid component is auto-named as before: live stacks keep theirs", async () => {
        const rec = await underMocks((provider) => new ModelServer("half-plus-two", { model: MODEL, namespace: "serving", image: "r/m@sha256:0123" }, { provider }));
        const configMap = rec.one("kubernetes:core/v1:ConfigMap");
        assert.strictEqual(configMap.name, "half-plus-two-server-config");
        assert.strictEqual((configMap.inputs as any).metadata.name, undefined);
    });

    it("the derived ConfigMap name follows the data, so a config change still rolls the pods onto a new one", () => {
        const a = serverConfigName("twoServer", "m", { "monitoring.config": "x" });
        assert.deepStrictEqual(serverConfigName("twoServer", "m", { "monitoring.config": "x" }), a);
        assert.notDeepStrictEqual(serverConfigName("twoServer", "m", { "monitoring.config": "y" }), a);
        assert.deepStrictEqual(serverConfigName("two-server", "m", { "monitoring.config": "x" }), {});
        assert.deepStrictEqual(serverConfigName("two.server", "m", { "monitoring.config": "x" }), {});
        assert.ok(serverConfigName("a".repeat(240), "m", {}).name?.startsWith("m-server-config-"), "an auto-name over 253 characters is derived too");
        for (const invalid of ["twoServer", "two_server", "-two", "two server"]) {
            assert.ok(serverConfigName(invalid, "m", {}).name !== undefined, invalid);
        }
    });

    it("the DNS-1123 subdomain rule, as the API server checks it", () => {
        for (const valid of ["a", "half-plus-two-server-config-0a1b2c3d", "a.b-c", "0", "a".repeat(253)]) {
            assert.ok(isDnsSubdomain(valid), valid);
        }
        for (const invalid of ["", "twoServer-server-config-0a1b2c3d", "a_b", "-a", "a-", "a..b", ".a", "a".repeat(254)]) {
            assert.ok(!isDnsSubdomain(invalid), invalid);
        }
    });

    it("a Pulumi YAML program's camelCase resources, constructed as the package's plugin constructs them, name only valid objects", async () => {
        // What `pulumi package add` gives a YAML program: each resource's properties handed to the
        // facade class of its type (`ComponentProvider.construct`: `new constructor(name, inputs, options)`).
        const program = YAML.parse(`
resources:
  twoServer:
    type: tf-serving:index:ModelServer
    properties:
      modelName: half-plus-two
      modelDir: ${fixtureModelDir("half_plus_two_cpu")}
      namespace: serving
      image: registry.test/half-plus-two@sha256:0123
      serviceType: ClusterIP
  twoGateway:
    type: tf-serving:index:ModelGateway
    properties:
      modelName: half-plus-two
      namespace: serving
      className: traefik
  twoMonitoring:
    type: tf-serving:index:ModelMonitoring
    properties:
      modelName: half-plus-two
      namespace: serving
      collector: prometheus-operator
`) as { resources: Record<string, { type: string; properties: Record<string, unknown> }> };
        const classes = facade as unknown as Record<string, new (name: string, args: unknown, opts?: object) => unknown>;
        const rec = await underMocks((provider) => {
            for (const [name, resource] of Object.entries(program.resources)) {
                new classes[resource.type.split(":")[2]](name, resource.properties, { providers: [provider] });
            }
        });
        const names = objectNames(rec);
        assert.ok(names.some((n) => n.type === "kubernetes:core/v1:ConfigMap" && n.pulumiName === "twoServer-server-config"), JSON.stringify(names));
        assert.deepStrictEqual(names.filter((n) => !isDnsSubdomain(n.objectName)), []);
    });
});
