/**
 * Canary releases on the real node, through the CLI a user runs (`pulumi up`, `tfs deploy`), on one
 * live stack behind the environment's Gateway (Traefik), under steady client traffic: 20 REST
 * predicts a second and 20 gRPC Predicts a second on one channel, both through the Gateway.
 *
 * 1. the stack with `canary` set is created as any other (nothing to prove yet);
 * 2. a good version goes 10 % -> 50 % -> all: no failed request, each step's share as the canary
 *    pods' own counts saw it within 5 points of its weight, the canary and the old pods gone after,
 *    and the next preview has no changes;
 *    the golden file's cases checked on a canary pod first and passing, `tfs smoke --golden` passing
 *    and failing over REST and gRPC;
 * 3. a version that answers wrong (half_plus_three over half_plus_two, its signature change allowed):
 *    refused by the golden check on the canary pod before any weight moved, 0 failed requests, the
 *    message naming the case, the output, the expected and the received values;
 * 4. a bad version (its signature renamed, so the clients' predicts fail), through `tfs deploy`:
 *    rolled back by the error gate at the first step, failures only while it held its 10 %, the
 *    exit and message naming the gate, the figure, the threshold and the step, `tfs doctor` telling
 *    it, the old version still serving; the next preview would run it again, and the old config
 *    changes nothing in the cluster;
 * 5. a slow version (the stand-in's delay knob): rolled back by the latency gate;
 * 6. an update killed mid-canary: the release puts traffic back by itself, no request fails, and
 *    `pulumi up` again (after `pulumi cancel` for the lock the killed one left) converges.
 *
 * Shortened through the stack's own config (the same code path, shorter numbers): 15 s holds,
 * 250m pods.
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { CliResult, TFS, runCli } from "../support/cli";
import { CanaryRun, observedSteps, watchCanary } from "../support/canaryWatch";
import { E2eProject, FIXTURES, MODEL, createProject, env, kubectlAsync } from "../support/e2eProject";
import { grpcUnderTraffic } from "../support/grpcTraffic";
import { predict, underTraffic } from "../support/traffic";
import { descendants, signalAll } from "../support/processTree";
import { SMOKE_EXIT_CODES } from "../../ops/smoke";

/* eslint-disable @typescript-eslint/no-explicit-any */

const CANARY = `${MODEL}-canary`;
const TWO = [2.5, 3, 4.5];
const HOLD_SECONDS = 15;
const GATES = { maxErrorRatio: 0.01, maxP99Ms: 300, minRequests: 30 };
/** The stand-in's knob (tools/e2e-env/go/tfserving-standin/load.go): every Predict of that version waits this long. */
const DELAY_FILE = "tfs_standin_predict_delay_ms";
const SLOW_MS = 800;
/** half_plus_two's answers: one case with its expected outputs, one compared with the serving version's answers. */
const GOLDEN = [
    { name: "three rows", request: { instances: [1, 2, 5] }, expected: { y: [2.5, 3, 4.5] }, tolerance: { atol: 1e-6 } },
    { name: "as the serving version", request: { signature_name: "serving_default", instances: [10, -4] } },
];
/** The same requests with half_plus_three's answers: what a file written for the wrong model expects. */
const GOLDEN_OF_THREE = [{ name: "three rows", request: { instances: [1, 2, 5] }, expected: { y: [3.5, 4, 5.5] } }];
const jsonLines = (cases: unknown[]) => cases.map((c) => JSON.stringify(c)).join("\n") + "\n";

