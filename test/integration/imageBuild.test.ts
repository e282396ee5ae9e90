/**
 * Builds a staged model image for real, without a daemon (Debian's buildah, vfs storage, chroot
 * isolation, all under a temporary folder), pushes it to Debian's docker-registry on loopback and
 * reads it back through the registry's HTTP API. The base is `scratch`: the official TF Serving
 * image cannot be pulled here, and the model layers, config and entrypoint do not depend on it.
 *
 * Needs `apt-get install -y buildah docker-registry` and root (or working user namespaces).
 * Set TFS_SKIP_IMAGE_BUILD=1 to skip it on a machine without them.
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stageBuildContext, StageOptions } from "../../serving/buildContext";
import { imageEntrypoint } from "../../serving/dockerfile";
import { GRPC_PORT, REST_PORT, SERVING_GID, SERVING_UID } from "../../serving/images";
import { renderModelConfig } from "../../serving/modelConfig";
import { LayerEntry, LocalRegistry, readLayer, REGISTRY_BINARY, startRegistry } from "../support/registry";

const BUILDAH = "/usr/bin/buildah";
const FIXTURE_VERSION = path.join(__dirname, "..", "..", "models", "half_plus_two", "00000123");
const NAME = "half-plus-two";
const BUILD_TIMEOUT_MS = 30000;

/** buildah with every piece of state in `root`: storage, signature policy, registries config. */
class Buildah {
    private readonly policy: string;
    private readonly env: NodeJS.ProcessEnv;

    constructor(private readonly root: string) {
        fs.mkdirSync(root, { recursive: true });
        this.policy = path.join(root, "policy.json");
        fs.writeFileSync(this.policy, JSON.stringify({ default: [{ type: "insecureAcceptAnything" }] }));
        const registries = path.join(root, "registries.conf");
        fs.writeFileSync(registries, "unqualified-search-registries = []\n");
        // Keeps the network backend's lock file out of /etc/containers.
        const containersConf = path.join(root, "containers.conf");
        fs.writeFileSync(containersConf, `[network]\nnetwork_config_dir = ${JSON.stringify(path.join(root, "networks"))}\n`);
        this.env = {
            ...process.env, CONTAINERS_REGISTRIES_CONF: registries, CONTAINERS_CONF: containersConf, BUILDAH_ISOLATION: "chroot",
        };
    }

    /** Builds `context` and returns the image ID. `fresh` ignores cached layers. */
    build(context: string, tag: string, fresh = false): string {
        const iidfile = path.join(this.root, "iid");
        this.run(["bud", "--signature-policy", this.policy, "--isolation", "chroot", "--platform", "linux/amd64",
            "--layers", ...(fresh ? ["--no-cache"] : []), "--timestamp", "0", "--iidfile", iidfile, "-t", tag, context]);
        return fs.readFileSync(iidfile, "utf8").trim().replace(/^sha256:/, "");
    }

    /** Pushes `tag` to `destination` (`HOST/REPO:TAG`, plain HTTP) and returns the manifest digest. */
    push(tag: string, destination: string): string {
        const digestfile = path.join(this.root, "digest");
        this.run(["push", "--signature-policy", this.policy, "--tls-verify=false", "--digestfile", digestfile,
            tag, `docker://${destination}`]);
        return fs.readFileSync(digestfile, "utf8").trim();
    }

    /** Uncompressed layer digests (diff IDs) of an image in local storage. */
    diffIds(image: string): string[] {
        const info = JSON.parse(this.run(["inspect", "--type", "image", image])) as { OCIv1: { rootfs: { diff_ids: string[] } } };
        return info.OCIv1.rootfs.diff_ids;
    }

    private run(args: string[]): string {
        const global = ["--root", path.join(this.root, "storage"), "--runroot", path.join(this.root, "run"), "--storage-driver", "vfs"];
        try {
            return execFileSync(BUILDAH, [...global, ...args], { env: this.env, encoding: "utf8", timeout: BUILD_TIMEOUT_MS, stdio: ["ignore", "pipe", "pipe"] });
        } catch (err) {
            const e = err as { stderr?: string; message: string };
            throw new Error(`buildah ${args[0]} failed: ${e.stderr || e.message}`);
        }
    }
}

