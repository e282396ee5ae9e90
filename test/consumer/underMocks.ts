/**
 * Runs the consumer under Pulumi's mocks (`pulumi.runtime.setMocks`, the consumer's own SDK) and
 * prints what was registered as JSON on stdout.
 *
 *     node bin/underMocks.js program MODEL_DIR   the program (index.ts): resources and outputs
 *     node bin/underMocks.js clusters MODEL_DIR  the clusters program (clusters.ts): resources and outputs
 *     node bin/underMocks.js imports MODEL_DIR   every entry point imported, the pure ones used: nothing may register
 *     node bin/underMocks.js canary MODEL_DIR    a ModelServer with a canary, in a program without @kubernetes/client-node: its refusal
 */
import * as pulumi from "@pulumi/pulumi";

interface Registered {
    type: string;
    name: string;
    inputs: Record<string, unknown>;
    /** `URN::id` of the provider the resource was registered with, if any. */
    provider?: string;
}

const REGISTRY_DIGEST = `sha256:${"ab".repeat(32)}`;

async function main(mode: string, modelDir: string): Promise<unknown> {
    const registered: Registered[] = [];
    await pulumi.runtime.setMocks({
        newResource(args) {
            registered.push({ type: args.type, name: args.name, inputs: args.inputs, provider: args.provider });
            const state: Record<string, unknown> = { ...args.inputs };
            if (args.type === "kubernetes:core/v1:Service") {
                state.status = { loadBalancer: { ingress: [{ ip: "198.51.100.20" }] } };
            }
            return { id: `${args.name}-id`, state };
        },
        call(args) {
            return args.token === "docker:index/getRegistryImage:getRegistryImage" ? { sha256Digest: REGISTRY_DIGEST } : {};
        },
    }, "consumer", "test", false);
    pulumi.runtime.setAllConfig({ "consumer:modelDir": modelDir });

    if (mode === "imports") {
        // The pure modules first and alone: they must load no Pulumi SDK at all.
        const sdkBefore = pulumiModules();
        const { preflight } = await import("tf-serving/preflight");
        const { sizeServer } = await import("tf-serving/sizing");
        const report = preflight(modelDir);
        const sizing = sizeServer({ servedVersionBytes: report.versions.map((v) => v.sizeBytes), gpu: false, batching: false, overrides: {} });
        const pureLoaded = pulumiModules().filter((m) => !sdkBefore.includes(m));
        const entries: Record<string, string> = {};
        const load = async (entry: string) => {
            entries[entry] = await import(entry).then((m: object) => `exports ${Object.keys(m).length}`, (err: Error) => err.message.split("\n")[0]);
        };
        // The main entry, model-server and model-image first: @pulumi/gcp and @pulumi/aws are optional
        // peers they must not load, and @kubernetes/client-node (the canary's) an optional one too.
        await load("tf-serving");
        await load("tf-serving/model-server");
        await load("tf-serving/model-image");
        const optionalLoaded = loadedModules().filter((m) => /\/node_modules\/(@pulumi\/(gcp|aws)|@kubernetes\/client-node)\//.test(m));
        for (const entry of ["tf-serving/components", "tf-serving/gke", "tf-serving/eks"]) {
            await load(entry);
        }
        await settle(registered);
        return { registered, pureLoaded, optionalLoaded, entries, preflightOk: report.ok, memoryLimit: sizing.memoryLimit };
    }

    if (mode === "canary") {
        const { ModelGateway, ModelServer } = await import("tf-serving");
        const gateway = new ModelGateway("m", { model: "m", namespace: "serving", className: "traefik", tlsSecretName: "tls", canary: true });
        const refusal = await Promise.resolve().then(() => new ModelServer("m", {
            model: { name: "m", versionBytes: [1_000_000] }, namespace: "serving", image: "registry.example.test/m@sha256:" + "ab".repeat(32),
            serviceType: "ClusterIP",
            canary: { settings: { steps: [10, 50], holdSeconds: 60, replicas: 1, gates: { maxErrorRatio: 0.01, maxP99Ms: 1000, minRequests: 50 } }, gateway },
        })).then(() => undefined, (err: Error) => ({ name: err.constructor.name, runError: pulumi.RunError.isInstance(err), message: err.message }));
        await settle(registered);
        return { registered, refusal };
    }

    const outputs = (await import(mode === "clusters" ? "./clusters.js" : "./index.js")) as Record<string, pulumi.Output<unknown> | unknown>;
    const resolved: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(outputs)) {
        resolved[key] = pulumi.Output.isInstance(value) ? await new Promise((resolve) => value.apply(resolve)) : value;
    }
    await settle(registered);
    return { registered, outputs: resolved };
}

/** Files of `@pulumi/*` packages loaded so far. */
function pulumiModules(): string[] {
    return loadedModules().filter((file) => file.includes("/node_modules/@pulumi/"));
}

/** Every file loaded so far. */
function loadedModules(): string[] {
    return Object.keys(require.cache);
}

/** Waits until registrations stop arriving. */
async function settle(registered: Registered[]): Promise<void> {
    let seen = -1;
    while (seen !== registered.length) {
        seen = registered.length;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}

main(process.argv[2], process.argv[3]).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (err) => {
        console.error(err);
        process.exitCode = 1;
    },
);
