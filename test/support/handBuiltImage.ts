/**
 * Images built by hand for the end-to-end failure scenarios: the mistakes `tfs build-context`
 * prevents (a model at the wrong path, a server without its exec bit) made on purpose, with the
 * environment's podman (buildah underneath, `BUILDAH_ISOLATION`) and pushed to its registry.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { SERVING_GID, SERVING_UID } from "../../serving/images";
import { env } from "./e2eProject";

/**
 * Builds `dockerfile` (its `FROM` is the environment's stand-in base image) with `files` copied
 * into the context, pushes it as `REGISTRY/e2e-hand/NAME:TAG` and returns the digest reference.
 */
export function buildHandImage(name: string, dockerfile: string, files: Record<string, string> = {}): string {
    const context = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-hand-image-"));
    try {
        fs.writeFileSync(path.join(context, "Dockerfile"), dockerfile);
        for (const [target, source] of Object.entries(files)) {
            fs.cpSync(source, path.join(context, target), { recursive: true });
        }
        const repo = `${env("TFS_E2E_REGISTRY")}/e2e-hand/${name}`;
        const tag = `${repo}:${Date.now().toString(36)}`;
        const run = (...args: string[]) => execFileSync("podman", args, { cwd: context, stdio: ["ignore", "pipe", "pipe"], timeout: 10 * 60 * 1000 });
        run("build", "--isolation", "chroot", "--platform", "linux/amd64", "-t", tag, ".");
        const digestFile = path.join(context, "digest");
        run("push", "--tls-verify=false", "--digestfile", digestFile, tag);
        return `${repo}@${fs.readFileSync(digestFile, "utf8").trim()}`;
    } finally {
        fs.rmSync(context, { recursive: true, force: true });
    }
}

/** The product's Dockerfile lines after the model COPY: non-root, the server binary as entrypoint. */
export function servingTail(modelName: string): string {
    return [
        `ENV MODEL_NAME=${modelName} MODEL_BASE_PATH=/models`,
        `USER ${SERVING_UID}:${SERVING_GID}`,
        `ENTRYPOINT ["/usr/bin/tensorflow_model_server", "--port=8500", "--rest_api_port=8501", "--model_name=${modelName}", "--model_base_path=/models/${modelName}", "--file_system_poll_wait_seconds=0"]`,
        "CMD []",
        "",
    ].join("\n");
}