/** A model base folder on disk with what a real one tends to hold besides the served versions. */
function makeModel(base: string): void {
    fs.cpSync(FIXTURE_VERSION, path.join(base, "1"), { recursive: true });
    fs.cpSync(FIXTURE_VERSION, path.join(base, "00000002"), { recursive: true });
    fs.cpSync(FIXTURE_VERSION, path.join(base, "3"), { recursive: true });
    fs.writeFileSync(path.join(base, "README.md"), "notes that must not reach the image\n");
    fs.mkdirSync(path.join(base, "checkpoints"));
    fs.writeFileSync(path.join(base, "checkpoints", "ckpt-1"), "training state");
    // Modes a training job or a strict umask leaves behind: unreadable to the server's UID as they are.
    fs.chmodSync(path.join(base, "00000002", "saved_model.pb"), 0o600);
    fs.chmodSync(path.join(base, "00000002", "variables"), 0o700);
}

function filesUnder(dir: string, rel = ""): Map<string, Buffer> {
    const found = new Map<string, Buffer>();
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
        const childRel = rel ? `${rel}/${name}` : name;
        const full = path.join(dir, childRel);
        if (fs.statSync(full).isDirectory()) {
            filesUnder(dir, childRel).forEach((content, p) => found.set(p, content));
        } else {
            found.set(childRel, fs.readFileSync(full));
        }
    }
    return found;
}

