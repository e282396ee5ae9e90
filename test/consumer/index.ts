/**
 * Another team's Pulumi program, written against the packed library only: it preflights a model,
 * bakes it into an image and serves it on the cluster its own Kubernetes provider reaches. The server
 * and the preflight come from the package's main entry, the image from its own entry point.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ModelServer, preflight } from "tf-serving";
import { ModelImage } from "tf-serving/model-image";

const config = new pulumi.Config();
const modelDir = config.require("modelDir");
const report = preflight(modelDir);
if (!report.ok) {
    throw new Error(report.errors.map((e) => `${e.code}: ${e.message}`).join("\n"));
}

const provider = new k8s.Provider("cluster", { context: "team-cluster" });
const namespace = new k8s.core.v1.Namespace("serving", { metadata: { name: "serving" } }, { provider });

const image = new ModelImage("half-plus-two", {
    model: "half-plus-two",
    modelPath: modelDir,
    versions: report.servedVersions,
    imageName: "registry.example.test:5000/models/half-plus-two",
    registry: { server: "registry.example.test:5000" },
    projectDir: process.cwd(),
    contextDir: ".tfs/build/half-plus-two",
});

const server = new ModelServer("half-plus-two", {
    model: { name: "half-plus-two", versionBytes: report.versions.filter((v) => v.served).map((v) => v.sizeBytes) },
    namespace: namespace.metadata.name,
    image: image.imageRef,
    resources: { cpu: "2", memoryLimit: "1Gi" },
    replicas: 3,
    loadBalancerSourceRanges: ["203.0.113.0/24"],
}, { provider });

export const imageRef = server.imageRef;
export const modelStatusUrl = server.modelStatusUrl;
export const memoryRequest = server.sizing.memoryRequest;
