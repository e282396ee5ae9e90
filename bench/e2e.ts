/**
 * `npm run bench [-- --json]`: what a user waits for, measured on the loopback environment, all in
 * one run on one control plane.
 *
 * - the engine floor: a minimal Pulumi TypeScript program (one ConfigMap, same engine and
 *   Kubernetes provider), no-op `up` and `preview`: what any program pays;
 * - the local stack with the small fixture model: first `up`, no-op `up` and `preview`;
 * - `kubectl apply --server-side` + `rollout status` of the same objects: the Kubernetes floor;
 * - traffic during a version update (a node that runs containers; null otherwise);
 * - gRPC on one channel through the LoadBalancer, then through a Gateway (`grpc`; same condition):
 *   latencies and each pod's share of the Predicts;
 * - a synthetic SavedModel of at least 1 GiB (the fixture's real graph with a large, incompressible
 *   variables file, generated here, never committed): first `up`, no-op `preview`, a new version's
 *   `up`, and the bytes the registry received for it against that version's compressed size.
 *
 * - a canary release behind the Gateway (`canary`; same condition): a good version through 10 % and
 *   50 % under REST and gRPC traffic, the update's seconds beyond its holds, when the canary was
 *   Ready, and each step's share as the pods' own counts saw it against its weight; beside it the
 *   same version by a plain rolling update on the same stack, so the canary's own cost is its
 *   seconds beyond its holds and that floor.
 *
 * - autoscaling behind the Gateway (`autoscaling`; same condition): the request-rate HPA (5 calls a
 *   second per pod, 1 to 3 pods) under 10 REST and about 30 gRPC calls a second: seconds from the
 *   load's start to the HPA asking for 3 and to 3 pods Ready (serving: the Gateway routes to Ready
 *   endpoints only), seconds from the load's end back to 1, the counts over time, requests failed.
 * - the model's contract (`contract`): the seconds a release's golden check of 20 cases adds, and
 *   the seconds `tfs warmup` takes for 1,000 records.
 *
 * - the model's delivery (`--delivery-only`, a part of its own, not in the full run): for the fixture
 *   model and the synthetic 1 GiB one, `embedded` against `imageVolume`, a base-image change (a
 *   stand-in base with another digest, pushed under a tag of its own) and a model change (a new
 *   version folder): the bytes the registry received per repository (from its access log), whether
 *   the model image was built and pushed, and the seconds from the `up`'s start to every pod Ready.
 *
 * `--noop-only` stops after the no-op figures and their floors (a few minutes); `--canary-only`
 * runs the canary release alone, `--autoscaling-only` the autoscaling run alone, `--contract-only` the contract part alone,
 * `--delivery-only` the delivery part.
 *
 * Prints figures and the goals' ratios; asserts nothing. A no-op timing is the median of three runs
 * (the program's and the floors' alternate), every other timing one run. `--noop-only` adds each
 * round's previews and the median of the rounds' ratios (`noopPreviewRatioPaired`).
 */
import { execFileSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { MODEL_SERVER_SELECTOR } from "../contract/labels";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import * as tar from "tar";
import * as YAML from "yaml";
import { E2eProject, MODEL, ROOT, createProject, env, environmentRunning, kubectl, manifestOf, projectTsconfig, removeLeftovers, startEnvironment, suiteEnvironmentCommand } from "../test/support/e2eProject";
import { GrpcBalanceReport, grpcBalance, grpcUnderTraffic } from "../test/support/grpcTraffic";
import { observedSteps, watchCanary } from "../test/support/canaryWatch";
import { query } from "../test/support/prometheus";
import { ReplicaSample, settledOf, showReplicas, watchReplicas } from "../test/support/replicaWatch";
import { TrafficReport, underTraffic } from "../test/support/traffic";

/* eslint-disable @typescript-eslint/no-explicit-any */

const BIG_MODEL_BYTES = 1024 ** 3 + 64 * 1024 ** 2;
const quiet = () => undefined;

async function seconds<T>(f: () => Promise<T> | T): Promise<[number, T]> {
    const start = process.hrtime.bigint();
    const value = await f();
    return [Number(process.hrtime.bigint() - start) / 1e9, value];
}

const round = (s: number) => Math.round(s * 100) / 100;

/** Runs per no-op median: 3, or `TFS_BENCH_RUNS` (an odd count keeps the median one run's figure). */
const RUNS = /^[1-9]\d*$/.test(process.env.TFS_BENCH_RUNS ?? "") ? Number(process.env.TFS_BENCH_RUNS) : 3;

function median(values: number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
}

/** The median of RUNS timings of `f`. */
async function medianSeconds(f: () => Promise<unknown>): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
        times.push((await seconds(f))[0]);
    }
    return median(times);
}

function folderBytes(dir: string): number {
    return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile())
        .reduce((sum, e) => sum + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
}

/** gzip size of a tar of the folder: what a registry layer of it costs, compressed. */
async function compressedBytes(dir: string): Promise<number> {
    let bytes = 0;
    const stream = tar.c({ gzip: true, cwd: path.dirname(dir), portable: true }, [path.basename(dir)]);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
        bytes += chunk.length;
    }
    return bytes;
}

/**
 * A model version folder of `bytes` bytes: the fixture's real graph and variables index, with its
 * variables data file padded by random (incompressible) bytes, written in 64 MiB chunks.
 */
function writeBigVersion(fixtureVersion: string, target: string, bytes: number): void {
    fs.rmSync(target, { recursive: true, force: true });
    fs.cpSync(fixtureVersion, target, { recursive: true });
    const data = path.join(target, "variables", "variables.data-00000-of-00001");
    const fd = fs.openSync(data, "a");
    try {
        const chunk = 64 * 1024 ** 2;
        for (let left = bytes - folderBytes(target); left > 0; left -= chunk) {
            fs.writeSync(fd, crypto.randomBytes(Math.min(chunk, left)));
        }
    } finally {
        fs.closeSync(fd);
    }
}

