/**
 * Failures that slip past the product's checks, on real pods of the environment's real node, each
 * deployed through `ModelServer` directly (test/support/modelServerProject.ts) with an image built
 * by hand, and each diagnosed by `tfs doctor` from what the kubelet reports and the server logs:
 *
 * - a model at the wrong path in the image: the rollout stops, `pulumi up` fails at the progress
 *   deadline, the old pods keep serving (zero failed requests), doctor names the path;
 * - a memory limit below the model (the sizing check bypassed): a real OOMKilled;
 * - the server binary without its exec bit: the real "permission denied" start error.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { DoctorResult, Finding, formatReport, runDoctor } from "../../ops/doctor";
import { env } from "../support/e2eProject";
import { fixtureModelDir } from "../support/fixtures";
import { buildHandImage, servingTail } from "../support/handBuiltImage";
import { ModelServerProject, createModelServerProject } from "../support/modelServerProject";
import { underTraffic } from "../support/traffic";

const MODEL = "half-plus-two";
const MI = 2 ** 20;

function folderBytes(dir: string): number {
    return fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => {
        const p = path.join(dir, e.name);
        return sum + (e.isDirectory() ? folderBytes(p) : fs.statSync(p).size);
    }, 0);
}

function finding(result: DoctorResult, kind: Finding["kind"]): Finding {
    const f = result.diagnosis.findings.find((x) => x.kind === kind);
    assert.ok(f, `no ${kind} finding in:\n${formatReport(result)}`);
    return f;
}

function hasEvidence(f: Finding, pattern: RegExp): void {
    assert.ok(f.evidence.some((e) => pattern.test(e)), `no evidence matching ${pattern} in:\n${f.evidence.join("\n")}`);
}

/** Polls `check` every second until it returns a value, at most `seconds`. */
async function waitFor<T>(what: string, seconds: number, check: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i <= seconds; i++) {
        const value = await check();
        if (value !== undefined) {
            return value;
        }
        await new Promise((r) => setTimeout(r, 1000));
    }
    throw new Error(`timed out after ${seconds} s waiting for ${what}`);
}

