/**
 * One stack, two checkouts: a workstation runs `pulumi up`, CI (another clone, at another path)
 * previews. Every resource input must be the same from both, so the second preview reports no
 * change: no image rebuilt or re-pushed, no provider replaced. And the pods run the digest the
 * registry holds for the pushed tag, not the local store's (podman's push reports none).
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import * as YAML from "yaml";
import { MODEL, ROOT, env, kubectl, manifestOf, projectTsconfig, tagsOf } from "../support/e2eProject";
import { fixtureModelDir } from "../support/fixtures";
import { PulumiCli, changingOps, pulumiCli } from "../support/cli";

/* eslint-disable @typescript-eslint/no-explicit-any */
const MANIFEST_TYPES = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

function tfs(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
        execFile(process.execPath, [path.join(ROOT, "bin", "tfs.js"), ...args], { cwd, timeout: 10 * 60 * 1000, maxBuffer: 64 * 2 ** 20 },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }));
    });
}

/** A clone of a user's project at `dir`: the repository's program, its own copy of the model, the shared stack file. */
function clone(dir: string, stackFile: string, stackName: string): string {
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
    // The program exports a promise of its outputs (`export =`), so the entry re-exports it as a whole.
    fs.writeFileSync(path.join(dir, "index.ts"), `import program = require(${JSON.stringify(path.join(ROOT, "index"))});\nexport = program;\n`);
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(projectTsconfig()));
    fs.cpSync(path.join(fixtureModelDir("half_plus_two_cpu"), "00000123"), path.join(dir, "models", "half_plus_two", "123"), { recursive: true });
    fs.writeFileSync(path.join(dir, `Pulumi.${stackName}.yaml`), stackFile);
    return dir;
}

describe("one stack from two checkouts at different paths (workstation and CI)", function () {
    this.timeout(15 * 60 * 1000);
    const run = Date.now().toString(36);
    const stackName = `e2e-clones-${run}`;
    const namespace = `tfs-e2e-clones-${run}`;
    const repo = `e2e-clones-${run}/${MODEL}`;
    // Inside the repository, so Node finds node_modules; different depths, so no path lines up by chance.
    const base = path.join(ROOT, ".tfs", `e2e-clones-${run}`);
    let workstation: Stack;
    let workstationCli: PulumiCli;
    let ciCli: PulumiCli;
    let ciDir: string;
    const output: string[] = [];
    const onOutput = (line: string) => { output.push(line); };

    before(async () => {
        const stackFile = YAML.stringify({
            config: {
                "tf-serving:cloud": "local",
                "tf-serving:modelPath": "models/half_plus_two",
                "tf-serving:modelName": MODEL,
                "tf-serving:replicas": 1,
                "tf-serving:cpu": "250m", // beside the other lane's pods (test/e2e/lanes.ts)
                "tf-serving:namespace": namespace,
                "tf-serving:baseImage": env("TFS_E2E_BASE_IMAGE"),
                "tf-serving:registry": { server: env("TFS_E2E_REGISTRY"), repositoryPrefix: `e2e-clones-${run}` },
                "tf-serving:loadBalancerSourceRanges": ["127.0.0.0/8"],
            },
        });
        const workstationDir = clone(path.join(base, "home", "alice", "tf-serving"), stackFile, stackName);
        ciDir = clone(path.join(base, "runner", "_work", "tf-serving", "tf-serving"), stackFile, stackName);
        workstation = await LocalWorkspace.createOrSelectStack({ stackName, workDir: workstationDir });
        workstationCli = pulumiCli(workstationDir, stackName);
        ciCli = pulumiCli(ciDir, stackName);
    });

    after(async () => {
        if (process.env.TFS_E2E_KEEP !== "1") {
            await workstation?.destroy({ onOutput }).catch(() => undefined);
            await workstation?.workspace.removeStack(stackName).catch(() => undefined);
            fs.rmSync(base, { recursive: true, force: true });
        }
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            console.error(output.slice(-60).join(""));
        }
        output.length = 0;
    });

    let imageRef = "";

    it("up from the workstation: pods run the digest the registry holds for the pushed tag", async () => {
        const up = await workstationCli.up();
        assert.strictEqual(up.summary.result, "succeeded");
        // Whether or not the push reported a digest (the Docker provider falls back to the local store's
        // digest when it does not), the pod must run the digest the registry holds for the pushed tag.
        imageRef = up.outputs.imageRef as string;
        const [tag] = await tagsOf(repo);
        assert.match(tag, /^ctx-[0-9a-f]{16}$/);
        const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/manifests/${tag}`, { method: "HEAD", headers: { Accept: MANIFEST_TYPES } });
        assert.strictEqual(imageRef, `${env("TFS_E2E_REGISTRY")}/${repo}@${res.headers.get("docker-content-digest")}`);
        await manifestOf(imageRef);
        assert.strictEqual(kubectl("get", "deployment", MODEL, "-n", namespace).spec.template.spec.containers[0].image, imageRef);
    });

    it("preview --expect-no-changes from the CI checkout passes", async () => {
        assert.deepStrictEqual(await ciCli.preview({ expectNoChanges: true }), []);
        assert.strictEqual((await tagsOf(repo)).length, 1, "nothing pushed");
    });

    it("tfs deploy --preview-only from the CI checkout passes and plans no change", async () => {
        const result = await tfs(["deploy", "--stack", stackName, "--preview-only"], ciDir);
        assert.strictEqual(result.code, 0, result.stderr.slice(-3000));
        const summary = JSON.parse(result.stdout);
        assert.deepStrictEqual(summary.steps.map((s: any) => [s.step, s.ok]), [["preflight", true], ["preview", true]]);
        assert.deepStrictEqual(changingOps(summary.changes), [], JSON.stringify(summary.changes));
    });

    it("an up from the CI checkout changes nothing and keeps the pods on the same digest", async () => {
        const up = await ciCli.up();
        assert.deepStrictEqual(changingOps(up.summary.resourceChanges ?? {}), []);
        assert.strictEqual(up.outputs.imageRef, imageRef);
        assert.strictEqual((await tagsOf(repo)).length, 1);
    });
});
