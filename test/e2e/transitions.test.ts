/**
 * Transitions: one live stack behind the environment's Gateway, walked through each feature switched
 * on, changed and switched off again, the way users change a stack: the stack file edited, then
 * `pulumi preview` (it must show what the change does: the resources, by type, name and operation),
 * `pulumi up --yes` (which previews again), `pulumi preview --expect-no-changes`. Every step runs
 * under steady client traffic through the stack's endpoint (10 REST predicts and 10 gRPC Predicts a
 * second, on one gRPC channel), kept up until the Deployment's rollout is over, and no request may
 * fail, except where the docs say a change costs an outage (`endpoint` moves the address; a canary
 * rolled back failed the requests its bad version got): there the test measures it and holds it to
 * a bound.
 *
 * In order (each step starts from the one before; the order lets one stack serve them all):
 * autoscaling on CPU, on the request rate, on both, off (the replica count returns to `replicas`);
 * the monitoring collector to the Prometheus Operator's objects, to none, back to the default; a
 * private registry's login added and removed; batching on, changed, off; `endpoint` to
 * `loadBalancer` (a second model added and removed there: two Gateways would share the
 * environment's one address) and back to `gateway`; a canary on, changed, a release it passes, off;
 * on again, `endpoint` moved away from the Gateway (refused at preview while the canary is on),
 * `replicas` changed, a release it rolls back, off.
 *
 * Sized for the node it shares with the other lane (test/e2e/lanes.ts): one serving pod of 250m
 * (`replicas: 1`), at most three pods at once.
 *
 * It runs in lane 1: it deploys a Gateway, and starts its login registry on the port privateRegistry
 * uses. `TFS_E2E_TRANSITIONS_FROM=17 npm run test:e2e -- test/e2e/transitions.test.ts` runs step 0 and
 * then the canary's steps alone (each group of steps ends where the stack began).
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CliResult } from "../support/cli";
import { CanaryRun, CanarySample, observedSteps, watchCanary } from "../support/canaryWatch";
import { E2eProject, FIXTURES, MODEL, createProject, env, kubectlAsync } from "../support/e2eProject";
import { SwitchReport, watchSwitch } from "../support/endpointSwitch";
import { grpcUnderTraffic } from "../support/grpcTraffic";
import { LocalRegistry, TEST_LOGIN, startRegistry } from "../support/registry";
import { predict, underTraffic } from "../support/traffic";

/* eslint-disable @typescript-eslint/no-explicit-any */

const SECOND = "half-plus-three";
const INSTANCES = [1, 2, 5];
/** half_plus_two: y = x/2 + 2; half_plus_three: y = x/2 + 3. */
const TWO = [2.5, 3, 4.5];
const THREE = [3.5, 4, 5.5];
const RPS = 10;
/** The Gateway API has no source ranges: the stack says the endpoint is open on purpose (the address is loopback here). */
const OPEN = { loadBalancerSourceRanges: undefined, publicEndpoint: true };
/**
 * The most a client that follows `restUrl` may go without an answer when `endpoint` moves the address:
 * the old address stops during the update, the new one is published when it ends.
 */
const OUTAGE_BOUND_SECONDS = 60;
/** The limit of a step's traffic, the longest a step may take. */
const STEP_LIMIT_SECONDS = 600;

const DEPLOYMENT = `kubernetes:apps/v1:Deployment::${MODEL}`;
const IMAGE = `docker:index/image:Image::${MODEL}`;
const HPA = `kubernetes:autoscaling/v2:HorizontalPodAutoscaler::${MODEL}`;
const SERVICE = `kubernetes:core/v1:Service::${MODEL}`;
/** The canary's two steps inside `pulumi up`: the release before the serving Deployment changes, the finish after. */
const RELEASE = [`pulumi-nodejs:dynamic:Resource::${MODEL}-canary-release`, `pulumi-nodejs:dynamic:Resource::${MODEL}-canary-finish`];
/** A model change: a new image, and the pods moved to it. */
const NEW_IMAGE = [`update ${IMAGE}`, `update ${DEPLOYMENT}`];

