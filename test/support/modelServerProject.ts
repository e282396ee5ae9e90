/**
 * A throwaway Pulumi project whose program is one `ModelServer` (components/modelServer.ts) and
 * its namespace, for images and sizings the product's own program would refuse: hand-built
 * images, a memory limit below the model (the config check bypassed), short probe budgets.
 */
import * as fs from "fs";
import * as path from "path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { PulumiUpResult, pulumiCli } from "./cli";
import { ROOT } from "./e2eProject";

export interface ModelServerStackConfig {
    image: string;
    /** Bytes on disk of the model in the image (recorded on the pods for doctor). */
    modelBytes: number;
    replicas?: number;
    /** A memory limit (and request) that bypasses the sizing check. */
    memoryLimit?: string;
    /** Startup probe budget, seconds. Default 20. */
    startupSeconds?: number;
    /** Progress deadline past the startup budget, seconds (Pulumi's wait is 90 s more). Default 120. */
    deadlineMarginSeconds?: number;
    /** CPU request and limit of each pod. Default 500m (two pods and a surge pod fit the real node's 2 cores). */
    cpu?: string;
}

export interface ModelServerProject {
    namespace: string;
    stack: Stack;
    /** `pulumi up --yes` through the CLI (it previews first); rejects with its output unless it exits 0. */
    up(config: ModelServerStackConfig): Promise<PulumiUpResult>;
    dispose(): Promise<void>;
}

const PROGRAM = (root: string) => `import * as fs from "fs";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ModelServer } from ${JSON.stringify(path.join(root, "components", "modelServer"))};

const config = new pulumi.Config("e2e");
const provider = new k8s.Provider("e2e", { kubeconfig: fs.readFileSync(process.env.KUBECONFIG as string, "utf8") });
const namespace = new k8s.core.v1.Namespace("ns", { metadata: { name: config.require("namespace") } }, { provider });
const memoryLimit = config.get("memoryLimit");
const startup = config.requireNumber("startupSeconds");
const margin = config.requireNumber("deadlineMarginSeconds");

// What the product refuses, done the way another program could: a transformation over the
// Deployment ModelServer registers (public API). A memory limit below the model, a short startup
// budget, a progress deadline of budget + margin, and Pulumi's wait just past that deadline.
const bypass: pulumi.ResourceTransformation = ({ type, props, opts }) => {
    if (type !== "kubernetes:apps/v1:Deployment") {
        return undefined;
    }
    const spec = props.spec;
    const container = spec.template.spec.containers[0];
    if (memoryLimit) {
        container.resources.requests.memory = memoryLimit;
        container.resources.limits.memory = memoryLimit;
    }
    container.startupProbe = { ...container.startupProbe, periodSeconds: 2, timeoutSeconds: 1, failureThreshold: Math.ceil(startup / 2) };
    spec.progressDeadlineSeconds = startup + margin;
    const wait = \`\${startup + margin + 90}s\`;
    return { props, opts: pulumi.mergeOptions(opts, { customTimeouts: { create: wait, update: wait } }) };
};

const server = new ModelServer("model", {
    model: { name: config.require("modelName"), versionBytes: [config.requireNumber("modelBytes")] },
    namespace: namespace.metadata.name,
    image: config.require("image"),
    replicas: config.requireNumber("replicas"),
    resources: { cpu: config.require("cpu") },
    loadBalancerSourceRanges: ["127.0.0.0/8"],
}, { provider, transformations: [bypass] });
export const restUrl = server.restUrl;
`;

export async function createModelServerProject(modelName: string): Promise<ModelServerProject> {
    // Several are made in the same millisecond when scenarios run side by side.
    const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const namespace = `tfs-fail-${run}`;
    fs.mkdirSync(path.join(ROOT, ".tfs"), { recursive: true });
    const projectDir = fs.mkdtempSync(path.join(ROOT, ".tfs", "e2e-modelserver-"));
    fs.writeFileSync(path.join(projectDir, "Pulumi.yaml"),
        "name: tfs-e2e-modelserver\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n");
    fs.writeFileSync(path.join(projectDir, "index.ts"), PROGRAM(ROOT));
    // Its own package.json: Pulumi's Node.js runner takes `main` from the nearest one, which would be the product's.
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    fs.writeFileSync(path.join(projectDir, "package.json"), JSON.stringify({ name: "tfs-e2e-modelserver", private: true, main: "index.ts", dependencies }, null, 2));
    const stack = await LocalWorkspace.createOrSelectStack({ stackName: `fail-${run}`, workDir: projectDir });
    const cli = pulumiCli(projectDir, stack.name);
    return {
        namespace,
        stack,
        async up(config) {
            await stack.setAllConfig({
                "e2e:namespace": { value: namespace },
                "e2e:modelName": { value: modelName },
                "e2e:image": { value: config.image },
                "e2e:modelBytes": { value: String(config.modelBytes) },
                "e2e:replicas": { value: String(config.replicas ?? 2) },
                "e2e:startupSeconds": { value: String(config.startupSeconds ?? 20) },
                "e2e:deadlineMarginSeconds": { value: String(config.deadlineMarginSeconds ?? 120) },
                "e2e:cpu": { value: config.cpu ?? "500m" },
                ...(config.memoryLimit ? { "e2e:memoryLimit": { value: config.memoryLimit } } : {}),
            });
            if (!config.memoryLimit) {
                await stack.removeConfig("e2e:memoryLimit").catch(() => undefined);
            }
            return cli.up();
        },
        async dispose() {
            await stack.destroy().catch(() => undefined);
            await stack.workspace.removeStack(stack.name).catch(() => undefined);
            fs.rmSync(projectDir, { recursive: true, force: true });
        },
    };
}