/** The live objects the stack created, as plain manifests for `kubectl apply` in another namespace. */
function exportObjects(namespace: string, target: string): string {
    const kinds = "serviceaccounts,configmaps,deployments,services,poddisruptionbudgets";
    const list = kubectl("get", kinds, "-n", namespace, "-l", MODEL_SERVER_SELECTOR);
    const docs = list.items.map((o: any) => {
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

async function kubectlFloor(project: E2eProject): Promise<number> {
    const target = `${project.namespace}-kubectl`;
    const manifests = exportObjects(project.namespace, target);
    execFileSync("kubectl", ["create", "namespace", target], { stdio: "ignore" });
    execFileSync("kubectl", ["label", "namespace", target, "pod-security.kubernetes.io/enforce=restricted"], { stdio: "ignore" });
    try {
        const apply = ["apply", "--server-side", "--field-manager", "bench", "-f", "-"];
        const rollout = ["rollout", "status", `deployment/${MODEL}`, "-n", target, "--timeout=300s"];
        kubectlTimed(apply, manifests);
        kubectlTimed(rollout);
        return kubectlTimed(apply, manifests) + kubectlTimed(rollout);
    } finally {
        execFileSync("kubectl", ["delete", "namespace", target, "--wait=false"], { stdio: "ignore" });
    }
}

/**
 * A minimal Pulumi TypeScript program on the same engine and provider: one ConfigMap, deployed.
 * `swc`: with the project's run settings (ts-node with the cached swc transpiler, bin/transpile.js)
 * instead of the default runtime's (ts-node with the TypeScript compiler).
 */
async function floorStack(namespace: string, swc: boolean): Promise<{ stack: Stack; dispose: () => Promise<void> }> {
    const name = swc ? "floor-swc" : "floor";
    const dir = fs.mkdtempSync(path.join(ROOT, ".tfs", `bench-${name}-`));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), YAML.stringify({ name: "tfs-bench-floor", runtime: { name: "nodejs", options: { typescript: true } } }));
    // `noCheck`: Pulumi then only transpiles, as in the repository. `moduleResolution`: ts-node's
    // defaults for this Node version say node16, which refuses `module: commonjs` (TS5110).
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
        compilerOptions: { strict: true, target: "ES2022", module: "commonjs", moduleResolution: "node", noCheck: true },
        ...(swc ? { "ts-node": projectTsconfig()["ts-node"] } : {}),
    }));
    fs.writeFileSync(path.join(dir, "index.ts"), [
        `import * as k8s from "@pulumi/kubernetes";`,
        `new k8s.core.v1.ConfigMap("floor", { metadata: { namespace: ${JSON.stringify(namespace)}, name: "bench-${name}" }, data: { a: "b" } });`,
        "",
    ].join("\n"));
    const stack = await LocalWorkspace.createOrSelectStack({ stackName: name, workDir: dir });
    await stack.up({ onOutput: quiet });
    return {
        stack,
        dispose: async () => {
            await stack.destroy({ onOutput: quiet }).catch(() => undefined);
            await stack.workspace.removeStack(name).catch(() => undefined);
            fs.rmSync(dir, { recursive: true, force: true });
        },
    };
}

/** Medians of the rounds, and each round's preview in the order run. */
type NoopTimes = { noopUp: number; noopPreview: number; previews: number[] };

/**
 * No-op `up` and `preview` of each stack, the median of RUNS rounds; in each round the stacks take
 * turns, so a slow moment of the machine falls on all of them.
 */
async function noopTimes(stacks: Stack[]): Promise<NoopTimes[]> {
    const ups: number[][] = stacks.map(() => []);
    const previews: number[][] = stacks.map(() => []);
    for (let round = 0; round < RUNS; round++) {
        for (const [i, stack] of stacks.entries()) {
            ups[i].push((await seconds(() => stack.up({ onOutput: quiet })))[0]);
            previews[i].push((await seconds(() => stack.preview({ onOutput: quiet })))[0]);
        }
    }
    return stacks.map((_, i) => ({ noopUp: median(ups[i]), noopPreview: median(previews[i]), previews: previews[i] }));
}

/**
 * The median of each round's ratio: a round runs the two stacks within seconds of each other, so a
 * slow minute of the machine weighs on both sides of one ratio instead of on one side's median.
 */
function pairedRatio(program: NoopTimes, floor: NoopTimes): number {
    return median(program.previews.map((p, round) => p / floor.previews[round]));
}

/** Does the load balancer address reach a server (a node that runs containers)? */
async function servesTraffic(modelStatusUrl: string): Promise<boolean> {
    try {
        const res = await fetch(modelStatusUrl, { signal: AbortSignal.timeout(3000) });
        return res.status === 200;
    } catch {
        return false;
    }
}

/** New image layers of `after` that `before` lacks, and their size. */
async function newLayers(before: string, after: string): Promise<{ count: number; bytes: number }> {
    const old = await manifestOf(before);
    const fresh = (await manifestOf(after)).layers.filter((l) => !old.layers.some((o) => o.digest === l.digest));
    return { count: fresh.length, bytes: fresh.reduce((sum, l) => sum + l.size, 0) };
}

const GRPC_REQUESTS = 300;

/**
 * gRPC Predicts on one channel through the stack's LoadBalancer, then through a Gateway of the
 * environment's GatewayClass (the same stack switched to `endpoint: gateway`): latencies and each
 * pod's share from the pods' own counts.
 */
