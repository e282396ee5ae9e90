/**
 * Who may call a model, on the environment's Traefik (GatewayClass `$TFS_E2E_GATEWAY_CLASS`, its
 * Kubernetes CRD provider on), as clients see it through `pulumi preview` and `pulumi up`. One stack
 * of two models (`one` is half_plus_two, `two` half_plus_three, so an answer names its model), each
 * with its own Gateway on the one shared address:
 *
 * 1. without a gRPC host per model the preview stops; with one, each REST path and each gRPC host
 *    answers its own model only;
 * 2. source ranges that exclude the client: REST 403, gRPC PERMISSION_DENIED; ranges that hold it
 *    answer again; the next preview has no change;
 * 3. caller authentication (the callers from a Pulumi secret): without credentials REST 401 and gRPC
 *    UNAUTHENTICATED, with them both answer, `tfs smoke` with TFS_BASIC_AUTH passes over REST and
 *    gRPC and fails without it; the state holds no caller's hash in the clear;
 * 4. a canary release of `two` with credentials required: while the canary holds half the route,
 *    every request without credentials is refused (none reaches the canary's share), the release's
 *    own checks (through the API server's pod proxy) pass;
 * 5. authentication and ranges off: the Middlewares go, callers without credentials answer, and the
 *    next preview has no change.
 *
 * The gRPC calls are the official client's pattern: `Predict(request, timeout, metadata=[("authorization", ...)])`
 * on a channel whose authority is the model's host.
 */
import * as assert from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CliResult, TFS, runCli } from "../support/cli";
import { E2eProject, FIXTURES, createProject, env, kubectl } from "../support/e2eProject";
import { TfServingGrpcClient, describeGrpcError } from "../../ops/tfServingGrpc";
import { GrpcTransport } from "../../ops/grpcTransport";
import { percentile, predict, request, underTraffic } from "../support/traffic";

const ONE = "one";
const TWO = "two";
const HOSTS = "{model}.grpc.tfs.test";
const hostOf = (model: string) => HOSTS.replace("{model}", model);
const INSTANCES = [1, 2, 5];
const ANSWERS: Record<string, number[]> = { [ONE]: [2.5, 3, 4.5], [TWO]: [3.5, 4, 5.5] };
const USER = "svc-batch";
const PASSWORD = "e2e-only-password";
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
/** The htpasswd line of the test's caller: SHA1, which Traefik's basicAuth checks. */
const USERS_LINE = `${USER}:{SHA}${createHash("sha1").update(PASSWORD).digest("base64")}`;
/** A range that holds no loopback client. */
const ELSEWHERE = ["10.255.0.0/16"];
const LOOPBACK = ["127.0.0.0/8"];
const LATENCY_SAMPLES = 200;
const MIDDLEWARE = "kubernetes:traefik.io/v1alpha1:Middleware";
const HTTP_ROUTE = "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute";
const GRPC_ROUTE = "kubernetes:gateway.networking.k8s.io/v1:GRPCRoute";

interface PredictAnswer { outputs?: { y?: { float_val?: number[] } } }

