/**
 * A Pulumi YAML program consumes the library as a multi-language component package, as
 * docs/guides/other-languages.md#yaml tells a user to (the program is read from that page): the
 * packed package is added with `pulumi package add`, `pulumi up` bakes the sample model through
 * `ModelImage` and serves it through `ModelServer`, the stack's `restUrl` answers a REST predict,
 * and `pulumi preview --expect-no-changes` passes after it.
 *
 * The environment's YAML language host is pulumi-yaml's (tools/e2e-env/go/pulumi-yaml). The package
 * declares all four provider SDKs, and `pulumi package add` wants their plugins installed before it
 * starts the package; the environment builds the Kubernetes provider and a Docker stand-in only, so
 * this test runs with a plugin cache of its own holding those two and a stand-in that serves nothing
 * under the gcp and aws names (tools/e2e-env/stand-ins/pulumi-resource-not-built): a step that did
 * start either would fail.
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { pack } from "../../tools/pack/main";
import { CliResult, runCli } from "../support/cli";
import { PackageJson, PackageLock, consumerLock } from "../support/consumerProject";
import { MODEL, ROOT, env, kubectl } from "../support/e2eProject";
import { fixtureModelDir } from "../support/fixtures";
import { predict } from "../support/traffic";
import { documentedYamlProgram } from "../support/yamlExample";

const PROJECT = "serve-half-plus-two";
const STAND_IN = path.join(ROOT, "tools", "e2e-env", "stand-ins", "pulumi-resource-not-built");

/** The resource plugin an installed npm SDK declares (its package.json `pulumi` section), as the language host reports it. */
function declaredPlugin(sdk: string): { name: string; version: string } {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", sdk, "package.json"), "utf8")) as
        { version: string; pulumi?: { name?: string; version?: string } };
    return { name: manifest.pulumi?.name ?? sdk.replace("@pulumi/", ""), version: manifest.pulumi?.version ?? manifest.version };
}