async function grpcBench(project: E2eProject, log: (line: string) => void): Promise<Record<string, Omit<GrpcBalanceReport, "podCounts">>> {
    const pods = () => (kubectl("get", "pods", "-n", project.namespace, "-l", `app.kubernetes.io/instance=${MODEL}`).items as
        { metadata: { deletionTimestamp?: string }; status: { podIP?: string; phase: string } }[])
        .filter((p) => p.status.phase === "Running" && !p.metadata.deletionTimestamp && p.status.podIP).map((p) => p.status.podIP as string);
    const measure = async (endpoint: string) => {
        const report: Partial<GrpcBalanceReport> = await grpcBalance(endpoint, { tls: false }, MODEL, pods(), GRPC_REQUESTS);
        delete report.podCounts;
        return report as Omit<GrpcBalanceReport, "podCounts">;
    };
    const out: Record<string, Omit<GrpcBalanceReport, "podCounts">> = {};
    log(`[bench] gRPC: ${GRPC_REQUESTS} Predicts on one channel through the LoadBalancer`);
    out.loadBalancer = await measure((await project.stack.outputs()).grpcEndpoint.value as string);
    const className = process.env.TFS_E2E_GATEWAY_CLASS;
    if (className) {
        log(`[bench] gRPC: the same through a Gateway (class ${className})`);
        // The Gateway API has no source ranges: open on purpose (a loopback address here).
        project.setConfig({ endpoint: "gateway", gateway: { className }, loadBalancerSourceRanges: undefined, publicEndpoint: true });
        const up = await project.stack.up({ onOutput: quiet });
        out.gateway = await measure(up.outputs.grpcEndpoint.value as string);
    }
    return out;
}

/**
 * What scraping one model server pod costs, from Prometheus' own series for its targets (the
 * environment's Prometheus scrapes the stack's pods as their annotations say): samples per scrape
 * and the slowest scrape of the last 5 minutes. The exporter is the stand-in's, with TF Serving's
 * names and labels for what it serves; TF Serving's own exporter adds its other metrics.
 */
async function scrapeCost(namespace: string): Promise<{ samplesPerScrape: number; maxDurationMs: number } | null> {
    if (!process.env.TFS_E2E_PROMETHEUS_URL) {
        return null;
    }
    const [samples] = await query(`max(scrape_samples_scraped{job="kubernetes-pods", namespace="${namespace}"})`);
    const [duration] = await query(`max(max_over_time(scrape_duration_seconds{job="kubernetes-pods", namespace="${namespace}"}[5m]))`);
    return samples && duration ? { samplesPerScrape: Number(samples.value[1]), maxDurationMs: round(Number(duration.value[1]) * 1000) } : null;
}

/**
 * Runs the bench in the suite's environment, and stops it afterwards unless it was running before
 * (someone's to keep) or `TFS_E2E_KEEP=1` asks to keep it: a bench leaves nothing running.
 */
async function main(): Promise<void> {
    const wasRunning = environmentRunning();
    startEnvironment();
    try {
        await removeLeftovers((line) => console.error(line));
        await bench();
    } finally {
        if (!wasRunning && process.env.TFS_E2E_KEEP !== "1") {
            suiteEnvironmentCommand("stop", 5 * 60 * 1000);
        }
    }
}

const CANARY_STEPS = [10, 50];
const CANARY_HOLD_SECONDS = 15;

/**
 * A good version's canary release under 20 REST and 20 gRPC requests a second through the Gateway:
 * the update's seconds, its holds, the rest (the canary's start, the serving rollout, the drain and
 * the canary's removal), when the canary's pods were first Ready, and each step's observed share.
 * Beside it, its floor: the same new version on the same stack by a plain rolling update (the
 * canary off), under the same traffic; the canary's own cost is its seconds beyond its holds less
 * the rolling update's.
 */
async function canaryBench(log: (line: string) => void): Promise<Record<string, unknown>> {
    const project = await createProject();
    try {
        const className = process.env.TFS_E2E_GATEWAY_CLASS as string;
        const canary = { steps: CANARY_STEPS, holdSeconds: CANARY_HOLD_SECONDS, gates: { minRequests: 30 } };
        const configure = (withCanary: boolean) => project.setConfig({
            replicas: 2, cpu: "250m", endpoint: "gateway", gateway: { className }, loadBalancerSourceRanges: undefined, publicEndpoint: true,
            ...(withCanary ? { canary } : {}),
        });
        /** The model folder holding `version` alone (a copy of the fixture version the project started with). */
        const fixture = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-bench-version-"));
        fs.cpSync(path.join(project.modelDir, "123"), fixture, { recursive: true });
        const serve = (version: number) => {
            fs.readdirSync(project.modelDir).forEach((v) => fs.rmSync(path.join(project.modelDir, v), { recursive: true, force: true }));
            fs.cpSync(fixture, path.join(project.modelDir, String(version)), { recursive: true });
        };
        /** One `up` under traffic through the Gateway, timed; the canary watched. */
        const timedUp = async (restUrl: string, grpcEndpoint: string) => {
            const updating = project.stack.up({ onOutput: quiet });
            const [[updateSeconds], rest, grpc, samples] = await Promise.all([
                seconds(() => updating),
                underTraffic(restUrl, MODEL, updating, { rps: 20, expected: [2.5, 3, 4.5] }),
                grpcUnderTraffic(grpcEndpoint, { tls: false }, MODEL, updating, 900, 20),
                watchCanary(project.namespace, MODEL, updating),
            ]);
            return { updateSeconds, requests: rest.requests + grpc.requests, failed: rest.failures.length + grpc.failures.length, samples };
        };
        try {
            configure(false);
            log("[bench] canary: first up behind the Gateway, no canary");
            const up = await project.stack.up({ onOutput: quiet });
            const [restUrl, grpcEndpoint] = [up.outputs.restUrl.value as string, up.outputs.grpcEndpoint.value as string];
            log("[bench] canary: the new version by a plain rolling update under traffic");
            serve(124);
            const plain = await timedUp(restUrl, grpcEndpoint);
            log("[bench] canary: back to the old version, then the canary on");
            serve(123);
            await project.stack.up({ onOutput: quiet });
            configure(true);
            await project.stack.up({ onOutput: quiet });
            log("[bench] canary: the same new version through 10 % and 50 % under traffic");
            serve(124);
            const t0 = Date.now();
            const release = await timedUp(restUrl, grpcEndpoint);
            const holds = CANARY_STEPS.length * CANARY_HOLD_SECONDS;
            const firstReady = release.samples.find((x) => x.canaryPods.length > 0);
            return {
                updateSeconds: round(release.updateSeconds),
                holdSeconds: holds,
                beyondHoldsSeconds: round(release.updateSeconds - holds),
                rollingUpdateSeconds: round(plain.updateSeconds),
                overheadSeconds: round(release.updateSeconds - holds - plain.updateSeconds),
                canaryReadyAfterSeconds: firstReady ? round((firstReady.at - t0) / 1000) : null,
                steps: observedSteps(release.samples).map((x) => ({ weight: x.weight, observedPercent: round(x.canaryPercent), errorPoints: round(Math.abs(x.canaryPercent - x.weight)), calls: x.calls })),
                requests: release.requests,
                failed: release.failed,
                rollingUpdate: { requests: plain.requests, failed: plain.failed },
            };
        } finally {
            fs.rmSync(fixture, { recursive: true, force: true });
        }
    } finally {
        await project.dispose();
    }
}