describe("only the callers you allow reach a model: two models behind Traefik, source ranges, credentials, a canary", function () {
    this.timeout(30 * 60 * 1000);
    let project: E2eProject;
    let twoDir: string;
    let address: string;
    const latency: Record<string, number> = {};

    const restUrl = () => `http://${address}:8501`;
    const grpcTarget = () => `${address}:8500`;
    const cli = (command: string, args: string[], extraEnv?: Record<string, string>): Promise<CliResult> =>
        runCli(command, args, { cwd: project.projectDir, timeoutMs: 15 * 60 * 1000, env: extraEnv });
    const pulumi = (...args: string[]) => cli("pulumi", [...args, "--stack", project.stackName, "--non-interactive"]);
    const ok = (r: CliResult, what: string) => assert.strictEqual(r.code, 0, `${what} exited ${r.code}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);

    const gateway = (extra: Record<string, unknown> = {}) => ({ className: env("TFS_E2E_GATEWAY_CLASS"), controller: "traefik", grpcHostname: HOSTS, ...extra });
    const configure = (extra: Record<string, unknown> = {}) => project.setConfig({
        modelPath: undefined, modelName: undefined, replicas: 1, endpoint: "gateway",
        models: [{ name: ONE, path: project.modelDir }, { name: TWO, path: twoDir }],
        loadBalancerSourceRanges: undefined, publicEndpoint: true, gateway: gateway(),
        ...extra,
    });
    /** The callers, as a user sets them: a secret at `gateway.auth.users` (after the stack file is rewritten). */
    const setCallers = async () => ok(await pulumi("config", "set", "--secret", "--path", "gateway.auth.users", USERS_LINE), "pulumi config set --secret");

    /** One gRPC Predict of `model` on a channel to `host`; the answer's y, or the call's status code. */
    const grpcPredict = async (host: string, model: string, authorization?: string): Promise<number[] | string> => {
        const transport: GrpcTransport = { tls: false, authority: host, ...(authorization ? { credential: { kind: "basic", authorization, source: "test", secrets: [] } } : {}) };
        const client = new TfServingGrpcClient(grpcTarget(), transport);
        try {
            const answer = await client.call<PredictAnswer>("Predict", {
                model_spec: { name: model },
                inputs: { x: { dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: INSTANCES.length }] }, float_val: INSTANCES } },
            }, 10_000);
            return answer.outputs?.y?.float_val ?? [];
        } catch (err) {
            return describeGrpcError(err).code;
        } finally {
            client.close();
        }
    };
    const restStatus = async (model: string, headers?: Record<string, string>) =>
        (await request(`${restUrl()}/v1/models/${model}:predict`, { body: JSON.stringify({ instances: INSTANCES }), headers })).status;

    /** Waits (at most 60 s) until `probe` answers `want`: Traefik applies a route's or a Middleware's change a moment after the API server has it. */
    const until = async <T>(what: string, probe: () => Promise<T>, want: T): Promise<void> => {
        let last: T | undefined;
        for (let i = 0; i < 120; i++) {
            last = await probe();
            if (JSON.stringify(last) === JSON.stringify(want)) {
                return;
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.fail(`${what}: still ${JSON.stringify(last)} after 60 s, want ${JSON.stringify(want)}`);
    };
    const medianMs = async (headers?: Record<string, string>) => {
        const ms: number[] = [];
        for (let i = 0; i < LATENCY_SAMPLES; i++) {
            const a = await request(`${restUrl()}/v1/models/${ONE}:predict`, { body: JSON.stringify({ instances: INSTANCES }), headers });
            assert.strictEqual(a.status, 200);
            ms.push(a.ms);
        }
        return percentile(ms.sort((a, b) => a - b), 50);
    };

    before(async () => {
        address = env("TFS_E2E_GATEWAY_ADDRESS");
        project = await createProject();
        twoDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-two-"));
        fs.cpSync(path.join(FIXTURES, "half_plus_three", "00000123"), path.join(twoDir, "123"), { recursive: true });
    });

    after(async () => {
        await project?.dispose();
        fs.rmSync(twoDir, { recursive: true, force: true });
    });

    it("1. two models on one address: the preview stops without a gRPC host each; with them each path and each host answers its own model", async () => {
        configure({ gateway: gateway({ grpcHostname: undefined }) });
        const refused = await pulumi("preview");
        assert.notStrictEqual(refused.code, 0, "two models' GRPCRoutes on one address without a host each must not preview");
        assert.match(refused.stdout + refused.stderr, /gateway\.grpcHostname is not set: required with 2 models behind Gateways of one class/);
        assert.doesNotMatch(refused.stdout + refused.stderr, / {4}at .*\.(ts|js):\d+/, "one clear line, no stack trace");

        configure();
        ok(await pulumi("up", "--yes"), "pulumi up");
        for (const model of [ONE, TWO]) {
            await until(`REST ${model}`, async () => predict(restUrl(), model, INSTANCES).catch((e: Error) => e.message), ANSWERS[model]);
            assert.deepStrictEqual(await grpcPredict(hostOf(model), model), ANSWERS[model], `gRPC to ${hostOf(model)}`);
        }
        // A call to one model's host that names the other reaches the first model's server, which does not serve it.
        assert.strictEqual(await grpcPredict(hostOf(ONE), TWO), "NOT_FOUND");
        assert.strictEqual(await grpcPredict("three.grpc.tfs.test", ONE), "UNIMPLEMENTED", "a host no route names reaches no model");
        latency.open = await medianMs();
        ok(await pulumi("preview", "--expect-no-changes"), "the preview after the update");
    });

    it("2. source ranges that exclude the client: REST 403 and gRPC PERMISSION_DENIED; ranges that hold it answer; then no change", async () => {
        configure({ loadBalancerSourceRanges: ELSEWHERE, publicEndpoint: undefined });
        const steps = await project.pulumi.preview();
        for (const model of [ONE, TWO]) {
            assert.ok(steps.includes(`create ${MIDDLEWARE}::${model}-source-ranges`), `the preview creates ${model}'s ipAllowList: ${steps.join(", ")}`);
            assert.ok(steps.includes(`update ${HTTP_ROUTE}::${model}-rest`) && steps.includes(`update ${GRPC_ROUTE}::${model}-grpc`), `both routes take the filter: ${steps.join(", ")}`);
        }
        ok(await pulumi("up", "--yes"), "pulumi up");
        for (const model of [ONE, TWO]) {
            await until(`REST ${model} from outside the ranges`, () => restStatus(model), 403);
            await until(`gRPC ${model} from outside the ranges`, () => grpcPredict(hostOf(model), model), "PERMISSION_DENIED");
        }
        configure({ loadBalancerSourceRanges: LOOPBACK, publicEndpoint: undefined });
        ok(await pulumi("up", "--yes"), "pulumi up");
        await until("REST from inside the ranges", () => restStatus(ONE), 200);
        await until("gRPC from inside the ranges", () => grpcPredict(hostOf(TWO), TWO), ANSWERS[TWO]);
        latency.ranges = await medianMs();
        ok(await pulumi("preview", "--expect-no-changes"), "the preview after the update");
    });

    it("3. credentials required: 401 and UNAUTHENTICATED without them, answers with them; tfs smoke sends them; the state holds no hash in the clear", async () => {
        const plain = await (async () => {
            configure({ loadBalancerSourceRanges: LOOPBACK, publicEndpoint: undefined, gateway: gateway({ auth: { type: "basic", users: USERS_LINE } }) });
            return pulumi("preview");
        })();
        assert.notStrictEqual(plain.code, 0, "callers in plain configuration must not preview");
        assert.match(plain.stdout + plain.stderr, /gateway\.auth\.users = "\[secret\]": must be a secret, not plain configuration/);
        assert.ok(!(plain.stdout + plain.stderr).includes(USERS_LINE.split(":")[1]), "the refusal never shows the hash");

        configure({ loadBalancerSourceRanges: LOOPBACK, publicEndpoint: undefined, gateway: gateway({ auth: { type: "basic" } }) });
        await setCallers();
        ok(await pulumi("up", "--yes"), "pulumi up");
        for (const model of [ONE, TWO]) {
            await until(`REST ${model} without credentials`, () => restStatus(model), 401);
            assert.deepStrictEqual(await predict(restUrl(), model, INSTANCES, { authorization: BASIC }), ANSWERS[model], `REST ${model} with credentials`);
            await until(`gRPC ${model} without credentials`, () => grpcPredict(hostOf(model), model), "UNAUTHENTICATED");
            assert.deepStrictEqual(await grpcPredict(hostOf(model), model, BASIC), ANSWERS[model], `gRPC ${model} with credentials`);
            assert.strictEqual(await grpcPredict(hostOf(model), model, `Basic ${Buffer.from(`${USER}:wrong`).toString("base64")}`), "UNAUTHENTICATED", "a wrong password");
        }
        latency.rangesAndAuth = await medianMs({ authorization: BASIC });

        const smoke = (args: string[], withCredential: boolean) => cli("node", [TFS, "smoke", "--url", ...args, "--timeout", "20"], withCredential ? { TFS_BASIC_AUTH: `${USER}:${PASSWORD}` } : undefined);
        const rest = ["--model", ONE];
        ok(await smoke([restUrl(), ...rest], true), "tfs smoke (REST) with TFS_BASIC_AUTH");
        ok(await smoke([grpcTarget(), "--grpc", "--authority", hostOf(TWO), "--model", TWO], true), "tfs smoke --grpc with TFS_BASIC_AUTH");
        // From the stack's outputs: the first model's endpoint, and its grpcAuthority.
        ok(await cli("node", [TFS, "smoke", "--grpc", "--stack", project.stackName, "--timeout", "20"], { TFS_BASIC_AUTH: `${USER}:${PASSWORD}` }), "tfs smoke --grpc --stack");
        const grpcRefused = await smoke([grpcTarget(), "--grpc", "--authority", hostOf(TWO), "--model", TWO], false);
        assert.strictEqual(grpcRefused.code, 7, `tfs smoke --grpc without credentials: ${grpcRefused.stdout}${grpcRefused.stderr}`);
        const refused = await smoke([restUrl(), ...rest], false);
        assert.strictEqual(refused.code, 7, `tfs smoke without credentials: the endpoint refused the caller (exit 7): ${refused.stdout}${refused.stderr}`);
        assert.match(refused.stdout + refused.stderr, /401/);
        for (const r of [refused, grpcRefused]) {
            assert.ok(!(r.stdout + r.stderr).includes(PASSWORD), "tfs never prints the password");
        }

        const state = await pulumi("stack", "export");
        ok(state, "pulumi stack export");
        assert.ok(!state.stdout.includes(USERS_LINE.split(":")[1]), "the callers' hash is encrypted in the state");
        assert.ok(!state.stdout.includes(Buffer.from(USERS_LINE).toString("base64")), "also not as the Secret's base64 data");
        const secret = kubectl("get", "secret", `${ONE}-callers`, "-n", project.namespace);
        assert.strictEqual(Buffer.from(secret.data.users, "base64").toString("utf8"), USERS_LINE, "the cluster's Secret holds the callers Traefik reads");
        ok(await pulumi("preview", "--expect-no-changes"), "the preview after the update");
    });

    it("4. a canary release of two with credentials required: the canary's share refuses callers without them; the release's own checks pass", async () => {
        const canaryConfig = () => {
            configure({
                loadBalancerSourceRanges: LOOPBACK, publicEndpoint: undefined, gateway: gateway({ auth: { type: "basic" } }),
                models: [{ name: ONE, path: project.modelDir }, { name: TWO, path: twoDir, canary: { steps: [50], holdSeconds: 20, replicas: 1, gates: { maxErrorRatio: 0.05, maxP99Ms: 1000, minRequests: 10 } } }],
            });
        };
        canaryConfig();
        await setCallers();
        ok(await pulumi("up", "--yes"), "the canary's Service, before any release");
        fs.cpSync(path.join(twoDir, "123"), path.join(twoDir, "124"), { recursive: true });

        const release = pulumi("up", "--yes");
        let done = false;
        void release.finally(() => { done = true; });
        const withCredentials = underTraffic(restUrl(), TWO, release, { rps: 10, maxSeconds: 600, instances: INSTANCES, expected: ANSWERS[TWO], headers: { authorization: BASIC } });
        // While the canary holds its step, callers without credentials: every one refused, whichever backend the route picks.
        let atStep = 0;
        const refusedAtStep: number[] = [];
        for (let i = 0; i < 1200 && !done; i++) {
            const route = kubectl("get", "httproute", TWO, "-n", project.namespace);
            const canary = (route.spec.rules[0].backendRefs as { name: string; weight?: number }[]).find((b) => b.name === `${TWO}-canary`);
            if ((canary?.weight ?? 0) === 50) {
                atStep++;
                refusedAtStep.push(await restStatus(TWO), await restStatus(TWO));
                const grpc = await grpcPredict(hostOf(TWO), TWO);
                assert.strictEqual(grpc, "UNAUTHENTICATED", "gRPC without credentials at the canary's step");
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        const result = await release;
        const traffic = await withCredentials;
        ok(result, "the release");
        assert.ok(atStep >= 3, `the route was seen at the canary's step (${atStep} samples)`);
        assert.deepStrictEqual([...new Set(refusedAtStep)], [401], `every call without credentials refused at the step: ${refusedAtStep.length} calls`);
        assert.deepStrictEqual(traffic.failures.slice(0, 5), [], `${traffic.failures.length} of ${traffic.requests} calls with credentials failed`);
        assert.match(result.stdout, /canary of two: /, "the release ran");
        ok(await pulumi("preview", "--expect-no-changes"), "the preview after the release");
    });

    it("5. authentication and ranges off: the Middlewares and the callers' Secret go, callers without credentials answer, then no change", async () => {
        configure();
        const steps = await project.pulumi.preview();
        for (const model of [ONE, TWO]) {
            for (const gone of [`${MIDDLEWARE}::${model}-basic-auth`, `${MIDDLEWARE}::${model}-source-ranges`, `kubernetes:core/v1:Secret::${model}-callers`]) {
                assert.ok(steps.includes(`delete ${gone}`), `the preview deletes ${gone}: ${steps.join(", ")}`);
            }
        }
        ok(await pulumi("up", "--yes"), "pulumi up");
        for (const model of [ONE, TWO]) {
            await until(`REST ${model} without credentials`, () => restStatus(model), 200);
            await until(`gRPC ${model} without credentials`, () => grpcPredict(hostOf(model), model), ANSWERS[model]);
        }
        ok(await pulumi("preview", "--expect-no-changes"), "the preview after the update");
        console.log(`      median REST predict through the Gateway over ${LATENCY_SAMPLES} calls: open ${latency.open?.toFixed(2)} ms, ` +
            `ipAllowList ${latency.ranges?.toFixed(2)} ms, ipAllowList + basicAuth ${latency.rangesAndAuth?.toFixed(2)} ms`);
    });
});
