/**
 * The operating commands against a real stack in the loopback environment: `tfs deploy` (the CI
 * entry point: preflight, preview with the policy pack, update, smoke), then `tfs smoke --stack`
 * and `tfs doctor --stack`, all reading the stack through the Automation API.
 *
 * The model server runs in a real pod on the environment's real node; smoke reaches it through
 * the loopback load balancer's address, as it would a cloud's.
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as path from "path";
import { E2eProject, MODEL, ROOT, createProject } from "../support/e2eProject";

function tfs(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
        execFile(process.execPath, [path.join(ROOT, "bin", "tfs.js"), ...args], { cwd, timeout: 10 * 60 * 1000, maxBuffer: 64 * 2 ** 20 },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }));
    });
}

describe("operating a real stack: tfs deploy, smoke and doctor with --stack", function () {
    this.timeout(15 * 60 * 1000);
    let project: E2eProject;

    before(async () => {
        project = await createProject();
        project.setConfig({ replicas: 1 });
    });

    after(async () => {
        await project?.dispose();
    });

    it("tfs deploy --preview-only previews with the policy pack and changes nothing", async () => {
        const run = await tfs(["deploy", "--stack", project.stackName, "--preview-only"], project.projectDir);
        assert.strictEqual(run.code, 0, run.stderr.slice(-3000));
        const summary = JSON.parse(run.stdout);
        assert.deepStrictEqual(summary.steps.map((s: { step: string }) => s.step), ["preflight", "preview"]);
        assert.ok(summary.changes.create > 0, "the preview plans the resources");
        assert.match(run.stderr, /policy|Policies/i, "the preview ran with the policy pack");
    });

    it("tfs deploy runs preflight, preview, update and smoke, and says so in one JSON summary", async () => {
        const run = await tfs(["deploy", "--stack", project.stackName, "--smoke-timeout", "60"], project.projectDir);
        assert.strictEqual(run.code, 0, run.stderr.slice(-3000));
        const summary = JSON.parse(run.stdout);
        assert.strictEqual(summary.ok, true);
        assert.deepStrictEqual(summary.steps.map((s: { step: string; ok: boolean }) => [s.step, s.ok]),
            [["preflight", true], ["preview", true], ["update", true], ["smoke", true]]);
        assert.strictEqual(summary.smoke.outcome, "ok");
        assert.deepStrictEqual(summary.smoke.answer, { predictions: [[2.5]] });
    });

    it("tfs deploy stops at preflight on a broken model and names the step", async () => {
        project.setConfig({ replicas: 1, modelPath: path.join(project.modelDir, "123") });
        try {
            const run = await tfs(["deploy", "--stack", project.stackName], project.projectDir);
            assert.strictEqual(run.code, 1);
            const summary = JSON.parse(run.stdout);
            assert.strictEqual(summary.failedStep, "preflight");
            assert.match(summary.steps[0].detail, /tf-serving:modelPath/);
        } finally {
            project.setConfig({ replicas: 1 });
        }
    });

    it("tfs smoke --stack reads the stack's restUrl and model", async () => {
        const run = await tfs(["smoke", "--stack", project.stackName, "--json", "--timeout", "30"], project.projectDir);
        assert.strictEqual(run.code, 0, run.stderr);
        const report = JSON.parse(run.stdout);
        assert.strictEqual(report.model, MODEL);
        assert.match(report.restUrl, /^http:\/\/(127\.\d+\.\d+\.\d+|localhost):8501$/, "the load balancer's loopback address");
        assert.strictEqual(report.outcome, "ok");
    });

    it("tfs doctor --stack finds the namespace and says healthy", async () => {
        const run = await tfs(["doctor", "--stack", project.stackName], project.projectDir);
        assert.strictEqual(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assert.match(run.stdout, new RegExp(`namespace ${project.namespace}`));
        assert.match(run.stdout, /healthy/);
    });
});