/** How many golden cases the contract part checks, and how many warmup records it writes (TF Serving's most). */
const GOLDEN_CASES = 20;
const WARMUP_RECORDS = 1000;

/** `count` half_plus_two cases (y = x / 2 + 2), each a row of its own. */
function halfPlusTwoCases(count: number): string {
    return Array.from({ length: count }, (_, i) => JSON.stringify({ name: `case ${i}`, request: { instances: [i] }, expected: { y: [i / 2 + 2] } })).join("\n") + "\n";
}

/**
 * What the model's contract costs: the seconds the canary's golden check of GOLDEN_CASES cases adds
 * to a release (as the release measures and prints it: from the canary pods Ready to the first
 * weight), and the seconds `tfs warmup` takes to write WARMUP_RECORDS records (the CLI as a user
 * runs it, process start included).
 */
async function contractBench(log: (line: string) => void): Promise<Record<string, unknown>> {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-bench-contract-"));
    const project = await createProject();
    try {
        const golden = path.join(work, "golden.jsonl");
        fs.writeFileSync(golden, halfPlusTwoCases(GOLDEN_CASES));
        const className = process.env.TFS_E2E_GATEWAY_CLASS as string;
        project.setConfig({
            replicas: 1, cpu: "250m", endpoint: "gateway", gateway: { className }, loadBalancerSourceRanges: undefined, publicEndpoint: true,
            canary: { steps: [50], holdSeconds: 5, gates: { minRequests: 5 } }, golden,
        });
        log("[bench] contract: first up, a canary and a golden file set");
        const up = await project.stack.up({ onOutput: quiet });
        fs.cpSync(path.join(project.modelDir, "123"), path.join(project.modelDir, "124"), { recursive: true });
        log(`[bench] contract: a new version's release under traffic, its golden check of ${GOLDEN_CASES} cases timed by the release`);
        let printed = "";
        const release = project.stack.up({ onOutput: (text) => { printed += text; } });
        await underTraffic(up.outputs.restUrl.value as string, MODEL, release, { rps: 10, expected: [2.5, 3, 4.5] });
        await release;
        const checked = new RegExp(`golden check: ${GOLDEN_CASES} cases of .* answered as expected on the canary in ([\\d.]+) s`).exec(printed);
        if (checked === null) {
            throw new Error(`the release printed no golden check of ${GOLDEN_CASES} cases:\n${printed.slice(-3000)}`);
        }

        log(`[bench] contract: tfs warmup of ${WARMUP_RECORDS} records`);
        const model = path.join(work, "model");
        fs.cpSync(path.join(project.modelDir, "123"), path.join(model, "1"), { recursive: true });
        const cases = path.join(work, "warmup-golden.jsonl");
        fs.writeFileSync(cases, halfPlusTwoCases(WARMUP_RECORDS));
        const started = Date.now();
        execFileSync(process.execPath, [path.join(ROOT, "bin", "tfs.js"), "warmup", model, "--golden", cases], { stdio: "pipe", timeout: 120_000 });
        const warmupSeconds = (Date.now() - started) / 1000;
        const file = path.join(model, "1", "assets.extra", "tf_serving_warmup_requests");
        return {
            goldenCheck: { cases: GOLDEN_CASES, seconds: Number(checked[1]), goalSeconds: 5 },
            warmup: { records: WARMUP_RECORDS, seconds: round(warmupSeconds), bytes: fs.statSync(file).size },
        };
    } finally {
        await project.dispose();
        fs.rmSync(work, { recursive: true, force: true });
    }
}

/**
 * The request-rate HPA from 1 to 3 pods and back, as test/e2e/autoscaling.test.ts runs it: seconds
 * from the load's start to the HPA's ask and to the pods serving, from the load's end back to 1.
 */