/** Short numbers through the stack's own config (the user's code path): a 10 s hold, few calls needed. */
const CANARY = { steps: [50], holdSeconds: 10, replicas: 1, gates: { maxErrorRatio: 0.01, maxP99Ms: 1000, minRequests: 5 } };
const CANARY_CHANGED = { steps: [10, 50], holdSeconds: 5, replicas: 1, gates: { maxErrorRatio: 0.02, maxP99Ms: 2000, minRequests: 3 } };

/** One step's figures, for the table printed at the end. */
interface StepRecord {
    step: string;
    seconds: number;
    rest: string;
    grpc: string;
    note?: string;
}

describe("transitions: each feature switched on, changed and off on one live stack, through the pulumi CLI, under traffic", function () {
    this.timeout(45 * 60 * 1000);
    let project: E2eProject;
    let registry: LocalRegistry | undefined;
    let secondDir = "";
    let batchingFile = "";
    const records: StepRecord[] = [];
    const log: string[] = [];
    /** The stack file's settings now: each step changes some and writes them all. */
    let settings: Record<string, unknown> = {};

    const configure = (change: Record<string, unknown>) => {
        settings = { ...settings, ...change };
        project.setConfig(settings);
    };
    const pulumi = async (...args: string[]): Promise<CliResult> => {
        const r = await project.pulumi.run(...args);
        log.push(`$ pulumi ${args.join(" ")} -> ${r.code} (${r.seconds.toFixed(1)} s)\n${r.stdout.slice(-6000)}\n${r.stderr.slice(-3000)}`);
        return r;
    };
    const ok = (r: CliResult, what: string) => assert.strictEqual(r.code, 0, `${what} exited ${r.code}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    const outputs = async () => await project.pulumi.outputs() as Record<string, any>;
    const deployment = (name = MODEL) => kubectlAsync("get", "deployment", name, "-n", project.namespace);
    const exists = async (kind: string, name: string) =>
        ((await kubectlAsync("get", kind, "-n", project.namespace)).items as any[]).some((o) => o.metadata.name === name);

    /** Bounded wait (`seconds`) for a state. */
    const until = async (what: string, seconds: number, check: () => Promise<boolean>) => {
        const end = Date.now() + seconds * 1000;
        while (Date.now() < end) {
            if (await check().catch(() => false)) {
                return;
            }
            await new Promise((r) => setTimeout(r, 1000));
        }
        assert.fail(`${what}: not within ${seconds} s`);
    };
    /** The Deployment's rollout is over: every replica updated, available and Ready, no old pod left. */
    const rolledOut = async (name = MODEL, replicas?: number) => {
        let seen = "nothing read";
        try {
            await until(`the rollout of ${name}`, 240, async () => {
                const d = await deployment(name);
                const s = d.status;
                const pods = ((await kubectlAsync("get", "pods", "-n", project.namespace, "-l", `app.kubernetes.io/instance=${name}`)).items as any[]);
                seen = `spec.replicas ${d.spec.replicas}, status ${JSON.stringify(s)}; pods: ${pods.map((p) =>
                    `${p.metadata.name} ${p.status.phase}${p.metadata.deletionTimestamp ? ` deleted at ${p.metadata.deletionTimestamp}` : ""}`).join(", ")}`;
                return s.observedGeneration >= d.metadata.generation && (replicas === undefined || d.spec.replicas === replicas)
                    && s.updatedReplicas === d.spec.replicas && s.readyReplicas === d.spec.replicas && s.replicas === d.spec.replicas
                    && pods.length === d.spec.replicas;
            });
        } catch (err) {
            const events = await kubectlAsync("get", "events", "-n", project.namespace).catch(() => ({ items: [] }));
            const last = (events.items as any[]).slice(-15).map((e) => `${e.involvedObject?.kind}/${e.involvedObject?.name} ${e.reason}: ${e.message}`);
            throw new Error(`${(err as Error).message}; last seen: ${seen}; events:\n${last.join("\n")}`);
        }
    };

    /**
     * One transition: the preview shows `expected` (sorted `OP TYPE::NAME`, as `changedSteps`), then
     * `pulumi up --yes` under REST and gRPC traffic through the current endpoint, kept up until
     * `settle` holds, then the next preview has no changes. No request may fail unless `allowFailures`.
     */
    const transition = async (step: string, expected: string[], options: {
        settle?: () => Promise<void>;
        allowFailures?: boolean;
        upFails?: boolean;
        watch?: boolean;
        note?: (run: CanaryRun) => string;
    } = {}): Promise<CanaryRun> => {
        const t0 = Date.now();
        const planned = await project.pulumi.preview();
        assert.deepStrictEqual(planned, [...expected].sort(), `${step}: what pulumi preview shows`);
        const out = await outputs();
        const updating = pulumi("up", "--yes").then(async (r) => {
            if (r.code === 0) {
                await (options.settle ?? (() => rolledOut()))();
            }
            return r;
        });
        const [result, rest, grpc, samples] = await Promise.all([
            updating,
            underTraffic(out.restUrl, MODEL, updating, { rps: RPS, maxSeconds: STEP_LIMIT_SECONDS, instances: INSTANCES, expected: TWO }),
            grpcUnderTraffic(out.grpcEndpoint, { tls: false }, MODEL, updating, STEP_LIMIT_SECONDS, RPS),
            options.watch ? watchCanary(project.namespace, MODEL, updating) : Promise.resolve([] as CanarySample[]),
        ]);
        if (options.upFails) {
            assert.notStrictEqual(result.code, 0, `${step}: pulumi up should fail`);
        } else {
            ok(result, `${step}: pulumi up`);
            await project.pulumi.preview({ expectNoChanges: true });
        }
        const run: CanaryRun = { result, rest, grpc, samples, steps: observedSteps(samples) };
        const record: StepRecord = {
            step, seconds: (Date.now() - t0) / 1000,
            rest: `${rest.requests}/${rest.failures.length}`, grpc: `${grpc.requests}/${grpc.failures.length}`, note: options.note?.(run),
        };
        records.push(record);
        console.log(`      ${step}: ${record.seconds.toFixed(0)} s; REST ${record.rest} and gRPC ${record.grpc} (sent/failed)${record.note ? `; ${record.note}` : ""}`);
        if (!options.allowFailures) {
            assert.deepStrictEqual([...rest.failures, ...grpc.failures].slice(0, 5), [], `${step}: no request fails`);
        }
        assert.ok(rest.requests >= RPS && grpc.requests >= RPS, `${step}: the traffic ran through the step`);
        return run;
    };

    /** The HPA's desired count and the ready pods reach `replicas` (bounded). */
    const scaledTo = (replicas: number) => until(`${replicas} ready pods`, 180, async () => {
        const [hpa, d] = await Promise.all([kubectlAsync("get", "hpa", MODEL, "-n", project.namespace), deployment()]);
        return hpa.status?.desiredReplicas === replicas && d.status.readyReplicas === replicas && d.status.replicas === replicas;
    });

    /** One version folder in the model folder: `fixture`'s `version` as `as`. */
    const serveVersion = (fixture: string, version: string, as: number) => {
        for (const v of fs.readdirSync(project.modelDir)) {
            fs.rmSync(path.join(project.modelDir, v), { recursive: true, force: true });
        }
        fs.cpSync(path.join(FIXTURES, fixture, version), path.join(project.modelDir, String(as)), { recursive: true });
    };

    before(async () => {
        const gatewayClass = env("TFS_E2E_GATEWAY_CLASS");
        const [, port] = env("TFS_E2E_LOGIN_REGISTRY").split(":");
        registry = await startRegistry({ port: Number(port), login: true });
        project = await createProject();
        secondDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-second-"));
        fs.cpSync(path.join(FIXTURES, "half_plus_three", "00000123"), path.join(secondDir, "1"), { recursive: true });
        batchingFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-batching-")), "batching.txt");
        configure({ ...OPEN, replicas: 1, endpoint: "gateway", gateway: { className: gatewayClass } });
    });

    // Each step starts from the state the one before left: after a failure the rest would test nothing.
    let failed = false;
    // TFS_E2E_TRANSITIONS_FROM=N runs step 0 and then steps N onwards (each group ends where the stack began).
    const from = Number(process.env.TFS_E2E_TRANSITIONS_FROM ?? "0");
    beforeEach(function () {
        const step = Number(/^(\d+)\./.exec(this.currentTest?.title ?? "")?.[1] ?? "0");
        if (failed || (step > 0 && step < from)) {
            this.skip();
        }
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            failed = true;
            console.log(log.slice(-4).join("\n\n"));
        }
        log.length = 0;
    });

    after(async () => {
        if (records.length > 0) {
            console.log(`      ${"step".padEnd(58)} ${"s".padStart(5)} ${"REST sent/failed".padStart(17)} ${"gRPC sent/failed".padStart(17)}`);
            for (const r of records) {
                console.log(`      ${r.step.padEnd(58)} ${r.seconds.toFixed(0).padStart(5)} ${r.rest.padStart(17)} ${r.grpc.padStart(17)}${r.note ? `  ${r.note}` : ""}`);
            }
        }
        if (process.env.TFS_E2E_KEEP !== "1") {
            await project?.dispose();
        }
        await registry?.stop();
        for (const dir of [secondDir, batchingFile && path.dirname(batchingFile)].filter((d) => d !== "")) {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("0. create: one serving pod behind the Gateway", async () => {
        ok(await pulumi("up", "--yes"), "pulumi up");
        const out = await outputs();
        assert.deepStrictEqual(await predict(out.restUrl, MODEL, INSTANCES), TWO);
        await project.pulumi.preview({ expectNoChanges: true });
    });

    describe("autoscaling", () => {
        const scaling = { minReplicas: 2, maxReplicas: 3, scaleDownStabilizationSeconds: 15 };

        it("1. on CPU: the HPA takes the Deployment to its minimum of 2", async () => {
            configure({ autoscaling: { ...scaling, targetCpuUtilization: 90 } });
            // The Deployment stops naming a replica count: the HPA owns it.
            await transition("autoscaling on (CPU)", [`create ${HPA}`, `update ${DEPLOYMENT}`], { settle: () => scaledTo(2) });
            const hpa = await kubectlAsync("get", "hpa", MODEL, "-n", project.namespace);
            assert.deepStrictEqual(hpa.spec.metrics.map((m: any) => m.type), ["Resource"]);
        });

        it("2. on the request rate instead: the HPA changes in place", async () => {
            configure({ autoscaling: { ...scaling, targetRequestsPerSecond: 100 } });
            await transition("autoscaling on the request rate", [`update ${HPA}`], { settle: () => scaledTo(2) });
            const hpa = await kubectlAsync("get", "hpa", MODEL, "-n", project.namespace);
            assert.deepStrictEqual(hpa.spec.metrics.map((m: any) => m.type), ["Pods"]);
        });

        it("3. on both: the HPA changes in place", async () => {
            configure({ autoscaling: { ...scaling, targetCpuUtilization: 90, targetRequestsPerSecond: 100 } });
            await transition("autoscaling on CPU and the request rate", [`update ${HPA}`], { settle: () => scaledTo(2) });
            const hpa = await kubectlAsync("get", "hpa", MODEL, "-n", project.namespace);
            assert.deepStrictEqual(hpa.spec.metrics.map((m: any) => m.type), ["Resource", "Pods"]);
        });

        it("4. off: the HPA deleted first, the replica count back to `replicas` (1) and kept", async () => {
            configure({ autoscaling: undefined });
            // Below the HPA's minimum of 2, `replicas` is what an HPA still there would undo at its next
            // sync ("Current number of replicas below Spec.MinReplicas"): the hook deletes it first.
            const startedAt = Math.floor(Date.now() / 1000) * 1000;
            const run = await transition("autoscaling off", [`delete ${HPA}`, `update ${DEPLOYMENT}`], { settle: () => rolledOut(MODEL, 1) });
            assert.match(`${run.result.stdout}\n${run.result.stderr}`, /model "half-plus-two": deleted the HorizontalPodAutoscaler before the Deployment takes the replica count back/);
            assert.doesNotMatch(`${run.result.stdout}\n${run.result.stderr}`, /could not be deleted before/);
            assert.strictEqual(await exists("hpa", MODEL), false);
            // The HPA rescaled nothing during the update: the race's mark ("New size: 2").
            const events = (await kubectlAsync("get", "events", "-n", project.namespace)).items as any[];
            assert.deepStrictEqual(events.filter((e) => e.involvedObject?.kind === "HorizontalPodAutoscaler" && e.reason === "SuccessfulRescale"
                && new Date(e.lastTimestamp ?? e.eventTime).getTime() >= startedAt).map((e) => e.message), []);
            assert.strictEqual((await deployment()).spec.replicas, 1);
        });
    });

    describe("monitoring collectors", () => {
        const RULES = `kubernetes:core/v1:ConfigMap::${MODEL}-prometheus-rules`;
        const DASHBOARD = `kubernetes:core/v1:ConfigMap::${MODEL}-dashboard`;
        const OPERATOR = [`kubernetes:monitoring.coreos.com/v1:PodMonitor::${MODEL}-podmonitor`, `kubernetes:monitoring.coreos.com/v1:PrometheusRule::${MODEL}-prometheusrule`];

        it("5. prometheus-operator: its PodMonitor and PrometheusRule replace the rules ConfigMap", async () => {
            configure({ monitoring: { collector: "prometheus-operator" } });
            await transition("monitoring: annotations -> prometheus-operator", [...OPERATOR.map((r) => `create ${r}`), `delete ${RULES}`]);
            assert.strictEqual(await exists("podmonitor", MODEL), true);
            assert.strictEqual(await exists("prometheusrule", MODEL), true);
        });

        it("6. none: every monitoring object deleted", async () => {
            configure({ monitoring: { collector: "none" } });
            await transition("monitoring: prometheus-operator -> none", [...OPERATOR, DASHBOARD].map((r) => `delete ${r}`));
            assert.strictEqual(await exists("podmonitor", MODEL), false);
            assert.strictEqual(await exists("configmap", `${MODEL}-dashboard`), false);
        });

        it("7. the default again (annotations): the rules and dashboard ConfigMaps back", async () => {
            configure({ monitoring: undefined });
            await transition("monitoring: none -> default (annotations)", [RULES, DASHBOARD].map((r) => `create ${r}`));
        });
    });

    describe("a private registry's login", () => {
        // The Docker provider logged in for the digest lookups comes with the login, and goes with it.
        const LOGIN = [`kubernetes:core/v1:Secret::${MODEL}-registry`, `pulumi:providers:docker::${MODEL}-registry`];

        it("8. added: the image pushed to the login registry, the pods pull it with a pull Secret", async () => {
            configure({ registry: { server: registry!.host, repositoryPrefix: `e2e-${project.run}`, username: TEST_LOGIN.username, password: TEST_LOGIN.password } });
            await transition("registry login added", [...NEW_IMAGE, ...LOGIN.map((r) => `create ${r}`)]);
            const d = await deployment();
            assert.ok(d.spec.template.spec.containers[0].image.startsWith(`${registry!.host}/`));
            assert.strictEqual(d.spec.template.spec.imagePullSecrets.length, 1);
        });

        it("9. removed: back to the open registry's copy, the pull Secret deleted", async () => {
            // Back to the open registry the stack started on (left out, `registry` takes the program's default for `cloud: local`, localhost:5001).
            configure({ registry: { server: env("TFS_E2E_REGISTRY"), repositoryPrefix: `e2e-${project.run}` } });
            await transition("registry login removed", [...NEW_IMAGE, ...LOGIN.map((r) => `delete ${r}`)]);
            const d = await deployment();
            assert.ok(d.spec.template.spec.containers[0].image.startsWith(`${env("TFS_E2E_REGISTRY")}/`));
            assert.strictEqual(d.spec.template.spec.imagePullSecrets, undefined);
        });
    });

    describe("batching", () => {
        const flags = async () => (await deployment()).spec.template.spec.containers[0].args as string[];
        // The parameters live in the server's ConfigMap, auto-named: a change replaces it, and the pods roll onto the new one.
        const SERVER_CONFIG = [`replace kubernetes:core/v1:ConfigMap::${MODEL}-server-config`, `update ${DEPLOYMENT}`];

        it("10. on: the derived parameters", async () => {
            configure({ batching: true });
            await transition("batching on", SERVER_CONFIG);
            assert.ok((await flags()).some((a) => a.startsWith("--enable_batching")), String(await flags()));
        });

        it("11. changed: a parameters file of the user's", async () => {
            fs.writeFileSync(batchingFile, "max_batch_size { value: 16 }\nbatch_timeout_micros { value: 500 }\nmax_enqueued_batches { value: 100 }\nnum_batch_threads { value: 1 }\n");
            configure({ batching: undefined, batchingParametersFile: batchingFile });
            await transition("batching changed (a parameters file)", SERVER_CONFIG);
            const volume = ((await deployment()).spec.template.spec.volumes as any[]).find((v) => v.configMap !== undefined);
            const served = await kubectlAsync("get", "configmap", volume.configMap.name, "-n", project.namespace);
            assert.strictEqual(served.data["batching.config"], fs.readFileSync(batchingFile, "utf8"), "the pods read the user's parameters");
        });

        it("12. off", async () => {
            configure({ batchingParametersFile: undefined });
            await transition("batching off", SERVER_CONFIG);
            assert.ok(!(await flags()).some((a) => a.startsWith("--enable_batching")), String(await flags()));
        });
    });

    describe("the endpoint, and a second model", () => {
        const GATEWAY_PARTS = [
            `kubernetes:gateway.networking.k8s.io/v1:Gateway::${MODEL}-gateway`,
            `kubernetes:gateway.networking.k8s.io/v1:HTTPRoute::${MODEL}-rest`,
            `kubernetes:gateway.networking.k8s.io/v1:GRPCRoute::${MODEL}-grpc`,
            `tf-serving:index:ModelGateway::${MODEL}`,
        ];
        const secondModel: string[] = [];
        /** The address moves: traffic to the old one and probes of the new one, the outage measured. */
        const switchEndpoint = async (step: string, expected: string[], newUrl: () => Promise<string | undefined>): Promise<SwitchReport> => {
            const t0 = Date.now();
            assert.deepStrictEqual(await project.pulumi.preview(), [...expected].sort(), `${step}: what pulumi preview shows`);
            const out = await outputs();
            const updating = pulumi("up", "--yes");
            const report = await watchSwitch(out.restUrl, newUrl, MODEL, updating, { instances: INSTANCES, expected: TWO });
            ok(await updating, `${step}: pulumi up`);
            await project.pulumi.preview({ expectNoChanges: true });
            const after = await outputs();
            assert.deepStrictEqual(await predict(after.restUrl, MODEL, INSTANCES), TWO, "the new restUrl answers");
            const note = `old address: ${report.oldAddress.failed} of ${report.oldAddress.requests} probes failed; neither address answered for ${report.gapSeconds.toFixed(1)} s; `
                + `a client following restUrl: ${report.followerOutageSeconds.toFixed(1)} s without an answer`;
            records.push({ step, seconds: (Date.now() - t0) / 1000, rest: `${report.oldAddress.requests + report.newAddress.requests}/${report.oldAddress.failed + report.newAddress.failed}`, grpc: "-", note });
            console.log(`      ${step}: ${note}`);
            return report;
        };

        it("13. gateway -> loadBalancer: the Gateway and routes go, the Service gets a load balancer; the outage measured", async () => {
            configure({ endpoint: "loadBalancer", gateway: undefined, loadBalancerSourceRanges: ["127.0.0.0/8"], publicEndpoint: undefined });
            const lbUrl = async () => {
                const svc = await kubectlAsync("get", "service", MODEL, "-n", project.namespace);
                const ip = svc.spec.type === "LoadBalancer" ? svc.status?.loadBalancer?.ingress?.[0]?.ip : undefined;
                return ip ? `http://${ip}:8501` : undefined;
            };
            const report = await switchEndpoint("endpoint: gateway -> loadBalancer", [...GATEWAY_PARTS.map((r) => `delete ${r}`), `update ${SERVICE}`], lbUrl);
            assert.ok(report.followerOutageSeconds <= OUTAGE_BOUND_SECONDS, `a client following restUrl waited ${report.followerOutageSeconds} s`);
        });

        it("14. a second model added: only its resources are created; the first serves throughout", async () => {
            configure({
                modelPath: undefined, modelName: undefined,
                models: [{ name: MODEL, path: project.modelDir }, { name: SECOND, path: secondDir }],
            });
            const parts = [
                "tf-serving:index:ModelImage", "docker:index/image:Image", "tf-serving:index:ModelServer", "tf-serving:index:ModelMonitoring",
                "kubernetes:core/v1:ServiceAccount", "kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:networking.k8s.io/v1:NetworkPolicy",
                "kubernetes:apps/v1:Deployment", "kubernetes:core/v1:Service",
            ].map((t) => `${t}::${SECOND}`);
            const configMaps = ["server-config", "prometheus-rules", "dashboard"].map((c) => `kubernetes:core/v1:ConfigMap::${SECOND}-${c}`);
            secondModel.push(...parts, ...configMaps);
            await transition("a second model added", secondModel.map((r) => `create ${r}`), { settle: () => rolledOut(SECOND) });
            const models = (await outputs()).models;
            assert.deepStrictEqual(await predict(models[SECOND].restUrl, SECOND, INSTANCES), THREE);
        });

        it("15. the second model removed: only its resources are deleted", async () => {
            configure({ models: undefined, modelPath: project.modelDir, modelName: MODEL });
            await transition("the second model removed", secondModel.map((r) => `delete ${r}`));
            assert.strictEqual(await exists("deployment", SECOND), false);
        });

        it("16. loadBalancer -> gateway: the Gateway and routes back, the Service's load balancer goes; the outage measured", async () => {
            configure({ ...OPEN, endpoint: "gateway", gateway: { className: env("TFS_E2E_GATEWAY_CLASS") } });
            const gatewayUrl = async () => `http://${env("TFS_E2E_GATEWAY_ADDRESS")}:8501`;
            const report = await switchEndpoint("endpoint: loadBalancer -> gateway", [...GATEWAY_PARTS.map((r) => `create ${r}`), `update ${SERVICE}`], gatewayUrl);
            assert.ok(report.followerOutageSeconds <= OUTAGE_BOUND_SECONDS, `a client following restUrl waited ${report.followerOutageSeconds} s`);
        });
    });

    describe("a canary", () => {
        const CANARY_PARTS = [`kubernetes:core/v1:Service::${MODEL}-canary`, `kubernetes:networking.k8s.io/v1:NetworkPolicy::${MODEL}-canary`, ...RELEASE];
        const ROUTES = [`kubernetes:gateway.networking.k8s.io/v1:HTTPRoute::${MODEL}-rest`, `kubernetes:gateway.networking.k8s.io/v1:GRPCRoute::${MODEL}-grpc`];
        const canaryGone = async () => !(await exists("deployment", `${MODEL}-canary`));
        const releaseNote = (run: CanaryRun) => `steps seen: ${run.steps.map((s) => `${s.weight} %: ${s.canaryPercent.toFixed(0)} % of ${s.calls} calls`).join(", ") || "none"}`;

        it("17. on: its Service and release, the routes name it at weight 0; nothing rolls", async () => {
            configure({ canary: CANARY });
            await transition("canary on", [...CANARY_PARTS.map((r) => `create ${r}`), ...ROUTES.map((r) => `update ${r}`)]);
        });

        it("18. steps and gates changed: only the release's inputs", async () => {
            configure({ canary: CANARY_CHANGED });
            await transition("canary steps and gates changed", RELEASE.map((r) => `update ${r}`));
        });

        it("19. a release it passes: 10 % -> 50 % -> all, no failed request", async () => {
            serveVersion("half_plus_two_2_versions", "00000124", 124);
            const run = await transition("a canary release passed", [...NEW_IMAGE, ...RELEASE.map((r) => `update ${r}`)], { watch: true, note: releaseNote, settle: async () => { await rolledOut(); await until("the canary gone", 60, canaryGone); } });
            assert.deepStrictEqual(run.steps.map((s) => s.weight), [10, 50]);
        });

        it("20. off after a release", async () => {
            configure({ canary: undefined });
            await transition("canary off after a passed release", [...CANARY_PARTS.map((r) => `delete ${r}`), ...ROUTES.map((r) => `update ${r}`)]);
            assert.strictEqual(await exists("service", `${MODEL}-canary`), false);
        });

        it("21. on again", async () => {
            configure({ canary: { ...CANARY, steps: [10] } });
            await transition("canary on again", [...CANARY_PARTS.map((r) => `create ${r}`), ...ROUTES.map((r) => `update ${r}`)]);
        });

        it("22. endpoint to loadBalancer with the canary on: the preview refuses it, naming the key; nothing changes", async () => {
            configure({ endpoint: "loadBalancer", gateway: undefined, loadBalancerSourceRanges: ["127.0.0.0/8"], publicEndpoint: undefined });
            const refused = await pulumi("preview");
            assert.notStrictEqual(refused.code, 0, "the preview refuses a canary without the Gateway");
            const said = `${refused.stdout}\n${refused.stderr}`;
            assert.match(said, /tf-serving:canary.*needs `endpoint: gateway`/);
            assert.doesNotMatch(said, /\n\s+at .+\(.+:\d+:\d+\)/, "no stack trace for a user's mistake");
            configure({ ...OPEN, endpoint: "gateway", gateway: { className: env("TFS_E2E_GATEWAY_CLASS") } });
            await project.pulumi.preview({ expectNoChanges: true });
        });

        it("23. replicas changed with the canary on: the Deployment alone", async () => {
            configure({ replicas: 2 });
            await transition("replicas 1 -> 2 with the canary on", [`update ${DEPLOYMENT}`], { settle: () => rolledOut(MODEL, 2) });
        });

        it("24. a release it rolls back: failures only while the bad version held its 10 %", async () => {
            serveVersion("counter", "00000123", 125);
            // The new export renamed its signature; the config follows it and allows the change at preview, the clients do not change.
            configure({ signature: "incr_counter_by", allowSignatureChange: true });
            const run = await transition("a canary release rolled back", [...NEW_IMAGE, ...RELEASE.map((r) => `update ${r}`)], {
                watch: true, upFails: true, allowFailures: true, note: releaseNote, settle: async () => undefined,
            });
            assert.match(`${run.result.stdout}\n${run.result.stderr}`, /canary of half-plus-two failed: step 1\/1 \(10 %\)/);
            await until("the canary gone", 60, canaryGone);
            assert.deepStrictEqual(run.steps.map((s) => s.weight), [10]);
            const [held] = run.steps;
            const failedAt = [...run.rest.failureTimes, ...run.grpc.failureTimes];
            const windowSeconds = (held.to - held.from) / 1000 + 3;
            const windowRequests = 2 * RPS * windowSeconds;
            records[records.length - 1].note += `; ${failedAt.length} failed while the canary held 10 % for ${windowSeconds.toFixed(0)} s`;
            assert.ok(failedAt.every((t) => t >= held.from - 1000 && t <= held.to + 3000), "failures only while the canary held its share");
            assert.ok(failedAt.length <= 0.2 * windowRequests, `${failedAt.length} failures > 20 % of the ${windowRequests.toFixed(0)} requests of the hold`);
        });

        it("25. off after a rollback, the serving version's files back", async () => {
            serveVersion("half_plus_two_2_versions", "00000124", 124);
            configure({ signature: undefined, allowSignatureChange: undefined, canary: undefined });
            await transition("canary off after a rollback", [`update ${IMAGE}`, ...CANARY_PARTS.map((r) => `delete ${r}`), ...ROUTES.map((r) => `update ${r}`)]);
            assert.strictEqual(await canaryGone(), true);
        });
    });
});
