import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { ciDeploy, preflightStack, summaryMarkdown } from "../../../ops/ciDeploy";
import { stackConfig } from "../../../ops/plan";
import { engineFailure, engineReason } from "../../../ops/pulumiCli";
import { appendJobSummary } from "../../../cli/deploy";

const ROOT = path.resolve(__dirname, "../../..");

/** What the engine would hand the program for `stack`, read here from the stack file. */
function stackInput(projectDir: string, stack: string) {
    return { ...stackConfig(projectDir, stack), projectDir };
}

/** A stack whose engine answers `getAllConfig` with `config` and fails the test on any engine operation. */
function engineStack(config: Record<string, string>): Stack {
    const refuse = () => assert.fail("no engine operation after a failed preflight");
    return {
        workspace: { projectSettings: async () => ({ name: "tf-serving", runtime: "nodejs" }) },
        getAllConfig: async () => Object.fromEntries(Object.entries(config).map(([k, value]) => [k, { value, secret: false }])),
        preview: refuse,
        up: refuse,
    } as unknown as Stack;
}

function projectWithStack(stackYaml: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-ci-"));
    fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
    fs.writeFileSync(path.join(dir, "Pulumi.ci.yaml"), stackYaml);
    return dir;
}

describe("CI deploy", () => {
    let previousKubeconfig: string | undefined;
    before(() => {
        // The dev stack targets the ambient cluster: give preflight a kubeconfig to find.
        previousKubeconfig = process.env.KUBECONFIG;
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-kube-"));
        fs.writeFileSync(path.join(dir, "config"), "apiVersion: v1\nkind: Config\n");
        process.env.KUBECONFIG = path.join(dir, "config");
    });
    after(() => {
        if (previousKubeconfig === undefined) {
            delete process.env.KUBECONFIG;
        } else {
            process.env.KUBECONFIG = previousKubeconfig;
        }
    });

    it("preflights the dev stack offline: config, credentials and model", () => {
        assert.match(preflightStack(stackInput(ROOT, "dev")), /1 model\(s\) servable \(half-plus-two v123\)/);
    });

    it("stops at preflight when the cluster's kubeconfig is missing", () => {
        const dir = projectWithStack("config:\n  tf-serving:modelPath: /x\n  tf-serving:publicEndpoint: true\n  tf-serving:kubeconfig: /nope/kubeconfig\n");
        assert.throws(() => preflightStack(stackInput(dir, "ci")), /tf-serving:kubeconfig = \/nope\/kubeconfig: no such file/);
    });

    it("stops at preflight, before any image is built or pushed, on a kubeContext the kubeconfig does not hold", async () => {
        const dir = projectWithStack("config:\n  tf-serving:modelPath: m\n  tf-serving:publicEndpoint: true\n  tf-serving:kubeconfig: kube.yaml\n  tf-serving:kubeContext: kind-prod\n");
        fs.writeFileSync(path.join(dir, "kube.yaml"), "apiVersion: v1\nkind: Config\ncontexts:\n- name: kind-dev\n  context: {cluster: kind-dev, user: kind-dev}\n");
        assert.throws(() => preflightStack(stackInput(dir, "ci")), /tf-serving:kubeContext = "kind-prod": is not a context of tf-serving:kubeconfig \(.*kube\.yaml\), which has "kind-dev"/);
        // The engine's preview and update (where the image is pushed) never run: engineStack fails the test on either.
        const summary = await ciDeploy({ projectDir: dir, stack: "ci", previewOnly: false, selectStack: async () => engineStack(stackConfig(dir, "ci").config) });
        assert.strictEqual(summary.failedStep, "preflight");
        assert.match(summary.steps[0].detail, /kubeContext = "kind-prod"/);
    });

    it("preflights the configuration the engine gives (ESC environments, secrets providers), and stops there, naming the step", async () => {
        const config = { "tf-serving:modelPath": "/nonexistent/model", "tf-serving:publicEndpoint": "true" };
        const lines: string[] = [];
        const selected: string[] = [];
        const summary = await ciDeploy({
            projectDir: ROOT, stack: "ci", previewOnly: false, onStep: (l) => lines.push(l),
            selectStack: async ({ stackName }) => { selected.push(stackName); return engineStack(config); },
        });
        assert.deepStrictEqual(selected, ["ci"]);
        assert.strictEqual(summary.ok, false);
        assert.strictEqual(summary.failedStep, "preflight");
        assert.deepStrictEqual(summary.steps.map((s) => s.step), ["preflight"], "nothing after the failed step runs");
        assert.match(summary.steps[0].detail, /tf-serving:modelPath \(\/nonexistent\/model\)/);
        assert.ok(lines.some((l) => l.startsWith("✘ preflight")));
    });

    it("says the Pulumi CLI is missing instead of the engine's raw ENOENT", async () => {
        // What the Automation API throws when `pulumi` is not on PATH.
        const enoent = new Error("code: -2\n stdout: \n stderr: Command failed with ENOENT: pulumi version\nspawn pulumi ENOENT\n err?: Error: Command failed with ENOENT: pulumi version\nspawn pulumi ENOENT\n");
        const summary = await ciDeploy({ projectDir: ROOT, stack: "ci", previewOnly: true, selectStack: async () => { throw enoent; } });
        assert.strictEqual(summary.failedStep, "preflight");
        assert.match(summary.steps[0].detail, /^tfs deploy runs the Pulumi CLI, which is not on PATH: install the Pulumi CLI and put it on PATH/);
        assert.doesNotMatch(summary.steps[0].detail, /code: -2|ENOENT/);
        const unknown = await ciDeploy({
            projectDir: ROOT, stack: "nope", previewOnly: true,
            selectStack: async () => { throw new Error("code: 255\n stdout: \n stderr: error: no stack named 'nope' found\n"); },
        });
        assert.match(unknown.steps[0].detail, /^cannot select stack "nope" in .*: error: no stack named 'nope' found \(`pulumi stack ls` shows the stacks .*; `pulumi stack init nope` creates it .*\)$/);
    });

    it("names a missing stack file", () => {
        assert.throws(() => stackInput(ROOT, "no-such-stack"), /no stack file .*Pulumi\.no-such-stack\.yaml; stacks with a file here: .*dev/);
    });

    // As the Automation API formats a failed command (automation/cmd.ts, CommandResult.toString).
    const commandFailure = (stdout: string, stderr: string) => new Error(`code: 255\n stdout: ${stdout}\n stderr: ${stderr}\n err?: \n`);

    it("keeps the Pulumi CLI's own error line of a failed preview, with the pulumi cancel advice for a locked stack", async () => {
        const config = stackInput(ROOT, "dev").config;
        const locked = commandFailure("Previewing update (ci):\n", "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n  ci-runner-7: 2026-12-04T20:00:00Z\n");
        const stack = { ...engineStack(config), preview: async () => { throw locked; } } as unknown as Stack;
        const summary = await ciDeploy({ projectDir: ROOT, stack: "ci", previewOnly: true, selectStack: async () => stack });
        assert.strictEqual(summary.failedStep, "preview");
        const detail = summary.steps.find((s) => s.step === "preview")!.detail;
        assert.match(detail, /^error: the stack is currently locked by 1 lock\(s\)/);
        assert.match(detail, /`pulumi cancel --stack ci` releases it.*docs\/troubleshooting\.md#the-stack-is-locked/);
        assert.doesNotMatch(detail, /code: 255|stdout:/);
    });

    it("names the missing token and the missing stack with their way out, and prefers a preview's specific error to 'preview failed'", () => {
        const token = commandFailure("", "error: PULUMI_ACCESS_TOKEN must be set for login during non-interactive CLI sessions\n");
        assert.match(engineFailure(token, "ci"), /^error: PULUMI_ACCESS_TOKEN must be set .* \(log in to the stack's backend: set PULUMI_ACCESS_TOKEN in CI/);
        assert.match(engineFailure(commandFailure("", "\nerror: no stack named 'ci' found\n"), "ci"), /^error: no stack named 'ci' found \(`pulumi stack ls` .*`pulumi stack init ci`/);
        const diagnostics = commandFailure("Diagnostics:\n  pulumi:pulumi:Stack (tf-serving-ci):\n    error: Running program failed: invalid configuration\n", "error: preview failed\n");
        assert.strictEqual(engineReason(diagnostics), "error: Running program failed: invalid configuration");
        assert.strictEqual(engineReason(commandFailure("", "warning: something\n")), "warning: something", "no error line: stderr's first line");
    });

    it("a job summary that cannot be written is one warning line naming GITHUB_STEP_SUMMARY, not a crash", () => {
        const missing = path.join(os.tmpdir(), "tfs-no-such-folder", "summary.md");
        assert.match(appendJobSummary(missing, "x") ?? "", /^warning: GITHUB_STEP_SUMMARY=.*tfs-no-such-folder\/summary\.md: cannot append the job summary \(ENOENT\)/);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-summary-"));
        assert.strictEqual(appendJobSummary(path.join(dir, "s.md"), "x"), undefined);
        assert.match(appendJobSummary(dir, "x") ?? "", /EISDIR/);
        fs.rmSync(dir, { recursive: true, force: true });
    });

    it("renders a job summary with the failed step and the diff", () => {
        const md = summaryMarkdown({
            stack: "prod", ok: false, failedStep: "smoke",
            steps: [{ step: "preflight", ok: true, seconds: 0.2, detail: "1 model(s) servable" }, { step: "smoke", ok: false, seconds: 30, detail: "not-available: a|b" }],
        }, "+ kubernetes:apps/v1:Deployment\n");
        assert.match(md, /❌ failed at \*\*smoke\*\*/);
        assert.match(md, /\| smoke \| failed \| 30\.0 \| not-available: a\\\|b \|/);
        assert.match(md, /```diff\n\+ kubernetes:apps\/v1:Deployment\n```/);
    });
});