async function autoscalingBench(log: (line: string) => void): Promise<Record<string, unknown>> {
    const project = await createProject();
    try {
        project.setConfig({
            cpu: "250m", endpoint: "gateway", gateway: { className: process.env.TFS_E2E_GATEWAY_CLASS as string },
            loadBalancerSourceRanges: undefined, publicEndpoint: true,
            autoscaling: { minReplicas: 1, maxReplicas: 3, targetRequestsPerSecond: 5, scaleDownStabilizationSeconds: 15 },
        });
        log("[bench] autoscaling: first up behind the Gateway (request-rate HPA, 1 to 3 pods)");
        const up = await project.stack.up({ onOutput: quiet });
        const [restUrl, grpcEndpoint] = [up.outputs.restUrl.value as string, up.outputs.grpcEndpoint.value as string];
        log("[bench] autoscaling: 10 REST and about 30 gRPC calls a second until 3 pods are Ready, then 1 a second");
        const samples: ReplicaSample[] = [];
        const t0 = Date.now();
        const scaled = watchReplicas(project.namespace, t0, samples, 240, (x) => x.ready === 3);
        const [rest, grpc] = await Promise.all([
            underTraffic(restUrl, MODEL, settledOf(scaled), { rps: 10, maxSeconds: 240, expected: [2.5, 3, 4.5] }),
            grpcUnderTraffic(grpcEndpoint, { tls: false }, MODEL, settledOf(scaled), 240),
        ]);
        const ready = await scaled;
        const tDown = Date.now();
        const settled = watchReplicas(project.namespace, t0, samples, 300, (x) => x.desired === 1 && x.ready === 1);
        const trickle = await underTraffic(restUrl, MODEL, settledOf(settled), { rps: 1, maxSeconds: 300, expected: [2.5, 3, 4.5] });
        await settled;
        return {
            askedForThreeAfterSeconds: samples.find((x) => x.desired >= 3)?.s ?? null,
            threeServingAfterSeconds: ready.s,
            backToOneAfterLoadSeconds: Math.round((Date.now() - tDown) / 1000),
            replicasOverTime: showReplicas(samples),
            requests: rest.requests + grpc.requests + trickle.requests,
            failed: rest.failures.length + grpc.failures.length + trickle.failures.length,
        };
    } finally {
        await project.dispose();
    }
}

/** The registry's access log (the environment's docker-registry writes it in its state folder). */
function registryLogFile(): string {
    return path.join(env("TFS_E2E_STATE"), "logs", "registry.log");
}

/** Where the registry's access log ends now: `registryReceived` reads what comes after. */
function registryMark(): number {
    return fs.statSync(registryLogFile()).size;
}

/** What one repository of the registry received. */
interface RepositoryReceived { bytes: number; blobsUploaded: number; blobsMounted: number; manifests: number }

const REGISTRY_WRITE = /"(PUT|POST) \/v2\/(\S+?)\/(blobs\/uploads\/\S*|manifests\/[^\s?]+) HTTP\/[\d.]+" (\d{3}) /;
const MANIFEST_TYPES = [
    "application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json",
].join(", ");