describe("failures that slip past preflight, on real pods", function () {
    this.timeout(20 * 60 * 1000);
    const model = path.join(fixtureModelDir("half_plus_two_cpu"), "00000123");
    const modelBytes = folderBytes(model);
    let project: ModelServerProject;

    beforeEach(async () => {
        project = await createModelServerProject(MODEL);
    });

    afterEach(async () => {
        await project?.dispose();
    });

    const doctor = () => runDoctor({ kubeconfigFile: env("KUBECONFIG"), namespace: project.namespace });

    /** The first container status of the namespace's model pods that satisfies `match`. */
    async function containerStatus(match: (cs: { state?: any; lastState?: any }) => boolean): Promise<unknown> { // eslint-disable-line @typescript-eslint/no-explicit-any
        const { execFileSync } = await import("child_process");
        const pods = JSON.parse(execFileSync("kubectl", ["get", "pods", "-n", project.namespace, "-o", "json"], { encoding: "utf8" })) as
            { items: { status?: { containerStatuses?: { state?: unknown; lastState?: unknown }[] } }[] };
        return pods.items.flatMap((p) => p.status?.containerStatuses ?? []).find(match);
    }

    it("a model at the wrong path: the rollout stops at the progress deadline, the old pods serve on, doctor names the path", async () => {
        const good = buildHandImage("good", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/${MODEL}/123/\n${servingTail(MODEL)}`, { model });
        const first = await project.up({ image: good, modelBytes });
        const restUrl = first.outputs.restUrl as string;
        assert.match(restUrl, /^http:\/\/127\.0\.\d+\.\d+:8501$/);

        // The classic slip: the folder named after the fixture (underscores), the server looking for the model name (dashes).
        const broken = buildHandImage("wrong-path", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/half_plus_two/123/\n${servingTail(MODEL)}`, { model });
        const started = Date.now();
        const update = project.up({ image: broken, modelBytes }).then(
            () => assert.fail("pulumi up succeeded with a model at the wrong path"),
            (err: Error) => err,
        );
        const traffic = await underTraffic(restUrl, MODEL, update, { expected: [2.5, 3, 4.5] });
        const err = await update;
        const seconds = (Date.now() - started) / 1000;
        console.log(`      pulumi up failed after ${seconds.toFixed(0)} s; ${traffic.requests} requests, ${traffic.failures.length} failed, p50 ${traffic.p50} ms, p99 ${traffic.p99} ms`);
        assert.match(err.message, /ProgressDeadlineExceeded|progress deadline|timed out progressing/i, err.message.slice(-2000));
        assert.deepStrictEqual(traffic.failures, [], "the old pods kept answering every request");
        assert.ok(traffic.requests > 20 * 60, `traffic ran through the update (${traffic.requests} requests)`);

        const result = await doctor();
        const f = finding(result, "model-not-found");
        hasEvidence(f, /^log half-plus-two-[a-z0-9]+-[a-z0-9]+\/tf-serving: ".*Could not find base path \/models\/half-plus-two for servable half-plus-two/);
        assert.match(f.summary, /no folder \/models\/half-plus-two for model half-plus-two/);
        console.log(formatReport(result).split("\n").map((l) => `      | ${l}`).join("\n"));
    });

    it("a memory limit below the model: a real OOMKilled, with the exit code, the limit and the model size", async () => {
        // A real graph with a variables file grown to 128 MiB: the server reads it all into memory.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-big-model-"));
        try {
            fs.cpSync(model, path.join(dir, "123"), { recursive: true });
            const shard = path.join(dir, "123", "variables", "variables.data-00000-of-00001");
            const padded = Buffer.alloc(128 * MI, 0x5a);
            fs.readFileSync(shard).copy(padded);
            fs.writeFileSync(shard, padded);
            const bigBytes = folderBytes(dir);
            const image = buildHandImage("big", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/${MODEL}/\n${servingTail(MODEL)}`, { model: dir });
            const update = project.up({ image, modelBytes: bigBytes, replicas: 1, memoryLimit: "64Mi" }).then(() => undefined, (err: Error) => err);
            const oom = await waitFor("an OOMKilled container", 300, () => containerStatus((cs) =>
                cs.state?.terminated?.reason === "OOMKilled" || cs.lastState?.terminated?.reason === "OOMKilled"));
            console.log(`      container status: ${JSON.stringify(oom)}`);
            const result = await doctor();
            const f = finding(result, "oom-killed");
            hasEvidence(f, /terminated: OOMKilled, exit code 137/);
            hasEvidence(f, /^memory limit 64Mi \(64 MiB\)$/);
            hasEvidence(f, new RegExp(`model size ${(bigBytes / MI).toFixed(0)} MiB on disk`));
            console.log(formatReport(result).split("\n").map((l) => `      | ${l}`).join("\n"));
            const err = await update;
            assert.ok(err instanceof Error, "pulumi up fails: the pod never becomes ready");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("the server without its exec bit: the real permission-denied start error", async () => {
        const image = buildHandImage("no-exec", [
            `FROM ${env("TFS_E2E_BASE_IMAGE")}`,
            "RUN chmod 0644 /usr/bin/tensorflow_model_server",
            `COPY --chmod=0755 model/ /models/${MODEL}/123/`,
            servingTail(MODEL),
        ].join("\n"), { model });
        const update = project.up({ image, modelBytes, replicas: 1 }).then(() => undefined, (err: Error) => err);
        const denied = await waitFor("a StartError", 300, () => containerStatus((cs) =>
            /permission denied/.test(cs.state?.terminated?.message ?? cs.lastState?.terminated?.message ?? cs.state?.waiting?.message ?? "")));
        console.log(`      container status: ${JSON.stringify(denied)}`);
        const result = await doctor();
        const f = finding(result, "permission-denied");
        hasEvidence(f, /StartError, exit code 128, .*"\/usr\/bin\/tensorflow_model_server": permission denied/);
        hasEvidence(f, /pod runs as user 10001/);
        console.log(formatReport(result).split("\n").map((l) => `      | ${l}`).join("\n"));
        const err = await update;
        assert.ok(err instanceof Error, "pulumi up fails: the container never starts");
    });
});
