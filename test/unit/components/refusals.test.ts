/**
 * Each component refuses bad arguments the way `pulumi preview` shows as one line: a
 * `pulumi.RunError` (the Node.js language host prints its message alone, any other error with its
 * stack: `@pulumi/pulumi` cmd/run/run.js), its message one line that names the component and the
 * field, and nothing registered, not even the component, before it.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { ModelGateway } from "../../../components/modelGateway";
import { ModelImage } from "../../../components/modelImage";
import { ModelServer } from "../../../components/modelServer";
import { NvidiaDevicePlugin } from "../../../components/clouds/aws/devicePlugin";
import { EksVpc } from "../../../components/clouds/aws/vpc";
import { fixtureModelDir } from "../../support/fixtures";
import { startMockRuntime } from "../../support/mockRuntime";

const SERVER = { model: { name: "half-plus-two", versionBytes: [300 * 2 ** 20] }, namespace: "serving", image: "r/m@sha256:0123" };

/** Runs `construct` under the mocks; what it threw, and what it registered. */
async function refused(construct: () => unknown): Promise<{ err: unknown; registered: string[] }> {
    const rec = await startMockRuntime();
    let err: unknown;
    try {
        construct();
    } catch (e) {
        err = e;
    }
    await rec.settle();
    return { err, registered: rec.resources.map((r) => `${r.type}::${r.name}`) };
}

async function assertRefused(construct: () => unknown, line: RegExp): Promise<void> {
    const { err, registered } = await refused(construct);
    assert.ok(err !== undefined, "not refused");
    assert.ok(pulumi.RunError.isInstance(err), `not a RunError (the preview would print its stack): ${String(err)}`);
    const message = (err as Error).message;
    assert.ok(!message.includes("\n"), `one line: ${message}`);
    assert.match(message, line);
    assert.deepStrictEqual(registered, [], "nothing registered before the refusal");
}

describe("component refusals", () => {
    let projectDir: string;
    before(() => { projectDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-refusals-")); });
    after(() => fs.rmSync(projectDir, { recursive: true, force: true }));

    describe("ModelServer", () => {
        it("a model name that is no DNS label", () => assertRefused(
            () => new ModelServer("s", { ...SERVER, model: { ...SERVER.model, name: "Half_Plus_Two" } }),
            /^ModelServer s: model\.name "Half_Plus_Two" must be a DNS label/));

        it("a memory limit below the reload peak names resources.memoryLimit", () => assertRefused(
            () => new ModelServer("s", { ...SERVER, resources: { memoryLimit: "100Mi" } }),
            /^ModelServer s: resources\.memoryLimit \(/));

        it("a CPU below what TF Serving needs names resources.cpu", () => assertRefused(
            () => new ModelServer("s", { ...SERVER, resources: { cpu: "100m" } }),
            /^ModelServer s: resources\.cpu \(cpu 100m is below the 250m/));

        it("a golden file that does not parse names golden", () => assertRefused(
            () => new ModelServer("s", { ...SERVER, golden: { file: "golden.jsonl", text: "{not json\n" } }),
            /^ModelServer s: golden \(golden\.jsonl:1/));
    });

    describe("ModelImage", () => {
        const image = (extra: object) => () => new ModelImage("img", {
            model: "m", modelPath: fixtureModelDir("half_plus_two_cpu"), versions: [123],
            imageName: "registry.internal:5000/team/m", registry: { server: "registry.internal:5000" },
            projectDir, contextDir: ".tfs/build/refusals/m", ...extra,
        });

        it("a context folder outside the project names contextDir", () => assertRefused(
            image({ contextDir: "../elsewhere" }), /^ModelImage img: contextDir \(\/.*\) is not inside the project /));

        it("a base image that is no image reference names baseImage", () => assertRefused(
            image({ baseImage: "tensorflow/serving:2.19.0@sha256:abc" }), /^ModelImage img: baseImage "tensorflow\/serving:2\.19\.0@sha256:abc" has a malformed digest/));

        it("a version the model folder does not hold names modelPath", () => assertRefused(
            image({ versions: [7] }), /^ModelImage img: modelPath \(.* has no folder for version 7/));

        it("a label on a version not served names modelPath", () => assertRefused(
            image({ versionLabels: { stable: 9 } }), /^ModelImage img: modelPath \(model "m": label "stable" points at version 9, which is not served/));
    });

    describe("ModelGateway", () => {
        it("a model name that is no DNS label", () => assertRefused(
            () => new ModelGateway("g", { model: "M", namespace: "serving", className: "traefik" }),
            /^ModelGateway g: model /));

        it("an EKS Gateway without its certificate, refused by the platform's own checks before the component registers", () => assertRefused(
            () => new ModelGateway("g", { model: "m", namespace: "serving", platform: "eks", className: "alb" } as never),
            /^ModelGateway m: certificateArn is required/));
    });

    describe("the EKS pieces", () => {
        it("EksVpc: a CIDR too small for its zones names cidr", () => assertRefused(
            () => new EksVpc("vpc", { clusterName: "c", cidr: "10.0.0.0/28", zones: ["a", "b"], natGateways: "single" }),
            /^EksVpc vpc: cidr 10\.0\.0\.0\/28 /));

        it("NvidiaDevicePlugin: an image not pinned by digest names image", () => assertRefused(
            () => new NvidiaDevicePlugin("plugin", { nodeSelector: {}, image: "mirror.example/k8s-device-plugin:v0.17.1" }),
            /^NvidiaDevicePlugin plugin: image "mirror\.example\/k8s-device-plugin:v0\.17\.1" is not pinned by digest/));
    });
});
