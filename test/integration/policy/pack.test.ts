import * as assert from "assert";
import { ChildProcess, spawn } from "child_process";
import * as path from "path";
// The analyzer's gRPC stubs and runtime ship with @pulumi/pulumi (and @pulumi/policy).
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import { AnalyzeRequest, AnalyzeResponse, AnalyzerInfo, AnalyzerResourceOptions, EnforcementLevel } from "@pulumi/pulumi/proto/analyzer_pb";
import { policies } from "../../../policy/policies";
import { DIGEST_IMAGE, firstContainer, goodDeployment, goodService } from "../../unit/policy/fixtures";

const POLICY_DIR = path.resolve(__dirname, "../../../policy");
/** Pulumi's marker for a value not known until the update runs (an image digest during preview). */
const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const POLICY_NAMES = [
    "image-digest",
    "model-server-gpu-toleration",
    "model-server-loadbalancer-source-ranges",
    "model-server-memory-limit",
    "model-server-probes",
    "model-server-rolling-update",
];

describe("policy pack wiring", () => {
    /** Runs every policy on one resource as the framework would, collecting the violations by policy name. */
    const violations = (type: string, props: object) => {
        const found: string[] = [];
        for (const policy of policies) {
            const validations = [policy.validateResource ?? []].flat();
            for (const validate of validations) {
                void validate({ type, props: props as Record<string, unknown> } as never, (message) => found.push(`${policy.name}: ${message}`));
            }
        }
        return found;
    };

    it("has one policy per rule, all left to the pack's mandatory level", () => {
        assert.deepStrictEqual(policies.map((p) => p.name).sort(), POLICY_NAMES);
        assert.ok(policies.every((p) => p.enforcementLevel === undefined));
    });

    it("passes a compliant model server and reports each broken rule under its policy", () => {
        assert.deepStrictEqual(violations("kubernetes:apps/v1:Deployment", goodDeployment()), []);
        assert.deepStrictEqual(violations("kubernetes:core/v1:Service", goodService()), []);
        const bad = goodDeployment();
        delete firstContainer(bad).resources;
        firstContainer(bad).image = "tensorflow/serving:latest";
        assert.deepStrictEqual(violations("kubernetes:apps/v1:Deployment", bad).map((v) => v.split(":")[0]), [
            "model-server-memory-limit", "image-digest",
        ]);
    });

    it("checks the digest of every workload's containers, not only the model server's", () => {
        const plugin = {
            metadata: { name: "nvidia-device-plugin-daemonset", namespace: "kube-system" },
            spec: { template: { spec: { containers: [{ name: "nvidia-device-plugin-ctr", image: "nvcr.io/nvidia/k8s-device-plugin:v0.17.1" }] } } },
        };
        assert.deepStrictEqual(violations("kubernetes:apps/v1:DaemonSet", plugin).map((v) => v.split(":")[0]), ["image-digest"]);
        plugin.spec.template.spec.containers[0].image = DIGEST_IMAGE;
        assert.deepStrictEqual(violations("kubernetes:apps/v1:DaemonSet", plugin), []);
        const web = { metadata: { labels: { app: "web" } }, spec: { template: { spec: { initContainers: [{ image: "busybox:1.36" }], containers: [{ image: DIGEST_IMAGE }] } } } };
        assert.deepStrictEqual(violations("kubernetes:apps/v1:Deployment", web).map((v) => v.split(":")[0]), ["image-digest"]);
    });

    it("leaves resources alone that are not the model server's or not of the checked types", () => {
        const other = goodDeployment();
        delete firstContainer(other).resources;
        other.metadata = { labels: { app: "web" } };
        other.spec!.template!.metadata = { labels: { app: "web" } };
        assert.deepStrictEqual(violations("kubernetes:apps/v1:Deployment", other), []);
        assert.deepStrictEqual(violations("kubernetes:apps/v1:StatefulSet", { ...goodDeployment(), spec: {} }), []);
        assert.deepStrictEqual(violations("kubernetes:core/v1:Service", { spec: { type: "LoadBalancer", selector: { app: "web" } } }), []);
    });
});

/**
 * Starts the pack the way `pulumi preview --policy-pack policy` does (node runs
 * @pulumi/pulumi/cmd/run-policy-pack in the pack's folder, ts-node type-checks it, it prints its
 * gRPC port) and asks it to analyze resources over the Analyzer protocol. Proves the pack loads
 * from the root's node_modules with no install of its own.
 */
