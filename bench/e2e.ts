/**
 * `npm run bench`: what a user waits for, measured on the loopback environment.
 *
 * - the first `pulumi up` of the local stack, a no-op `up` and a no-op `preview`;
 * - beside them, `kubectl apply --server-side` + `kubectl rollout status` of the same objects on the
 *   same control plane: the floor a no-op could reach;
 * - bytes pushed for a model-only change (a new version) against the model's size.
 *
 * Prints figures; asserts nothing. Each timing is one run (the numbers move with the machine's load).
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { MODEL, createProject, kubectl, manifestOf, startEnvironment } from "../test/support/e2eProject";

async function seconds<T>(f: () => Promise<T> | T): Promise<[number, T]> {
    const start = process.hrtime.bigint();
    const value = await f();
    return [Number(process.hrtime.bigint() - start) / 1e9, value];
}

function folderBytes(dir: string): number {
    return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile())
        .reduce((sum, e) => sum + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
}

/** The live objects the stack created, as plain manifests for `kubectl apply` in another namespace. */
function exportObjects(namespace: string, target: string): string {
    const kinds = "serviceaccounts,configmaps,deployments,services,poddisruptionbudgets";
    const list = kubectl("get", kinds, "-n", namespace, "-l", "app.kubernetes.io/name=tf-serving");
    const docs = list.items.map((o: any) => { // eslint-disable-line @typescript-eslint/no-explicit-any
        const { name, labels, annotations } = o.metadata;
        const metadata: Record<string, unknown> = { name, namespace: target, labels };
        const kept = Object.fromEntries(Object.entries(annotations ?? {}).filter(([k]) => !k.startsWith("kubectl.kubernetes.io/") && !k.startsWith("deployment.kubernetes.io/")));
        if (Object.keys(kept).length) {
            metadata.annotations = kept;
        }
        const doc: Record<string, unknown> = { apiVersion: o.apiVersion, kind: o.kind, metadata };
        for (const key of ["spec", "data", "automountServiceAccountToken"]) {
            if (o[key] !== undefined) {
                doc[key] = o[key];
            }
        }
        const spec = doc.spec as Record<string, unknown> | undefined;
        if (o.kind === "Service" && spec) {
            for (const k of ["clusterIP", "clusterIPs", "healthCheckNodePort"]) {
                delete spec[k];
            }
            (spec.ports as Record<string, unknown>[]).forEach((p) => delete p.nodePort);
        }
        return YAML.stringify(doc);
    });
    return docs.join("---\n");
}

function kubectlTimed(args: string[], input?: string): number {
    const start = process.hrtime.bigint();
    execFileSync("kubectl", args, { input, stdio: [input === undefined ? "ignore" : "pipe", "ignore", "inherit"], timeout: 600_000 });
    return Number(process.hrtime.bigint() - start) / 1e9;
}

async function main(): Promise<void> {
    startEnvironment();
    const project = await createProject();
    const quiet = () => undefined;
    const rows: [string, string][] = [];
    try {
        const [firstUp] = await seconds(() => project.stack.up({ onOutput: quiet }));
        const [noopUp] = await seconds(() => project.stack.up({ onOutput: quiet }));
        const [noopPreview] = await seconds(() => project.stack.preview({ onOutput: quiet }));
        rows.push(["pulumi up, first (build, push, roll out)", `${firstUp.toFixed(1)} s`]);
        rows.push(["pulumi up, nothing changed", `${noopUp.toFixed(1)} s`]);
        rows.push(["pulumi preview, nothing changed", `${noopPreview.toFixed(1)} s`]);

        // The floor: the same objects applied by kubectl into a fresh namespace, then again unchanged.
        const target = `${project.namespace}-kubectl`;
        const manifests = exportObjects(project.namespace, target);
        execFileSync("kubectl", ["create", "namespace", target], { stdio: "ignore" });
        execFileSync("kubectl", ["label", "namespace", target, "pod-security.kubernetes.io/enforce=restricted"], { stdio: "ignore" });
        const apply = ["apply", "--server-side", "--field-manager", "bench", "-f", "-"];
        const rollout = ["rollout", "status", `deployment/${MODEL}`, "-n", target, "--timeout=300s"];
        const firstApply = kubectlTimed(apply, manifests) + kubectlTimed(rollout);
        const noopApply = kubectlTimed(apply, manifests) + kubectlTimed(rollout);
        execFileSync("kubectl", ["delete", "namespace", target, "--wait=false"], { stdio: "ignore" });
        rows.push(["kubectl apply --server-side + rollout status, first", `${firstApply.toFixed(1)} s`]);
        rows.push(["kubectl apply --server-side + rollout status, nothing changed (the floor)", `${noopApply.toFixed(1)} s`]);

        // A model-only change: a new version folder; what the registry had to receive is the new layers.
        const before = (await project.stack.outputs()).imageRef.value as string;
        fs.cpSync(path.join(project.modelDir, "123"), path.join(project.modelDir, "124"), { recursive: true });
        const [bumpUp, bump] = await seconds(() => project.stack.up({ onOutput: quiet }));
        const after = bump.outputs.imageRef.value as string;
        const old = await manifestOf(before);
        const fresh = (await manifestOf(after)).layers.filter((l) => !old.layers.some((o) => o.digest === l.digest));
        const pushed = fresh.reduce((sum, l) => sum + l.size, 0);
        const imageBytes = (await manifestOf(after)).layers.reduce((sum, l) => sum + l.size, 0);
        const modelBytes = folderBytes(path.join(project.modelDir, "124"));
        rows.push(["pulumi up, new model version (build, push, rolling update)", `${bumpUp.toFixed(1)} s`]);
        rows.push(["bytes pushed for the new version (new layers, compressed)", `${pushed} B in ${fresh.length} layer(s)`]);
        rows.push(["size of the new version on disk", `${modelBytes} B`]);
        rows.push(["whole image (all layers, compressed)", `${imageBytes} B`]);
    } finally {
        await project.dispose();
    }
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log(`\ntf-serving benchmark (${os.cpus().length} CPUs, ${new Date().toISOString()})`);
    for (const [k, v] of rows) {
        console.log(`  ${k.padEnd(width)}  ${v}`);
    }
}

main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
});