describe("a Pulumi YAML program using the component package (pulumi package add)", function () {
    this.timeout(15 * 60 * 1000);
    const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
    const stack = `yaml-${run}`;
    const namespace = `tfs-e2e-yaml-${run}`;
    let work: string;
    let program: string;
    let pluginHome: string;
    let restUrl: string;

    const pulumi = async (args: string[], timeoutMs = 10 * 60 * 1000): Promise<CliResult> => {
        const r = await runCli("pulumi", [...args, "--non-interactive"], {
            cwd: program, timeoutMs,
            // The package's `npm install` finds everything in npm's cache (its lockfile is the repository's).
            env: { PULUMI_HOME: pluginHome, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" },
        });
        console.log(`pulumi ${args[0]} ${args[1] ?? ""}: exit ${r.code} in ${r.seconds.toFixed(1)} s`);
        return r;
    };
    const ok = (r: CliResult, what: string) => assert.strictEqual(r.code, 0, `${what} failed:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-yaml-"));

        // The library package as `npm run packages` makes it, its dependencies installed from the
        // repository's lockfile (what `npm install` in it resolves, without a registry).
        const t0 = Date.now();
        const [library] = pack(ROOT, path.join(work, "packages"));
        const manifest = JSON.parse(fs.readFileSync(path.join(library.dir, "package.json"), "utf8")) as PackageJson;
        const repoLock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as PackageLock;
        fs.writeFileSync(path.join(library.dir, "package-lock.json"), JSON.stringify(consumerLock(repoLock, manifest, []), null, 2));
        execFileSync("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: library.dir, stdio: "ignore", timeout: 10 * 60 * 1000 });
        console.log(`packed and installed the library package in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

        // A plugin cache of this test's own: the environment's plugins, and the stand-in under the
        // names of the two providers the environment does not build.
        pluginHome = path.join(work, "pulumi-home");
        fs.mkdirSync(path.join(pluginHome, "plugins"), { recursive: true });
        const shared = path.join(env("PULUMI_HOME"), "plugins");
        // Folders of their own (the CLI lists no symlinked plugin folder), their files linked.
        for (const entry of fs.readdirSync(shared).filter((e) => /^resource-(kubernetes|docker)-v/.test(e) && fs.statSync(path.join(shared, e)).isDirectory())) {
            fs.mkdirSync(path.join(pluginHome, "plugins", entry));
            for (const file of fs.readdirSync(path.join(shared, entry))) {
                fs.symlinkSync(path.join(shared, entry, file), path.join(pluginHome, "plugins", entry, file));
            }
        }
        for (const sdk of ["@pulumi/gcp", "@pulumi/aws"]) {
            const { name, version } = declaredPlugin(sdk);
            execFileSync("pulumi", ["plugin", "install", "resource", name, version, "--file", STAND_IN], {
                env: { ...process.env, PULUMI_HOME: pluginHome }, stdio: "ignore", timeout: 60_000,
            });
        }

        // The documented program, with the sample model beside it, on this environment.
        program = path.join(work, "program");
        fs.mkdirSync(program);
        fs.writeFileSync(path.join(program, "Pulumi.yaml"), documentedYamlProgram(ROOT));
        fs.cpSync(path.join(fixtureModelDir("half_plus_two_cpu"), "00000123"), path.join(program, "models", "half_plus_two", "123"), { recursive: true });
        const config = {
            context: env("TFS_E2E_KUBE_CONTEXT"), registry: env("TFS_E2E_REGISTRY"), repository: `e2e-yaml-${run}/${MODEL}`,
            baseImage: env("TFS_E2E_BASE_IMAGE"), namespace,
        };
        fs.writeFileSync(path.join(program, `Pulumi.${stack}.yaml`),
            YAML.stringify({ config: Object.fromEntries(Object.entries(config).map(([k, v]) => [`${PROJECT}:${k}`, v])) }));
        ok(await pulumi(["stack", "init", stack]), "pulumi stack init");

        ok(await pulumi(["package", "add", library.dir]), "pulumi package add");
    });

    after(async () => {
        if (program !== undefined && fs.existsSync(path.join(program, "Pulumi.yaml"))) {
            const destroyed = await pulumi(["destroy", "--yes", "--skip-preview", "--stack", stack]);
            if (destroyed.code === 0) {
                await pulumi(["stack", "rm", "--yes", "--stack", stack]);
            } else {
                console.log(destroyed.stderr.slice(-2000)); // removeLeftovers clears it at the next run
            }
        }
        if (work !== undefined) {
            fs.rmSync(work, { recursive: true, force: true });
        }
    });

    it("records the package in the program's Pulumi.yaml", () => {
        const project = YAML.parse(fs.readFileSync(path.join(program, "Pulumi.yaml"), "utf8")) as { packages?: Record<string, unknown> };
        assert.ok(project.packages?.["tf-serving"] !== undefined, `packages: ${JSON.stringify(project.packages)}`);
    });

    it("deploys the model with pulumi up, and the stack's endpoint answers a REST predict", async () => {
        ok(await pulumi(["up", "--yes", "--skip-preview", "--stack", stack]), "pulumi up");
        const outputs = JSON.parse((await pulumi(["stack", "output", "--json", "--stack", stack])).stdout) as Record<string, string>;
        restUrl = outputs.restUrl;
        assert.match(outputs.imageRef, new RegExp(`^${env("TFS_E2E_REGISTRY").replace(/\./g, "\\.")}/e2e-yaml-${run}/${MODEL}@sha256:[0-9a-f]{64}$`));
        const pods = kubectl("get", "pods", "-n", namespace).items as { spec: { containers: { image: string }[] } }[];
        assert.ok(pods.length > 0 && pods.every((p) => p.spec.containers[0].image === outputs.imageRef), "the pods run the image the stack reports");

        // The load balancer forwards once it has seen the ready endpoint: a bounded wait on that state.
        const deadline = Date.now() + 60_000;
        for (;;) {
            try {
                assert.deepStrictEqual(await predict(restUrl, MODEL, [1, 2, 5]), [2.5, 3, 4.5]);
                break;
            } catch (err) {
                if (Date.now() > deadline) {
                    throw err;
                }
                await new Promise((r) => setTimeout(r, 1000));
            }
        }
    });

    it("previews no change afterwards (pulumi preview --expect-no-changes)", async () => {
        ok(await pulumi(["preview", "--expect-no-changes", "--diff", "--stack", stack]), "pulumi preview --expect-no-changes");
    });
});
