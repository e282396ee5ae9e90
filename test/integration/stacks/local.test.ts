import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PlanError, planStack } from "../../../ops/plan";
import { SAVED_MODELS } from "../../support/fixtures";

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, "../../..");
const FIXTURES = SAVED_MODELS;

/** A throwaway project: Pulumi.yaml and a stack file written by the test (the plan runs this repository's program for it). */
function project(stackConfig: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-local-"));
    fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
    fs.writeFileSync(path.join(dir, "Pulumi.t.yaml"), stackConfig);
    return dir;
}

describe("local stack (the program under mocks)", () => {
    it("plans the shipped dev stack: namespace, image, server, all wired together", async () => {
        const plan = await planStack(ROOT, "dev");
        assert.deepStrictEqual(plan.counts, {
            "docker:index/image:Image": 1,
            "kubernetes:apps/v1:Deployment": 1,
            // The server's config, and (collector `annotations`) the rule file and the Grafana dashboard.
            "kubernetes:core/v1:ConfigMap": 3,
            "kubernetes:core/v1:Namespace": 1,
            "kubernetes:core/v1:Service": 1,
            "kubernetes:core/v1:ServiceAccount": 1,
            "kubernetes:networking.k8s.io/v1:NetworkPolicy": 1,
            "kubernetes:policy/v1:PodDisruptionBudget": 1,
            "pulumi:providers:kubernetes": 1,
            "tf-serving:index:ModelImage": 1,
            "tf-serving:index:ModelMonitoring": 1,
            "tf-serving:index:ModelServer": 1,
        });
        const configMaps = plan.resources.filter((r) => r.type === "kubernetes:core/v1:ConfigMap").map((r) => r.inputs as any);
        const rules = configMaps.find((c) => c.metadata.labels["tf-serving.dev/prometheus-rules"] === "true");
        assert.match(rules.data["half-plus-two.rules.yaml"], /alert: TFServingModelUnavailable/);
        const dashboard = configMaps.find((c) => c.metadata.labels.grafana_dashboard === "1");
        assert.strictEqual(JSON.parse(dashboard.data["half-plus-two.json"]).title, "TF Serving: tf-serving/half-plus-two");
        assert.ok(!plan.resources.some((r) => r.type.startsWith("kubernetes:monitoring")), "no CRD objects on a cluster with nothing installed");
        const ns = plan.resources.find((r) => r.type === "kubernetes:core/v1:Namespace")!.inputs as any;
        assert.strictEqual(ns.metadata.labels["pod-security.kubernetes.io/enforce"], "restricted");
        const image = plan.resources.find((r) => r.type === "docker:index/image:Image")!.inputs as any;
        assert.match(image.imageName, /^localhost:5001\/tf-serving\/half-plus-two:ctx-[0-9a-f]{16}$/);
        assert.strictEqual(image.build.platform, "linux/amd64");
        const deployment = plan.resources.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs as any;
        const [container] = deployment.spec.template.spec.containers;
        assert.match(container.image, /^localhost:5001\/tf-serving\/half-plus-two@sha256:[0-9a-f]{64}$/, "pods run the pushed digest");
        assert.strictEqual(deployment.spec.replicas, 1);
        assert.strictEqual(plan.outputs.restUrl, "http://203.0.113.10:8501");
        assert.strictEqual(plan.outputs.modelStatusUrl, "http://203.0.113.10:8501/v1/models/half-plus-two");
    });

    it("pulls with the registry's login: the pods reference a pull Secret made from it, never in plain text", async () => {
        const cfg = [
            "config:",
            `  tf-serving:modelPath: ${path.join(FIXTURES, "half_plus_two_cpu")}`,
            "  tf-serving:publicEndpoint: true",
            "  tf-serving:registry:",
            "    server: registry.example.test:5000",
            "    username: ci-puller",
            "    password: pull-secret-value",
        ].join("\n") + "\n";
        const plan = await planStack(project(cfg), "t");
        const secret = plan.resources.find((r) => r.type === "kubernetes:core/v1:Secret");
        assert.ok(secret, "a pull Secret");
        assert.strictEqual((secret.inputs as any).type, "kubernetes.io/dockerconfigjson");
        const printed = JSON.stringify(plan.resources.map((r) => r.inputs));
        assert.ok(!printed.includes("pull-secret-value"), "the password appears in no recorded input");
        assert.ok(!printed.includes(Buffer.from("ci-puller:pull-secret-value").toString("base64")));
        const auths = JSON.parse((secret.rawInputs as any).stringData[".dockerconfigjson"]).auths;
        assert.deepStrictEqual(Object.keys(auths), ["registry.example.test:5000"], "keyed by the host the image names");
        const deployment = plan.resources.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs as any;
        assert.match(deployment.spec.template.spec.containers[0].image, /^registry\.example\.test:5000\//);
        assert.deepStrictEqual(deployment.spec.template.spec.imagePullSecrets, [{ name: (secret.inputs as any).metadata.name }]);
    });

    it("endpoint gateway with Traefik's ranges and callers: tfs plan takes the encrypted callers, and refuses them in plain text", async () => {
        const base = `config:\n  tf-serving:modelPath: ${path.join(FIXTURES, "half_plus_two_cpu")}\n  tf-serving:modelName: m\n`
            + "  tf-serving:endpoint: gateway\n  tf-serving:loadBalancerSourceRanges:\n    - 10.20.0.0/16\n"
            + "  tf-serving:gateway:\n    className: traefik\n    controller: traefik\n    auth:\n      type: basic\n";
        const plan = await planStack(project(`${base}      users:\n        secure: v1:c2FsdA==:Y2lwaGVydGV4dA==\n`), "t");
        const middlewares = plan.resources.filter((r) => r.type === "kubernetes:traefik.io/v1alpha1:Middleware").map((r) => (r.inputs as any).metadata.name).sort();
        assert.deepStrictEqual(middlewares, ["m-basic-auth", "m-source-ranges"]);
        assert.ok(plan.resources.some((r) => r.type === "kubernetes:core/v1:Secret" && (r.inputs as any).metadata.name === "m-callers"), "the callers' Secret");
        await assert.rejects(planStack(project(`${base}      users: "alice:{SHA}${"A".repeat(27)}="\n`), "t"),
            (err: Error) => /tf-serving:gateway\.auth\.users = "\[secret\]": must be a secret, not plain configuration/.test(err.message) && !err.message.includes("AAAA"));
    });

    it("endpoint gateway: plans a Gateway of the class and its two routes in front of a ClusterIP Service", async () => {
        const stack = `config:\n  tf-serving:modelPath: ${path.join(FIXTURES, "half_plus_two_cpu")}\n  tf-serving:modelName: m\n  tf-serving:publicEndpoint: true\n`
            + "  tf-serving:endpoint: gateway\n  tf-serving:gateway:\n    className: traefik\n";
        const plan = await planStack(project(stack), "t");
        const kinds = plan.resources.map((r) => r.type).filter((t) => t.includes("gateway.networking.k8s.io")).sort();
        assert.deepStrictEqual(kinds, ["kubernetes:gateway.networking.k8s.io/v1:GRPCRoute", "kubernetes:gateway.networking.k8s.io/v1:Gateway", "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute"]);
        assert.strictEqual((plan.resources.find((r) => r.type === "kubernetes:core/v1:Service")!.inputs as any).spec.type, "ClusterIP");
        assert.strictEqual((plan.resources.find((r) => r.type.endsWith(":Gateway"))!.inputs as any).spec.gatewayClassName, "traefik");
    });

    it("modelDelivery imageVolume under tfs plan: the artifact FROM scratch, the pinned base with the volume; no cluster asked (offline)", async () => {
        const stack = `config:\n  tf-serving:modelPath: ${path.join(FIXTURES, "half_plus_two_cpu")}\n  tf-serving:publicEndpoint: true\n`
            + "  tf-serving:modelDelivery: imageVolume\n  tf-serving:kubeconfig: /nonexistent/kubeconfig\n";
        const dir = project(stack);
        const plan = await planStack(dir, "t");
        const image = plan.resources.find((r) => r.type === "docker:index/image:Image")!.inputs as any;
        assert.match(fs.readFileSync(path.join(dir, image.build.dockerfile), "utf8"), /^FROM scratch$/m);
        const spec = (plan.resources.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs as any).spec.template.spec;
        assert.match(spec.containers[0].image, /^tensorflow\/serving:2\.21\.0@sha256:[0-9a-f]{64}$/);
        assert.deepStrictEqual(spec.containers[0].command, ["/usr/bin/tensorflow_model_server"]);
        assert.match(spec.volumes.find((v: any) => v.name === "model").image.reference, /^localhost:5001\/tf-serving\/half-plus-two-cpu@sha256:[0-9a-f]{64}$/);
    });

    it("tags the image by model content: same model, same tag; another model, another tag", async () => {
        const stack = (model: string) => `config:\n  tf-serving:modelPath: ${model}\n  tf-serving:modelName: m\n  tf-serving:publicEndpoint: true\n`;
        const tag = async (model: string) => {
            const plan = await planStack(project(stack(model)), "t");
            return (plan.resources.find((r) => r.type === "docker:index/image:Image")!.inputs as any).imageName as string;
        };
        const a = await tag(path.join(FIXTURES, "half_plus_two_cpu"));
        assert.strictEqual(await tag(path.join(FIXTURES, "half_plus_two_cpu")), a);
        assert.notStrictEqual(await tag(path.join(FIXTURES, "half_plus_three")), a);
    });

    it("stops before registering anything when the model has no version folder", async () => {
        const flat = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-flat-"));
        fs.cpSync(path.join(FIXTURES, "half_plus_two_cpu/00000123"), flat, { recursive: true });
        await assert.rejects(planStack(project(`config:\n  tf-serving:modelPath: ${flat}\n  tf-serving:publicEndpoint: true\n`), "t"), (err: unknown) => {
            assert.ok(err instanceof PlanError);
            assert.match(err.message, /tf-serving:modelPath/);
            assert.match(err.message, new RegExp(flat.replace(/[/\\^$*+?.()|[\]{}]/g, "\\$&")));
            return true;
        });
    });

    it("stops on a model without the requested signature, naming what it has", async () => {
        await assert.rejects(planStack(project(`config:\n  tf-serving:modelPath: ${path.join(FIXTURES, "counter")}\n  tf-serving:publicEndpoint: true\n`), "t"),
            /serving_default/);
    });

    it("stops on a memory limit below what the model needs, naming the key", async () => {
        const cfg = `config:\n  tf-serving:modelPath: ${path.join(FIXTURES, "half_plus_two_cpu")}\n  tf-serving:publicEndpoint: true\n  tf-serving:memoryLimit: 128Mi\n`;
        await assert.rejects(planStack(project(cfg), "t"), /tf-serving:memoryLimit: memoryLimit 128Mi .* is below/);
    });

    it("stops on invalid config with every problem listed", async () => {
        const cfg = `config:\n  tf-serving:modelPath: ${path.join(FIXTURES, "half_plus_two_cpu")}\n  tf-serving:replicas: 0\n  tf-serving:cloud: azure\n`;
        await assert.rejects(planStack(project(cfg), "t"), (err: unknown) => {
            assert.match(String(err), /3 problems/);
            assert.match(String(err), /tf-serving:replicas = "0"/);
            assert.match(String(err), /tf-serving:cloud = "azure"/);
            return true;
        });
    });

    it("bakes and serves several versions with labels through a model config", async () => {
        const cfg = [
            "config:",
            `  tf-serving:modelPath: ${path.join(FIXTURES, "half_plus_two_2_versions")}`,
            "  tf-serving:publicEndpoint: true",
            "  tf-serving:versions: [123, 124]",
            "  tf-serving:versionLabels: {stable: 123, canary: 124}",
        ].join("\n");
        const plan = await planStack(project(cfg), "t");
        const deployment = plan.resources.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs as any;
        const memory = deployment.spec.template.spec.containers[0].resources.requests.memory;
        const single = await planStack(project(cfg.replace(/\n.*versions.*\n.*versionLabels.*/, "")), "t");
        const singleMemory = (single.resources.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs as any).spec.template.spec.containers[0].resources.requests.memory;
        assert.ok(parseInt(memory) >= parseInt(singleMemory), `${memory} vs ${singleMemory}`);
    });

    it("loads neither the GCP nor the AWS SDK (a fresh process planning the dev stack)", () => {
        // The mocha process has loaded them for other tests: only a process of its own shows what the program loads.
        const script = `require("./ops/plan").planStack(process.cwd(), "dev").then(() => process.stdout.write(JSON.stringify(
            Object.keys(require.cache).filter((f) => /node_modules.@pulumi.(aws|gcp)./.test(f)))))`;
        const out = execFileSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
        assert.deepStrictEqual(JSON.parse(out), []);
    });
});