describe("canary releases inside pulumi up: metric gates, automatic rollback, a killed update", function () {
    this.timeout(30 * 60 * 1000);
    let project: E2eProject;
    let restUrl = "";
    let grpcEndpoint = "";
    const log: string[] = [];

    const cli = async (command: string, args: string[], onSpawn?: (pid: number) => void): Promise<CliResult> => {
        const result = await runCli(command, args, { cwd: project.projectDir, onSpawn });
        log.push(`$ ${command} ${args.join(" ")} -> ${result.code} (${result.seconds.toFixed(1)} s)\n${result.stdout.slice(-6000)}\n${result.stderr.slice(-3000)}`);
        return result;
    };
    const pulumi = (args: string[], onSpawn?: (pid: number) => void) => cli("pulumi", [...args, "--stack", project.stackName, "--non-interactive"], onSpawn);
    const ok = (r: CliResult, what: string) => assert.strictEqual(r.code, 0, `${what} exited ${r.code}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    const servingImage = async () => (await kubectlAsync("get", "deployment", MODEL, "-n", project.namespace)).spec.template.spec.containers[0].image as string;
    const canaryExists = async () => (await kubectlAsync("get", "deployments", "-n", project.namespace)).items.some((d: any) => d.metadata.name === CANARY);

    /** One version folder in the model folder: `from`'s files as version `version`, the others removed. */
    const serveVersion = (from: string, version: number, delayMs?: number) => {
        for (const v of fs.readdirSync(project.modelDir)) {
            fs.rmSync(path.join(project.modelDir, v), { recursive: true, force: true });
        }
        const dir = path.join(project.modelDir, String(version));
        fs.cpSync(from, dir, { recursive: true });
        if (delayMs !== undefined) {
            fs.mkdirSync(path.join(dir, "assets.extra"), { recursive: true });
            fs.writeFileSync(path.join(dir, "assets.extra", DELAY_FILE), String(delayMs));
        }
    };
    const goldenFile = () => path.join(project.projectDir, "golden.jsonl");
    const config = (extra: Record<string, unknown> = {}) => project.setConfig({
        replicas: 2, cpu: "250m", endpoint: "gateway", gateway: { className: env("TFS_E2E_GATEWAY_CLASS") },
        loadBalancerSourceRanges: undefined, publicEndpoint: true,
        canary: { steps: [10, 50], holdSeconds: HOLD_SECONDS, replicas: 1, gates: GATES },
        golden: goldenFile(),
        // Each image's versions carry a warmup file written from the golden cases at staging.
        warmup: "golden",
        ...extra,
    });

    /** Runs `command` under REST and gRPC traffic through the Gateway, watching the route and the pods. */
    const underCanary = async (command: () => Promise<CliResult>): Promise<CanaryRun> => {
        const running = command();
        const [result, rest, grpc, samples] = await Promise.all([
            running,
            underTraffic(restUrl, MODEL, running, { rps: 20, maxSeconds: 900, expected: TWO }),
            grpcUnderTraffic(grpcEndpoint, { tls: false }, MODEL, running, 900, 20),
            watchCanary(project.namespace, MODEL, running),
        ]);
        const steps = observedSteps(samples);
        console.log(`      traffic: REST ${rest.requests} requests, ${rest.failures.length} failed; gRPC ${grpc.requests}, ${grpc.failures.length} failed; ` +
            `steps seen: ${steps.map((s) => `${s.weight} %: ${s.canaryPercent.toFixed(1)} % of ${s.calls} calls over ${s.seconds.toFixed(0)} s` +
                `${s.routedAfter === undefined ? ", no canary call" : `, first canary call ${s.routedAfter.toFixed(0)} s after the route changed`}`).join("; ") || "none"}`);
        return { result, rest, grpc, samples, steps };
    };
    /** The update's own lines about the canary, as it printed them. */
    const canaryLines = (r: CliResult) => `${r.stdout}\n${r.stderr}`.split("\n").map((l) => l.trim()).filter((l) => l.includes(`canary of ${MODEL}`));

    /** Bounded wait (`seconds`) for a state. */
    const until = async (what: string, seconds: number, check: () => Promise<boolean>) => {
        for (let i = 0; i < seconds * 2; i++) {
            if (await check()) {
                return;
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.fail(`${what}: not within ${seconds} s`);
    };

    before(async () => {
        env("TFS_E2E_GATEWAY_CLASS");
        project = await createProject();
        fs.writeFileSync(goldenFile(), jsonLines(GOLDEN));
        config();
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            console.log(log.join("\n\n"));
        }
        log.length = 0;
    });

    after(async () => {
        await project?.dispose();
    });

    let goodImage = "";

    it("1. create: a stack with a canary set deploys as before, with the canary's Service and no canary pods", async () => {
        ok(await pulumi(["up", "--yes"]), "pulumi up");
        const out = await project.pulumi.outputs() as Record<string, string>;
        restUrl = out.restUrl;
        grpcEndpoint = out.grpcEndpoint;
        assert.deepStrictEqual(await predict(restUrl, MODEL, [1, 2, 5]), TWO);
        assert.strictEqual(await canaryExists(), false);
        await kubectlAsync("get", "service", CANARY, "-n", project.namespace);
        await project.pulumi.preview({ expectNoChanges: true });
    });

    it("2. a good version: 10 % -> 50 % -> all, each share within 5 points, no failed request, the canary and old pods gone", async () => {
        const before = await servingImage();
        serveVersion(path.join(FIXTURES, "half_plus_two_2_versions", "00000124"), 124);
        const run = await underCanary(() => pulumi(["up", "--yes"]));
        ok(run.result, "pulumi up");
        console.log(canaryLines(run.result).map((l) => `      ${l}`).join("\n"));
        assert.deepStrictEqual([...run.rest.failures, ...run.grpc.failures], [], "no request fails");
        assert.deepStrictEqual(run.steps.map((s) => s.weight), [10, 50], "the route took each step's weight in order");
        for (const s of run.steps) {
            assert.ok(Math.abs(s.canaryPercent - s.weight) <= 5, `step ${s.weight} %: the canary's pods answered ${s.canaryPercent.toFixed(1)} % of ${s.calls} calls`);
        }
        const lines = canaryLines(run.result).join("\n");
        assert.match(lines, /the Gateway routed the canary its first call [\d.]+ s after the weight was set; holding \d+ s/, "the hold starts at the first routed call");
        assert.match(lines, /step 1\/2 \(10 %\): \d+ calls, 0 failed \(error ratio 0\.0000\), p99 [\d.]+ ms: passed/);
        assert.match(lines, /step 2\/2 \(50 %\): \d+ calls, 0 failed .*: passed/);
        assert.match(lines, /golden check: 2 cases of .*golden\.jsonl answered as expected on the canary in [\d.]+ s/, "the golden check ran before the first step");
        assert.ok(lines.indexOf("golden check:") < lines.indexOf("step 1/2"), "and before any weight moved");
        goodImage = await servingImage();
        assert.notStrictEqual(goodImage, before);
        assert.strictEqual(((await project.pulumi.outputs()) as Record<string, string>).imageRef, goodImage);
        assert.strictEqual(await canaryExists(), false, "the canary Deployment is gone");
        const pods = (await kubectlAsync("get", "pods", "-n", project.namespace, "-l", "app.kubernetes.io/component=model-server")).items as any[];
        assert.deepStrictEqual(pods.map((p) => p.spec.containers[0].image), [goodImage, goodImage], "only the serving pods, on the new image");
        const served = execFileSync("kubectl", ["logs", pods[0].metadata.name, "-n", project.namespace], { encoding: "utf8", timeout: 30_000 });
        assert.match(served, /Finished reading warmup data for model at .*tf_serving_warmup_requests\. Number of warmup records read: 2\./,
            "the generated warmup file's 2 records were replayed before the pod was Ready");
        await project.pulumi.preview({ expectNoChanges: true });

        // The same file through the endpoint, as a user checks a live model: REST, then gRPC through the Gateway.
        const wrong = path.join(project.projectDir, "golden-of-three.jsonl");
        fs.writeFileSync(wrong, jsonLines(GOLDEN_OF_THREE));
        for (const grpc of [[], ["--grpc"]]) {
            const passed = await cli("node", [TFS, "smoke", "--stack", project.stackName, ...grpc, "--golden", goldenFile()]);
            assert.strictEqual(passed.code, 0, `tfs smoke ${grpc.join(" ")} --golden: ${passed.stdout}${passed.stderr}`);
            assert.match(passed.stdout, /case "three rows" \(.*golden\.jsonl:1\): ok/);
            const failed = await cli("node", [TFS, "smoke", "--stack", project.stackName, ...grpc, "--golden", wrong]);
            assert.strictEqual(failed.code, SMOKE_EXIT_CODES["golden-mismatch"], `tfs smoke ${grpc.join(" ")} --golden (wrong answers): ${failed.stdout}${failed.stderr}`);
            assert.match(`${failed.stdout}${failed.stderr}`, /case "three rows" \(.*golden-of-three\.jsonl:1\).*output "y".*expected 3\.5.*received 2\.5/s);
        }
    });

    it("3. a version that answers wrong: the golden check on the canary pod refuses it before any weight moves, 0 failed requests", async () => {
        serveVersion(path.join(FIXTURES, "half_plus_three", "00000123"), 128);
        // half_plus_three drops half_plus_two's other signatures: allowed here, so that only its answers decide.
        config({ allowSignatureChange: true });
        const run = await underCanary(() => pulumi(["up", "--yes"]));
        assert.notStrictEqual(run.result.code, 0, "pulumi up fails");
        const output = `${run.result.stdout}\n${run.result.stderr}`;
        assert.match(output, /canary of half-plus-two failed: golden check: 2 of 2 cases of .*golden\.jsonl answered otherwise on the canary, before any traffic moved: /);
        assert.match(output, /case "three rows" \(.*golden\.jsonl:1\): output "y" at \[0\]: expected 2\.5, received 3\.5/);
        assert.match(output, /No traffic moved from .*half-plus-two@sha256:/);
        assert.deepStrictEqual(run.steps, [], "no weight ever moved to the canary");
        assert.deepStrictEqual([...run.rest.failures, ...run.grpc.failures], [], "no request failed");
        assert.strictEqual(await servingImage(), goodImage, "the serving Deployment was not changed");
        assert.strictEqual(await canaryExists(), false);
        const route = await kubectlAsync("get", "httproute", MODEL, "-n", project.namespace);
        assert.ok(route.spec.rules[0].backendRefs.every((b: any) => b.name !== CANARY || b.weight === 0), "the route sends the canary nothing");

        // The serving version's files back: the Image returns to its tag (no push), and then nothing changes.
        serveVersion(path.join(FIXTURES, "half_plus_two_2_versions", "00000124"), 124);
        config();
        assert.deepStrictEqual(await project.pulumi.preview(), [`update docker:index/image:Image::${MODEL}`]);
        ok(await pulumi(["up", "--yes"]), "pulumi up, back to the serving version");
        await project.pulumi.preview({ expectNoChanges: true });
    });

    it("4. a bad version through tfs deploy: the error gate rolls it back at 10 %, failures only while it held, the old version serves", async () => {
        serveVersion(path.join(FIXTURES, "counter", "00000123"), 125);
        // The new export renamed its signature; the config follows it and allows the change at preview, the clients do not change.
        // Without its golden file, which would refuse it before any traffic (step 3): here the error gate decides.
        config({ signature: "incr_counter_by", allowSignatureChange: true, golden: undefined, warmup: undefined });
        const run = await underCanary(() => cli("node", [TFS, "deploy", "--stack", project.stackName]));
        assert.notStrictEqual(run.result.code, 0, "tfs deploy fails");
        const output = `${run.result.stdout}\n${run.result.stderr}`;
        assert.match(output, /canary of half-plus-two failed: step 1\/2 \(10 %\): \d+ calls, \d+ failed \(error ratio [\d.]+\).*: error ratio [\d.]+ > maxErrorRatio 0\.01/);
        assert.match(output, /Traffic is back on .*half-plus-two@sha256:/);
        assert.deepStrictEqual(run.steps.map((s) => s.weight), [10], "it never went past the first step");
        const [held] = run.steps;
        const failedAt = [...run.rest.failureTimes, ...run.grpc.failureTimes];
        const windowSeconds = (held.to - held.from) / 1000 + 3;
        const windowRequests = 40 * windowSeconds;
        console.log(`      bad version: ${failedAt.length} requests failed (REST ${run.rest.failures.length}, gRPC ${run.grpc.failures.length}) ` +
            `of about ${windowRequests.toFixed(0)} in the ${windowSeconds.toFixed(0)} s the canary held 10 %`);
        assert.ok(failedAt.length > 0, "the bad version did fail the clients' predicts it got");
        assert.ok(failedAt.every((t) => t >= held.from - 1000 && t <= held.to + 3000), "failures only while the canary held its share");
        assert.ok(failedAt.length <= 0.15 * windowRequests, `${failedAt.length} failures > 15 % of the ${windowRequests.toFixed(0)} requests of the hold`);
        assert.strictEqual(await servingImage(), goodImage, "the serving Deployment was not changed");
        assert.strictEqual(((await project.pulumi.outputs()) as Record<string, string>).imageRef, goodImage, "the outputs say the old version serves");
        assert.strictEqual(await canaryExists(), false);

        const doctor = await cli("node", [TFS, "doctor", "--stack", project.stackName]);
        assert.match(doctor.stdout, /canary-rolled-back: deployment\/half-plus-two/);
        assert.match(doctor.stdout, /canary of a new version failed its gate and was rolled back/);
        assert.match(doctor.stdout, /event Warning CanaryRolledBack .*canary of half-plus-two failed: step 1\/2 \(10 %\)/);

        // The same config again would run the canary again; the old one changes nothing in the cluster.
        const again = await project.pulumi.preview();
        assert.ok(again.includes(`update pulumi-nodejs:dynamic:Resource::${MODEL}-canary-release`), again.join("\n"));
        serveVersion(path.join(FIXTURES, "half_plus_two_2_versions", "00000124"), 124);
        config();
        // The failed update left the bad build in the Image's state: the Image goes back to the serving
        // version's tag, reusing the registry's copy (no push, the digest known at preview); nothing it feeds changes.
        const back = await project.pulumi.preview();
        assert.deepStrictEqual(back, [`update docker:index/image:Image::${MODEL}`]);
        const converge = await pulumi(["up", "--yes"]);
        ok(converge, "pulumi up, back to the serving version");
        assert.deepStrictEqual(canaryLines(converge), [], "no canary of the version that serves");
        assert.strictEqual(await servingImage(), goodImage, "the serving version's very bytes, not a rebuild");
        assert.strictEqual(((await project.pulumi.outputs()) as Record<string, string>).imageRef, goodImage);
        await project.pulumi.preview({ expectNoChanges: true });
    });

    it("5. a slow version: the latency gate rolls it back at 10 %", async () => {
        // A slow canary answers fewer calls in a hold (the gRPC client waits for each): a lower
        // minRequests lets the latency gate decide rather than the traffic gate.
        config({ canary: { steps: [10, 50], holdSeconds: HOLD_SECONDS, replicas: 1, gates: { ...GATES, minRequests: 10 } } });
        serveVersion(path.join(FIXTURES, "half_plus_two_2_versions", "00000124"), 126, SLOW_MS);
        const run = await underCanary(() => pulumi(["up", "--yes"]));
        assert.notStrictEqual(run.result.code, 0);
        assert.match(canaryLines(run.result).join("\n"), /failed: step 1\/2 \(10 %\): \d+ calls, 0 failed .*p99 [\d.]+ ms > maxP99Ms 300/);
        assert.deepStrictEqual([...run.rest.failures, ...run.grpc.failures], [], "slow answers are still answers");
        assert.strictEqual(await servingImage(), goodImage);
        assert.strictEqual(await canaryExists(), false);
    });

    it("6. an update killed mid-canary: traffic goes back by itself, nothing fails, and pulumi up again converges", async () => {
        config();
        serveVersion(path.join(FIXTURES, "half_plus_two_2_versions", "00000124"), 127);
        let pid = 0;
        let killedAt = 0;
        const run = await underCanary(async () => {
            let ended = false;
            const up = pulumi(["up", "--yes"], (p) => { pid = p; });
            void up.then(() => { ended = true; });
            await until("the canary takes its first step", 300, async () => {
                assert.ok(!ended, "pulumi up ended before the canary took a step");
                return (await kubectlAsync("get", "httproute", MODEL, "-n", project.namespace))
                    .spec.rules[0].backendRefs.some((b: any) => b.name === CANARY && b.weight > 0);
            });
            // As a CI runner cancelling the job's main process: the engine dies, its plugins do not
            // (the CLI starts them in process groups of their own, so they are found by parentage).
            const plugins = descendants(pid);
            process.kill(pid, "SIGKILL");
            killedAt = Date.now();
            await up;
            await until("the release puts all traffic back and deletes the canary", 60, async () => {
                const route = await kubectlAsync("get", "httproute", MODEL, "-n", project.namespace);
                return route.spec.rules[0].backendRefs.every((b: any) => b.name !== CANARY || b.weight === 0) && !(await canaryExists());
            });
            // Whatever of the killed run still lives (the language host, idle providers) ends here.
            signalAll(plugins, "SIGKILL");
            return { code: 0, stdout: "", stderr: "", seconds: 0 };
        });
        assert.deepStrictEqual([...run.rest.failures, ...run.grpc.failures], [], "no request fails, before or after the kill");
        assert.ok(killedAt > 0);
        assert.strictEqual(await servingImage(), goodImage, "the old version serves");

        const locked = await pulumi(["up", "--yes"]);
        assert.notStrictEqual(locked.code, 0);
        assert.match(`${locked.stdout}${locked.stderr}`, /the stack is currently locked .*pulumi cancel/s);
        ok(await pulumi(["cancel", "--yes"]), "pulumi cancel");
        const again = await underCanary(() => pulumi(["up", "--yes"]));
        ok(again.result, "pulumi up after the kill");
        assert.deepStrictEqual([...again.rest.failures, ...again.grpc.failures], []);
        assert.deepStrictEqual(again.steps.map((s) => s.weight), [10, 50], "the canary ran again from its first step");
        assert.notStrictEqual(await servingImage(), goodImage);
        assert.strictEqual(await canaryExists(), false);
        await project.pulumi.preview({ expectNoChanges: true });
    });
});