describe("model image: a real daemonless build, pushed to a loopback registry", function () {
    this.timeout(90000);
    let work: string;
    let registry: LocalRegistry | undefined;
    let buildah: Buildah;

    before(async function () {
        const missing = [BUILDAH, REGISTRY_BINARY].filter((bin) => !fs.existsSync(bin));
        if (missing.length > 0) {
            if (process.env.TFS_SKIP_IMAGE_BUILD === "1") {
                this.skip();
            }
            throw new Error(`${missing.join(" and ")} not found: run \`apt-get install -y buildah docker-registry\` (or set TFS_SKIP_IMAGE_BUILD=1 to skip this test)`);
        }
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-image-build-"));
        buildah = new Buildah(path.join(work, "buildah"));
        registry = await startRegistry();
    });

    after(async function () {
        await registry?.stop();
        if (work) {
            fs.rmSync(work, { recursive: true, force: true });
        }
    });

    function stage(modelBaseDir: string, outDir: string): ReturnType<typeof stageBuildContext> {
        const options: StageOptions = {
            writer: "tfs build-context", modelBaseDir, outDir, modelName: NAME, versions: [1, 2], versionLabels: { stable: 2 }, baseImage: "scratch",
        };
        return stageBuildContext(options);
    }

    it("holds exactly the served versions, readable by any user, with the server binary as entrypoint", async function () {
        const model = path.join(work, "model");
        makeModel(model);
        const context = path.join(work, "context");
        stage(model, context);
        buildah.build(context, `localhost/${NAME}:test`);
        const digest = buildah.push(`localhost/${NAME}:test`, `${registry!.host}/${NAME}:test`);

        const manifest = await registry!.manifest(NAME, digest);
        const config = JSON.parse((await registry!.blob(NAME, manifest.config.digest)).toString("utf8"));
        const layers: LayerEntry[][] = [];
        for (const layer of manifest.layers) {
            layers.push(await readLayer(await registry!.blob(NAME, layer.digest)));
        }

        // One layer per version, then the model config: a new version pushes only its own layer.
        assert.strictEqual(layers.length, 3);
        assert.ok(layers[0].every((e) => !e.path.startsWith(`models/${NAME}/2`)), "the first layer holds version 1 only");
        assert.ok(layers[1].every((e) => !e.path.startsWith(`models/${NAME}/1`)), "the second layer holds version 2 only");

        const entries = new Map<string, LayerEntry>();
        layers.flat().forEach((e) => entries.set(e.path, e));
        const source = filesUnder(FIXTURE_VERSION);
        const expectedFiles = [
            ...[1, 2].flatMap((v) => [...source.keys()].map((p) => `models/${NAME}/${v}/${p}`)),
            "models/models.config",
        ].sort();
        const files = [...entries.values()].filter((e) => e.type === "File").map((e) => e.path).sort();
        assert.deepStrictEqual(files, expectedFiles, "nothing but the served versions and the config (no README, checkpoints or version 3)");
        const dirs = [...entries.values()].filter((e) => e.type === "Directory").map((e) => e.path);
        assert.ok(dirs.includes(`models/${NAME}/2/variables`));
        assert.ok([...entries.values()].every((e) => e.type === "File" || e.type === "Directory"), "no links or devices");

        for (const [rel, content] of source) {
            for (const v of [1, 2]) {
                const entry = entries.get(`models/${NAME}/${v}/${rel}`)!;
                assert.ok(entry.content.equals(content), `${entry.path} has the source bytes`);
                assert.strictEqual(entry.mode, 0o755, `${entry.path} mode ${entry.mode.toString(8)}`);
                assert.strictEqual(entry.uid, 0, `${entry.path} is owned by root, so the server's UID cannot change it`);
            }
        }
        for (const entry of entries.values()) {
            const needed = entry.type === "Directory" ? 0o005 : 0o004;
            assert.strictEqual(entry.mode & needed, needed, `${entry.path} (${entry.mode.toString(8)}) is readable${entry.type === "Directory" ? " and traversable" : ""} by others`);
        }
        const modelConfig = entries.get("models/models.config")!;
        assert.strictEqual(modelConfig.mode, 0o644);
        assert.strictEqual(modelConfig.content.toString("utf8"),
            renderModelConfig([{ name: NAME, basePath: `/models/${NAME}`, versions: [1, 2], labels: { stable: 2 } }]));

        assert.strictEqual(config.architecture, "amd64");
        assert.strictEqual(config.os, "linux");
        assert.strictEqual(config.config.User, `${SERVING_UID}:${SERVING_GID}`);
        assert.ok(config.config.Env.includes(`MODEL_NAME=${NAME}`), JSON.stringify(config.config.Env));
        assert.ok(config.config.Env.includes("MODEL_BASE_PATH=/models"));
        assert.deepStrictEqual(config.config.Entrypoint, imageEntrypoint({ modelName: NAME, versions: [1, 2], versionLabels: { stable: 2 } }));
        assert.deepStrictEqual(config.config.Entrypoint.slice(0, 1), ["/usr/bin/tensorflow_model_server"]);
        assert.ok(!config.config.Cmd || config.config.Cmd.length === 0, `no CMD appended to the flags: ${JSON.stringify(config.config.Cmd)}`);
        assert.deepStrictEqual(Object.keys(config.config.ExposedPorts).sort(), [`${GRPC_PORT}/tcp`, `${REST_PORT}/tcp`]);
        assert.strictEqual(config.config.Labels["tf-serving.model.name"], NAME);
        assert.strictEqual(config.config.Labels["tf-serving.model.versions"], "1,2");
    });

    it("builds the same image from the same model staged twice, and changes only the touched version's layer", function () {
        const model = path.join(work, "model-repro");
        makeModel(model);
        const first = stage(model, path.join(work, "context-a"));
        const firstId = buildah.build(first.outDir, `localhost/${NAME}:a`, true);
        // A copy made later (new file times) staged to another folder.
        const copy = path.join(work, "model-repro-copy");
        fs.cpSync(model, copy, { recursive: true });
        const second = stage(copy, path.join(work, "context-b"));
        assert.strictEqual(buildah.build(second.outDir, `localhost/${NAME}:b`, true), firstId);

        const variables = path.join(copy, "00000002", "variables", "variables.data-00000-of-00001");
        const bytes = fs.readFileSync(variables);
        bytes[0] ^= 0xff;
        fs.writeFileSync(variables, bytes);
        const restaged = stage(copy, path.join(work, "context-b"));
        assert.strictEqual(restaged.written, 1, "only the changed file is rewritten");
        const changedId = buildah.build(restaged.outDir, `localhost/${NAME}:c`, true);
        assert.notStrictEqual(changedId, firstId);

        const before = buildah.diffIds(`localhost/${NAME}:a`);
        const after = buildah.diffIds(`localhost/${NAME}:c`);
        assert.strictEqual(after[0], before[0], "version 1's layer is unchanged");
        assert.notStrictEqual(after[1], before[1], "version 2's layer changed");
        assert.strictEqual(after[2], before[2], "the model config layer is unchanged");
    });
});