/** The size the registry reports for a blob or manifest (HEAD), 0 when it has none. */
async function registrySize(repo: string, kind: "blobs" | "manifests", ref: string): Promise<number> {
    const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/${kind}/${ref}`, { method: "HEAD", headers: kind === "manifests" ? { Accept: MANIFEST_TYPES } : {} });
    return res.status === 200 ? Number(res.headers.get("content-length") ?? 0) : 0;
}

/**
 * What the registry received since `mark`, per repository, from its access log: each blob upload
 * the registry closed (a `PUT .../blobs/uploads/...?digest=`, or a one-request `POST ...?digest=`)
 * counts the blob's size, each manifest put its size; a blob mounted from another repository
 * (`POST ...?mount=`, 201) sends no bytes and is counted apart.
 */
async function registryReceived(mark: number): Promise<Record<string, RepositoryReceived>> {
    const fd = fs.openSync(registryLogFile(), "r");
    let text: string;
    try {
        const size = fs.fstatSync(fd).size;
        const buf = Buffer.alloc(Math.max(0, size - mark));
        fs.readSync(fd, buf, 0, buf.length, mark);
        text = buf.toString("utf8");
    } finally {
        fs.closeSync(fd);
    }
    const out: Record<string, RepositoryReceived> = {};
    for (const line of text.split("\n")) {
        const m = REGISTRY_WRITE.exec(line);
        if (m === null || m[4] !== "201") {
            continue;
        }
        const [, method, repo, target] = m;
        const r = (out[repo] ??= { bytes: 0, blobsUploaded: 0, blobsMounted: 0, manifests: 0 });
        if (target.startsWith("manifests/")) {
            r.manifests++;
            r.bytes += await registrySize(repo, "manifests", target.slice("manifests/".length));
            continue;
        }
        const query = new URLSearchParams(target.split("?")[1] ?? "");
        const digest = query.get("digest");
        if (method === "POST" && query.has("mount") && digest === null) {
            r.blobsMounted++;
        } else if (digest !== null) {
            r.blobsUploaded++;
            r.bytes += await registrySize(repo, "blobs", digest);
        }
    }
    return out;
}

/** Bytes of the stand-in base's new layer: a patch's worth of changed files. */
const BASE_PATCH_BYTES = 8 * 1024 ** 2;

interface StandInBase { image: string; repository: string; digest: string; received: Record<string, RepositoryReceived> }

/**
 * A base with another digest, as a patched TF Serving release is: `FROM` the environment's stand-in
 * base, a label and a file of BASE_PATCH_BYTES random bytes, built with podman and pushed to the
 * loopback registry under a tag of its own; what the registry received for that push.
 */
async function pushStandInBase(log: (line: string) => void): Promise<StandInBase> {
    const from = env("TFS_E2E_BASE_IMAGE");
    const name = from.slice(0, from.lastIndexOf(":"));
    const tag = `bench-${Date.now().toString(36)}`;
    const image = `${name}:${tag}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-bench-base-"));
    try {
        fs.writeFileSync(path.join(dir, "patch.bin"), crypto.randomBytes(BASE_PATCH_BYTES));
        fs.writeFileSync(path.join(dir, "Containerfile"), `FROM ${from}\nLABEL tf-serving.bench.base="${tag}"\nCOPY patch.bin /opt/tfs-bench/patch.bin\n`);
        log(`[bench] delivery: a stand-in base with another digest, ${image}`);
        const podman = (...args: string[]) => execFileSync("podman", args, { stdio: ["ignore", "ignore", "pipe"], timeout: 600_000 });
        podman("build", "--platform", "linux/amd64", "-t", image, "-f", path.join(dir, "Containerfile"), dir);
        const mark = registryMark();
        podman("push", image);
        const received = await registryReceived(mark);
        const repository = name.slice(env("TFS_E2E_REGISTRY").length + 1);
        const head = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repository}/manifests/${tag}`, { method: "HEAD", headers: { Accept: MANIFEST_TYPES } });
        return { image, repository, digest: head.headers.get("docker-content-digest") ?? "", received };
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

/** Has the model server's Deployment rolled out: every replica of the current template Ready and available, none other left? */
function rolledOut(namespace: string): boolean {
    const d = kubectl("get", "deployment", MODEL, "-n", namespace);
    const s = d.status ?? {};
    const want = d.spec.replicas;
    return (s.observedGeneration ?? 0) >= d.metadata.generation && s.updatedReplicas === want && s.readyReplicas === want
        && s.availableReplicas === want && (s.replicas ?? 0) === want;
}

/** What the pods run: the server image, and with `imageVolume` the model artifact mounted beside it. */
function servedImages(namespace: string): { image: string; artifact: string | null } {
    const spec = kubectl("get", "deployment", MODEL, "-n", namespace).spec.template.spec;
    const artifact = (spec.volumes ?? []).find((v: any) => v.image !== undefined)?.image.reference ?? null;
    return { image: spec.containers[0].image, artifact };
}

/**
 * One timed `up` of a changed stack: the seconds from its start to every pod Ready (the `up` waits
 * for the Deployment's rollout; when it was not complete at the `up`'s end, polled until it is,
 * and `readyBy` says so), the bytes each repository received, whether the model image was built (its
 * Image resource updated or replaced) and pushed (a manifest put in the model's repository), and
 * whether the model the pods run kept its digest.
 */
async function measuredUp(project: E2eProject, baseRepository: string): Promise<Record<string, unknown>> {
    const before = servedImages(project.namespace);
    const previousTag = ((await project.stack.outputs()).imageBuilds?.value ?? {})[MODEL]?.tag;
    const mark = registryMark();
    const imageOps: string[] = [];
    const start = process.hrtime.bigint();
    const since = () => Number(process.hrtime.bigint() - start) / 1e9;
    const up = await project.stack.up({
        onOutput: quiet,
        onEvent: (e) => {
            const m = e.resOutputsEvent?.metadata;
            if (m && /^docker:.*:Image$/.test(m.type)) {
                imageOps.push(m.op);
            }
        },
    });
    const upSeconds = since();
    let readyBy = "up";
    if (!rolledOut(project.namespace)) {
        readyBy = "poll";
        for (let i = 0; i < 600 && !rolledOut(project.namespace); i++) {
            await new Promise((r) => setTimeout(r, 1000));
        }
    }
    const readySeconds = readyBy === "up" ? upSeconds : since();
    const received = await registryReceived(mark);
    const after = servedImages(project.namespace);
    const modelRepo = `e2e-${project.run}/`;
    const bytesOf = (pick: (repo: string) => boolean) => Object.entries(received).filter(([repo]) => pick(repo)).reduce((sum, [, r]) => sum + r.bytes, 0);
    const model = Object.entries(received).filter(([repo]) => repo.startsWith(modelRepo)).map(([, r]) => r);
    const build = (up.outputs.imageBuilds?.value ?? {})[MODEL] as { tag: string; pushed: boolean } | undefined;
    const modelOf = (served: { image: string; artifact: string | null }) => served.artifact ?? served.image;
    return {
        upSeconds: round(upSeconds), readySeconds: round(readySeconds), readyBy,
        bytesReceived: {
            base: bytesOf((repo) => repo === baseRepository),
            model: bytesOf((repo) => repo.startsWith(modelRepo)),
            other: bytesOf((repo) => repo !== baseRepository && !repo.startsWith(modelRepo)),
        },
        modelBlobsUploaded: model.reduce((n, r) => n + r.blobsUploaded, 0),
        modelBlobsMounted: model.reduce((n, r) => n + r.blobsMounted, 0),
        modelImageOps: imageOps.filter((op) => op !== "same"),
        modelBuilt: imageOps.some((op) => op !== "same" && op !== "read"),
        modelPushed: model.some((r) => r.manifests > 0),
        modelTagChanged: build?.tag !== previousTag,
        sameModelDigest: modelOf(before) === modelOf(after),
        serverImageChanged: before.image !== after.image,
    };
}

/**
 * One model and one delivery: the first `up`, then a base change (the stand-in base's tag as
 * `baseImage`), then a model change (a new version folder, the fixture's copy or a new 1 GiB one).
 */
async function deliveryCase(kind: "sample" | "big", delivery: "embedded" | "imageVolume", base: StandInBase, log: (line: string) => void): Promise<Record<string, unknown>> {
    const project = await createProject();
    const seed = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-bench-seed-"));
    try {
        const fixtureVersion = path.join(project.modelDir, "123");
        fs.cpSync(fixtureVersion, seed, { recursive: true });
        if (kind === "big") {
            log(`[bench] delivery, ${kind}, ${delivery}: writing ${BIG_MODEL_BYTES} bytes`);
            writeBigVersion(seed, fixtureVersion, BIG_MODEL_BYTES);
        }
        const config = { modelDelivery: delivery, replicas: kind === "big" ? 1 : 2 };
        project.setConfig(config);
        log(`[bench] delivery, ${kind}, ${delivery}: first up`);
        const [firstUp] = await seconds(() => project.stack.up({ onOutput: quiet }));
        log(`[bench] delivery, ${kind}, ${delivery}: a base change`);
        project.setConfig({ ...config, baseImage: base.image });
        const baseChange = await measuredUp(project, base.repository);
        log(`[bench] delivery, ${kind}, ${delivery}: a model change (a new version)`);
        const v2 = path.join(project.modelDir, "124");
        if (kind === "big") {
            writeBigVersion(seed, v2, BIG_MODEL_BYTES);
        } else {
            fs.cpSync(seed, v2, { recursive: true });
        }
        const versionBytesCompressed = await compressedBytes(v2);
        const modelChange = await measuredUp(project, base.repository);
        const pushed = (modelChange.bytesReceived as { model: number }).model;
        return {
            modelBytes: folderBytes(fixtureVersion), replicas: config.replicas, firstUpSeconds: round(firstUp), baseChange,
            modelChange: { ...modelChange, versionBytesCompressed, pushedOverCompressed: round(pushed / versionBytesCompressed) },
        };
    } finally {
        fs.rmSync(seed, { recursive: true, force: true });
        await project.dispose();
    }
}

/**
 * `--delivery-only`: `embedded` against `imageVolume` for the fixture model and the 1 GiB one, each
 * on a stack of its own; one stand-in base pushed for all four. Rows of a table, and each case whole.
 */
async function deliveryBench(log: (line: string) => void): Promise<Record<string, unknown>> {
    const started = Date.now();
    const base = await pushStandInBase(log);
    const cases: Record<string, Record<string, unknown>> = {};
    const rows: Record<string, unknown>[] = [];
    for (const kind of ["sample", "big"] as const) {
        for (const delivery of ["embedded", "imageVolume"] as const) {
            const c = await deliveryCase(kind, delivery, base, log);
            cases[`${kind}/${delivery}`] = c;
            for (const change of ["baseChange", "modelChange"] as const) {
                const f = c[change] as any;
                rows.push({
                    model: kind === "big" ? "1 GiB" : "sample", delivery, change: change === "baseChange" ? "base" : "model",
                    baseBytes: change === "baseChange" ? base.received[base.repository]?.bytes ?? 0 : f.bytesReceived.base,
                    modelBytes: f.bytesReceived.model, modelBuilt: f.modelBuilt, modelPushed: f.modelPushed, sameModelDigest: f.sameModelDigest,
                    readySeconds: f.readySeconds, readyBy: f.readyBy,
                    ...(change === "modelChange" ? { pushedOverCompressed: f.pushedOverCompressed } : {}),
                });
            }
        }
    }
    return {
        standInBase: { image: base.image, digest: base.digest, patchBytes: BASE_PATCH_BYTES, received: base.received },
        rows, cases, seconds: round((Date.now() - started) / 1000),
    };
}

async function bench(): Promise<void> {
    const json = process.argv.includes("--json");
    const log = (line: string) => { if (!json) { console.error(line); } };
    if (process.argv.includes("--canary-only")) {
        console.log(JSON.stringify({ canary: await canaryBench(log) }, null, json ? 0 : 2));
        return;
    }
    if (process.argv.includes("--contract-only")) {
        console.log(JSON.stringify({ contract: await contractBench(log) }, null, json ? 0 : 2));
        return;
    }
    if (process.argv.includes("--delivery-only")) {
        console.log(JSON.stringify({ delivery: await deliveryBench(log) }, null, json ? 0 : 2));
        return;
    }
    if (process.argv.includes("--autoscaling-only")) {
        console.log(JSON.stringify({ autoscaling: await autoscalingBench(log) }, null, json ? 0 : 2));
        return;
    }

    const small = await createProject();
    let result: Record<string, unknown>;
    try {
        log("[bench] small model: first up");
        const [firstUp, up] = await seconds(() => small.stack.up({ onOutput: quiet }));
        log(`[bench] no-op up and preview: the small model's stack and the engine floors (one ConfigMap), ${RUNS} rounds`);
        const floors = [await floorStack(small.namespace, false), await floorStack(small.namespace, true)];
        let times: NoopTimes[];
        try {
            times = await noopTimes([small.stack, ...floors.map((f) => f.stack)]);
        } finally {
            for (const f of floors) {
                await f.dispose();
            }
        }
        const [{ noopUp, noopPreview }, floor, floorSwc] = times;
        if (process.argv.includes("--noop-only")) {
            // The no-op figures alone (a few minutes): for working on the preview a user runs most.
            console.log(JSON.stringify({
                noopUp: round(noopUp), noopPreview: round(noopPreview),
                engineFloor: { noopUp: round(floor.noopUp), noopPreview: round(floor.noopPreview) },
                engineFloorSwc: { noopUp: round(floorSwc.noopUp), noopPreview: round(floorSwc.noopPreview) },
                noopPreviewRatio: round(noopPreview / floor.noopPreview), noopUpRatio: round(noopUp / floor.noopUp),
                noopPreviewRatioPaired: round(pairedRatio(times[0], floor)),
                previews: { program: times[0].previews.map(round), engineFloor: floor.previews.map(round) },
            }));
            return;
        }
        log("[bench] kubectl floor");
        const kubectl = await kubectlFloor(small);

        let update: TrafficReport | null = null;
        let grpc: Record<string, unknown> | null = null;
        let scrape: Awaited<ReturnType<typeof scrapeCost>> = null;
        const restUrl = up.outputs.restUrl.value as string;
        // A preview of a new version: it previewed an error (a registry lookup of the unpushed tag) before.
        fs.cpSync(path.join(small.modelDir, "123"), path.join(small.modelDir, "124"), { recursive: true });
        log(`[bench] preview of a new version, ${RUNS} runs`);
        const updatePreview = await medianSeconds(() => small.stack.preview({ onOutput: quiet }));
        if (await servesTraffic(up.outputs.modelStatusUrl.value as string)) {
            log("[bench] a new version under traffic (20 predicts a second through the load balancer)");
            update = await underTraffic(restUrl, MODEL, small.stack.up({ onOutput: quiet }), { expected: [2.5, 3, 4.5] });
            scrape = await scrapeCost(small.namespace);
            grpc = await grpcBench(small, log);
        }
        const canary = update === null ? null : await canaryBench(log);
        const autoscaling = update === null ? null : await autoscalingBench(log);
        const contract = update === null ? null : await contractBench(log);
        result = {
            noopUp: round(noopUp), noopPreview: round(noopPreview),
            engineFloor: { noopUp: round(floor.noopUp), noopPreview: round(floor.noopPreview) },
            engineFloorSwc: { noopUp: round(floorSwc.noopUp), noopPreview: round(floorSwc.noopPreview) },
            kubectlFloor: round(kubectl),
            firstUp: round(firstUp),
            smallModel: { bytes: folderBytes(path.join(small.modelDir, "123")), noopPreview: round(noopPreview) },
            updatePreview: round(updatePreview),
            update: update && { requests: update.requests, failed: update.failures.length, p50Ms: round(update.p50), p99Ms: round(update.p99) },
            grpc,
            scrape,
            canary,
            autoscaling,
            contract,
        };
    } finally {
        await small.dispose();
    }

    const big = await createProject();
    try {
        log(`[bench] big model: writing ${BIG_MODEL_BYTES} bytes`);
        const fixtureVersion = path.join(big.modelDir, "123");
        const seed = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-bench-seed-"));
        fs.cpSync(fixtureVersion, seed, { recursive: true });
        writeBigVersion(seed, fixtureVersion, BIG_MODEL_BYTES);
        big.setConfig({ replicas: 1 });
        const bytes = folderBytes(fixtureVersion);
        log("[bench] big model: first up, no-op preview");
        const [firstUp, up] = await seconds(() => big.stack.up({ onOutput: quiet }));
        const noopPreview = await medianSeconds(() => big.stack.preview({ onOutput: quiet }));
        log("[bench] big model: a new version");
        const v2 = path.join(big.modelDir, "124");
        writeBigVersion(seed, v2, BIG_MODEL_BYTES);
        fs.rmSync(seed, { recursive: true, force: true });
        const versionBytesCompressed = await compressedBytes(v2);
        const [versionUpdate, bump] = await seconds(() => big.stack.up({ onOutput: quiet }));
        const pushed = await newLayers(up.outputs.imageRef.value as string, bump.outputs.imageRef.value as string);
        result.bigModel = {
            bytes, firstUp: round(firstUp), noopPreview: round(noopPreview), versionUpdate: round(versionUpdate),
            bytesPushed: pushed.bytes, layersPushed: pushed.count, versionBytesCompressed,
        };
    } finally {
        await big.dispose();
    }

    if (json) {
        console.log(JSON.stringify(result));
        return;
    }
    const r = result as any;
    const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "n/a");
    const rows: [string, string, string][] = [
        ["no-op up / engine floor", ratio(r.noopUp, r.engineFloor.noopUp), "<= 1.5"],
        ["no-op preview / engine floor", ratio(r.noopPreview, r.engineFloor.noopPreview), "<= 1.5"],
        ["no-op up / engine floor with swc", ratio(r.noopUp, r.engineFloorSwc.noopUp), "(stricter)"],
        ["no-op preview / engine floor with swc", ratio(r.noopPreview, r.engineFloorSwc.noopPreview), "(stricter)"],
        ["preview of a new version / no-op preview (small model)", ratio(r.updatePreview, r.noopPreview), "(seconds: " + r.updatePreview + ")"],
        ["no-op preview, 1 GiB model / small model", ratio(r.bigModel.noopPreview, r.smallModel.noopPreview), "<= 1.25"],
        ["bytes pushed / new version compressed", ratio(r.bigModel.bytesPushed, r.bigModel.versionBytesCompressed), "<= 1.01"],
        ["failed requests during an update", r.update ? `${r.update.failed} of ${r.update.requests}` : "n/a (no node runs containers)", "0"],
        ["canary release: seconds beyond its holds", r.canary ? String(r.canary.beyondHoldsSeconds) : "n/a", `(holds ${r.canary?.holdSeconds ?? "-"} s)`],
        ["the same version by a plain rolling update: seconds", r.canary ? String(r.canary.rollingUpdateSeconds) : "n/a", "(the floor)"],
        ["canary release: seconds beyond its holds and the rolling update", r.canary ? String(r.canary.overheadSeconds) : "n/a", "(its own cost)"],
        ["canary release: worst share error of a step (points)", r.canary ? String(Math.max(...r.canary.steps.map((x: any) => x.errorPoints))) : "n/a", "<= 5"],
    ];
    console.log(`\ntf-serving benchmark (${os.cpus().length} CPUs, ${new Date().toISOString()})`);
    console.log(JSON.stringify(result, null, 2));
    const width = Math.max(...rows.map(([k]) => k.length));
    for (const [k, v, goal] of rows) {
        console.log(`  ${k.padEnd(width)}  ${v.padStart(8)}  goal ${goal}`);
    }
}

main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
});
