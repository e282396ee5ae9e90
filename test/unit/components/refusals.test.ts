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
import * as eks from "../../../lib/eks";
import * as gke from "../../../lib/gke";
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
            /^EksVpc vpc: cidr is too small for a subnet slot per zone/));

        it("NvidiaDevicePlugin: an image not pinned by digest names image", () => assertRefused(
            () => new NvidiaDevicePlugin("plugin", { nodeSelector: { "tf-serving.dev/pool": "gpu" }, image: "mirror.example/k8s-device-plugin:v0.17.1" }),
            /^NvidiaDevicePlugin plugin: image "mirror\.example\/k8s-device-plugin:v0\.17\.1" is not pinned by digest/));
    });

    describe("the pieces the library exports on their own, through tf-serving/eks and tf-serving/gke", () => {
        const DIGEST = `@sha256:${"0".repeat(64)}`;
        it("EksVpc: zones of two regions, an unknown NAT mode, a bad cluster name", () => assertRefused(
            () => new eks.EksVpc("vpc", { clusterName: "-c", cidr: "10.0.0.0/16", zones: ["us-west-2a", "eu-west-1a"], natGateways: "always" as never }),
            /^EksVpc vpc: clusterName must be 1-100 letters.*; zones\[1\] must be a zone of region us-west-2.*; natGateways must be one of/));

        it("EksVpc: one zone", () => assertRefused(
            () => new eks.EksVpc("vpc", { clusterName: "c", cidr: "10.0.0.0/16", zones: ["us-west-2a"], natGateways: "single" }),
            /^EksVpc vpc: zones must list 2 to 6 availability zones/));

        it("NvidiaDevicePlugin: no node selector (it would run on every node), a bad label key", async () => {
            await assertRefused(() => new eks.NvidiaDevicePlugin("p", { nodeSelector: {} }), /^NvidiaDevicePlugin p: nodeSelector must hold the GPU nodes' labels/);
            await assertRefused(() => new eks.NvidiaDevicePlugin("p", { nodeSelector: { "bad key": "gpu" } }), /^NvidiaDevicePlugin p: nodeSelector\["bad key"\] is not a Kubernetes label key/);
        });

        it("Ecr: no models, a model twice, a bad prefix, keepImages 0", async () => {
            const settings = { repositoryPrefix: "tf-serving", keepImages: 10, forceDelete: false };
            await assertRefused(() => new eks.Ecr("ecr", { settings, models: [] }), /^Ecr ecr: models must list the model names/);
            await assertRefused(() => new eks.Ecr("ecr", { settings: { ...settings, repositoryPrefix: "Team/Models", keepImages: 0 }, models: ["m", "m"] }),
                /^Ecr ecr: settings\.repositoryPrefix must be a lowercase ECR repository path.*; settings\.keepImages must be a whole number from 1 to 1000.*; models\[1\] names "m" twice/);
        });

        it("AwsLoadBalancerController: a zone as the region, a partition not the region's", async () => {
            const base = { clusterName: "c", vpcId: "vpc-1", dependsOn: [] };
            await assertRefused(() => new eks.AwsLoadBalancerController("lbc", { ...base, region: "us-west-2a", partition: "aws" }),
                /^AwsLoadBalancerController lbc: region must be an AWS region such as "us-west-2" \(a region, not a zone/);
            await assertRefused(() => new eks.AwsLoadBalancerController("lbc", { ...base, region: "cn-north-1", partition: "aws" }),
                /^AwsLoadBalancerController lbc: partition must be "aws-cn", the partition of region cn-north-1/);
        });

        it("ClusterAutoscaler: a Kubernetes version no autoscaler release is pinned for", () => assertRefused(
            () => new eks.ClusterAutoscaler("ca", { clusterName: "c", region: "us-west-2", kubernetesVersion: "1.20", dependsOn: [] }),
            /^ClusterAutoscaler ca: kubernetesVersion names Kubernetes 1\.20, for which no Cluster Autoscaler release is pinned/));

        it("PrometheusAdapter: the adapter's own loopback as Prometheus", () => assertRefused(
            () => new eks.PrometheusAdapter("pa", { prometheus: { url: "http://localhost", port: 9090, path: "" }, dependsOn: [] }),
            /^PrometheusAdapter pa: prometheus names localhost, which inside prometheus-adapter's pod is the adapter itself/));

        it("ArtifactRegistry: a display name as the project, a zone as the location, owned keys on gcr.io, a public reader", async () => {
            const owned = { host: "docker.pkg.dev" as const, location: "us-central1-a", repository: "tf-serving", keepImages: 10 };
            await assertRefused(() => new gke.ArtifactRegistry("ar", { project: "My Project", settings: owned, readers: ["allUsers"] }),
                /^ArtifactRegistry ar: project must be a project id.*; settings\.location must be a region such as "us-central1".*; readers\[0\] must be an IAM member/);
            await assertRefused(() => new gke.ArtifactRegistry("ar", { project: "my-project", settings: { host: "gcr.io", keepImages: 5 } as never, readers: [] }),
                /^ArtifactRegistry ar: settings\.keepImages does not apply with host "gcr\.io"/);
        });

        it("CustomMetricsStackdriverAdapter: an image by tag", () => assertRefused(
            () => new gke.CustomMetricsStackdriverAdapter("cma", { project: "my-project", image: "gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.1", cluster: { __pulumiResource: true } as unknown as pulumi.Resource }),
            /^CustomMetricsStackdriverAdapter cma: image must be pinned by digest/));

        it("good arguments of each piece are not refused", async () => {
            const rec = await startMockRuntime();
            new eks.EksVpc("vpc", { clusterName: "c", cidr: "10.0.0.0/16", zones: ["us-west-2a", "us-west-2b"], natGateways: "single" });
            new eks.Ecr("ecr", { settings: { repositoryPrefix: "team/models", keepImages: 10, forceDelete: false }, models: ["half-plus-two", "two"] });
            new eks.NvidiaDevicePlugin("p", { nodeSelector: { "tf-serving.dev/pool": "gpu" } });
            new eks.AwsLoadBalancerController("lbc", { clusterName: "c", vpcId: "vpc-1", region: "us-gov-west-1", partition: "aws-us-gov", gatewayClassName: "alb", dependsOn: [] });
            new eks.ClusterAutoscaler("ca", { clusterName: "c", region: "us-west-2", kubernetesVersion: "1.35", dependsOn: [] });
            new eks.PrometheusAdapter("pa", { prometheus: { url: "http://prometheus-server.monitoring.svc", port: 80, path: "" }, dependsOn: [] });
            new gke.ArtifactRegistry("ar", { project: "example.com:my-project", settings: { host: "docker.pkg.dev", location: "us", repository: "tf-serving", keepImages: 3 }, readers: ["serviceAccount:n@p.iam.gserviceaccount.com"] });
            new gke.CustomMetricsStackdriverAdapter("cma", { project: "my-project", image: `gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.1${DIGEST}`, cluster: new pulumi.ComponentResource("test:index:Cluster", "c") });
            await rec.settle();
            const types = new Set(rec.resources.map((r) => r.type));
            for (const t of ["EksVpc", "Ecr", "NvidiaDevicePlugin", "AwsLoadBalancerController", "ClusterAutoscaler", "PrometheusAdapter", "ArtifactRegistry", "CustomMetricsStackdriverAdapter"]) {
                assert.ok(types.has(`tf-serving:index:${t}`), `${t} registered: ${[...types].join(", ")}`);
            }
        });
    });
});