describe("policy pack as Pulumi runs it", function () {
    this.timeout(120_000);
    let child: ChildProcess | undefined;
    let client: AnalyzerClient;
    let stderr = "";

    before(async () => {
        const runner = require.resolve("@pulumi/pulumi/cmd/run-policy-pack", { paths: [POLICY_DIR] });
        child = spawn(process.execPath, [runner, "127.0.0.1:1", "."], { cwd: POLICY_DIR, stdio: ["ignore", "pipe", "pipe"] });
        child.stderr?.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
        const port = await new Promise<string>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`the pack printed no port within 100 s; stderr: ${stderr}`)), 100_000);
            child?.stdout?.once("data", (chunk: Buffer) => { clearTimeout(timer); resolve(chunk.toString().trim()); });
            child?.once("exit", (code) => { clearTimeout(timer); reject(new Error(`the pack exited with ${code}: ${stderr}`)); });
        });
        assert.match(port, /^\d+$/);
        client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    });

    after(() => {
        client?.close();
        child?.kill();
    });

    const analyze = (type: string, props: object) => new Promise<AnalyzeResponse>((resolve, reject) => {
        const request = new AnalyzeRequest();
        request.setType(type);
        request.setName("half-plus-two");
        request.setUrn(`urn:pulumi:dev::tf-serving::${type}::half-plus-two`);
        request.setProperties(Struct.fromJavaScript(JSON.parse(JSON.stringify(props))));
        // The CLI always sends the resource's options; the framework refuses a request without them.
        request.setOptions(new AnalyzerResourceOptions());
        client.analyze(request, (err, response) => (err ? reject(err) : resolve(response)));
    });

    it("describes its policies, mandatory by default", async () => {
        const info = await new Promise<AnalyzerInfo>((resolve, reject) =>
            client.getAnalyzerInfo(new Empty(), (err, response) => (err ? reject(err) : resolve(response))));
        assert.strictEqual(info.getName(), "tf-serving");
        assert.deepStrictEqual(info.getPoliciesList().map((p) => p.getName()).sort(), POLICY_NAMES);
        assert.ok(info.getPoliciesList().every((p) => p.getEnforcementlevel() === EnforcementLevel.MANDATORY));
    });

    it("passes a compliant Deployment and Service", async () => {
        assert.deepStrictEqual((await analyze("kubernetes:apps/v1:Deployment", goodDeployment())).getDiagnosticsList(), []);
        assert.deepStrictEqual((await analyze("kubernetes:core/v1:Service", goodService())).getDiagnosticsList(), []);
    });

    it("reports mandatory violations for a Deployment that breaks the rules", async () => {
        const bad = goodDeployment();
        bad.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%" } };
        delete firstContainer(bad).readinessProbe;
        const diagnostics = (await analyze("kubernetes:apps/v1:Deployment", bad)).getDiagnosticsList();
        assert.deepStrictEqual(diagnostics.map((d) => d.getPolicyname()).sort(), ["model-server-probes", "model-server-rolling-update"]);
        assert.ok(diagnostics.every((d) => d.getEnforcementlevel() === EnforcementLevel.MANDATORY));
        assert.ok(diagnostics.some((d) => /maxUnavailable is "25%"/.test(d.getMessage())));
    });

    it("reports an open LoadBalancer", async () => {
        const open = goodService();
        open.spec!.loadBalancerSourceRanges = ["0.0.0.0/0"];
        const diagnostics = (await analyze("kubernetes:core/v1:Service", open)).getDiagnosticsList();
        assert.deepStrictEqual(diagnostics.map((d) => d.getPolicyname()), ["model-server-loadbalancer-source-ranges"]);
    });

    it("downgrades the digest check to advisory while the image is unknown (preview before the build)", async () => {
        const previewing = goodDeployment();
        firstContainer(previewing).image = UNKNOWN_STRING;
        const diagnostics = (await analyze("kubernetes:apps/v1:Deployment", previewing)).getDiagnosticsList();
        assert.deepStrictEqual(diagnostics.map((d) => [d.getPolicyname(), d.getEnforcementlevel()]), [
            ["image-digest", EnforcementLevel.ADVISORY],
        ]);
        assert.match(diagnostics[0].getMessage(), /can't run policy 'image-digest'.* during preview/);
        firstContainer(previewing).image = DIGEST_IMAGE;
        assert.deepStrictEqual((await analyze("kubernetes:apps/v1:Deployment", previewing)).getDiagnosticsList(), []);
    });
});
