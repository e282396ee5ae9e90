import * as assert from "assert";
import * as fs from "fs";
import * as http2 from "http2";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { ciDeploy } from "../../../ops/ciDeploy";
import { readCredential } from "../../../ops/endpointCredential";
import { stackConfig } from "../../../ops/plan";
import { SMOKE_EXIT_CODES } from "../../../ops/smoke";
import { AuthGateway, GatewayOptions, GatewayRule } from "../../support/authGateway";
import { MODEL, NAMESPACE, deployment, pod, service } from "../../support/doctorFixtures";
import { FakeApiServer, fakeKubeconfig } from "../../support/fakeApiServer";
import { FakeTfServing } from "../../support/fakeTfServingGrpc";
import { runTfs } from "../../support/tfsCommand";
import { tfsInProcess } from "../../support/tfsInProcess";
import { BUILD_TIMEOUT_MS, TfServing, fixtureArgs, standinBinary, startTfServing } from "../../support/tfServingStandin";

const ROOT = path.resolve(__dirname, "../../..");
const USER = "client";
const PASSWORD = "pa55-word-of-the-client";
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
const TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0ZnMtY2xpZW50In0.c2lnbmVkLWJ5LXRoZS1pc3N1ZXI";
/** Every form of the secrets: none may appear in anything tfs prints. */
const SECRETS = [PASSWORD, BASIC.slice(6), TOKEN];
const REFUSED = SMOKE_EXIT_CODES.refused;

function assertNoSecret(...texts: string[]): void {
    for (const text of texts) {
        for (const secret of SECRETS) {
            assert.ok(!text.includes(secret), `printed a secret:\n${text}`);
        }
    }
}

/**
 * `tfs smoke`, `tfs deploy`'s smoke and `tfs doctor` against endpoints that require a credential,
 * all on loopback: TF Serving's REST port (the tensorflow_model_server stand-in) behind a stand-in
 * Gateway that answers as Traefik's basicAuth and ipAllowList do (test/support/authGateway.ts), and a
 * gRPC server in process that requires `authorization` metadata on every call. Without the
 * credential smoke stops at once with the refusal named (exit 7); with it, it passes; doctor names
 * the refusal. Every server ends with its test (the stand-in with the suite).
 */
describe("sending credentials: tfs smoke, deploy's smoke and doctor against endpoints that require them", function () {
    this.timeout(120_000);
    let server: TfServing;
    let dir: string;
    let gateway: AuthGateway | undefined;
    let grpcServer: FakeTfServing | undefined;
    let h2: http2.Http2Server | undefined;
    const saved = { TFS_TOKEN: process.env.TFS_TOKEN, TFS_BASIC_AUTH: process.env.TFS_BASIC_AUTH };

    before(async function () {
        this.timeout(BUILD_TIMEOUT_MS);
        standinBinary();
        server = await startTfServing({ args: fixtureArgs("half_plus_two_cpu", MODEL) });
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-auth-"));
    });
    after(async () => {
        await server?.close();
        fs.rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(() => {
        delete process.env.TFS_TOKEN;
        delete process.env.TFS_BASIC_AUTH;
    });
    afterEach(async () => {
        await gateway?.close();
        gateway = undefined;
        grpcServer?.close();
        grpcServer = undefined;
        if (h2 !== undefined) {
            const closing = h2;
            await new Promise<void>((resolve) => closing.close(() => resolve()));
            h2 = undefined;
        }
        for (const [name, value] of Object.entries(saved)) {
            if (value === undefined) {
                delete process.env[name];
            } else {
                process.env[name] = value;
            }
        }
    });

    const file = (name: string, text: string) => {
        const p = path.join(dir, name);
        fs.writeFileSync(p, text, { mode: 0o600 });
        return p;
    };
    const basicFile = () => file("basic-auth", `${USER}:${PASSWORD}\n`);
    const tokenFile = () => file("token", `${TOKEN}\n`);
    const requireBasic: GatewayRule = { kind: "require", authorization: BASIC, challenge: "Basic" };
    const requireBearer: GatewayRule = { kind: "require", authorization: `Bearer ${TOKEN}`, challenge: "Bearer" };
    const behindGateway = async (rule: GatewayRule, options?: GatewayOptions) => {
        gateway = new AuthGateway(server.url, rule, options);
        return gateway.listen();
    };
    const smoke = (url: string, ...more: string[]) => tfsInProcess("smoke", "--url", url, "--model", MODEL, "--timeout", "20", ...more);

    describe("over REST", () => {
        it("without a credential: refused at the first request (exit 7), naming the options, not a dead server", async () => {
            const url = await behindGateway(requireBasic);
            const run = await smoke(url);
            assert.strictEqual(run.code, REFUSED, run.stderr);
            assert.match(run.stderr, new RegExp(`^tfs smoke: refused: ${url}/v1/models/${MODEL} refused the model status request with HTTP 401: `
                + "the endpoint asks callers for a credential and none was sent \\(it asks for Basic credentials\\): pass --token-file FILE or set TFS_TOKEN", "m"));
            assert.match(run.stderr, /--basic-auth-file FILE or set TFS_BASIC_AUTH/);
            assert.doesNotMatch(run.stderr, /unreachable|not-available|waiting for/);
            assert.deepStrictEqual(gateway?.seen, [undefined], "one request: no wait can cure a refusal");
        });

        it("with --basic-auth-file: every request carries it (status, metadata, predict) and smoke passes", async () => {
            const url = await behindGateway(requireBasic);
            const run = await smoke(url, "--basic-auth-file", basicFile());
            assert.strictEqual(run.code, 0, run.stderr);
            assert.match(run.stdout, /^answer: {4}{"predictions":\[\[2\.5\]\]}$/m);
            assert.match(run.stderr, /^credential: Basic user:password from --basic-auth-file \S+ on every request$/m);
            assert.ok(gateway!.seen.length >= 3, `${gateway!.seen.length} requests`);
            assert.deepStrictEqual(new Set(gateway!.seen), new Set([BASIC]));
            assertNoSecret(run.stdout, run.stderr);
        });

        it("with TFS_BASIC_AUTH, every golden case carries it too; --json holds no secret", async () => {
            const url = await behindGateway(requireBasic);
            process.env.TFS_BASIC_AUTH = `${USER}:${PASSWORD}`;
            const golden = file("golden.jsonl", `${JSON.stringify({ name: "three rows", request: { instances: [1, 2, 5] }, expected: { y: [2.5, 3, 4.5] } })}\n`);
            const run = await smoke(url, "--golden", golden, "--json");
            assert.strictEqual(run.code, 0, run.stderr);
            assert.strictEqual(JSON.parse(run.stdout).golden.passed, 1);
            assert.deepStrictEqual(new Set(gateway!.seen), new Set([BASIC]));
            assertNoSecret(run.stdout, run.stderr);
        });

        it("a wrong password is refused naming its source; a proxy's page repeating the header is printed without it", async () => {
            const url = await behindGateway(requireBasic, { echoOnPredict: true });
            const wrong = await smoke(url, "--basic-auth-file", file("wrong", `${USER}:not-the-${PASSWORD}\n`));
            assert.strictEqual(wrong.code, REFUSED, wrong.stderr);
            assert.match(wrong.stderr, /did not accept the user:password from --basic-auth-file \S+wrong \(it asks for Basic credentials\): check that/);
            assert.ok(!wrong.stderr.includes(`not-the-${PASSWORD}`));
            const echoed = await smoke(url, "--basic-auth-file", basicFile());
            assert.strictEqual(echoed.code, SMOKE_EXIT_CODES["predict-error"], echoed.stderr);
            assert.match(echoed.stderr, /predict failed with HTTP 502: upstream failed for a request with authorization: Basic \[redacted\]/);
            assertNoSecret(wrong.stdout, wrong.stderr, echoed.stdout, echoed.stderr);
        });

        it("a bearer token from --token-file passes a Bearer endpoint; basic credentials there are told to send the other kind", async () => {
            const url = await behindGateway(requireBearer);
            const run = await smoke(url, "--token-file", tokenFile());
            assert.strictEqual(run.code, 0, run.stderr);
            assert.deepStrictEqual(new Set(gateway!.seen), new Set([`Bearer ${TOKEN}`]));
            const other = await smoke(url, "--basic-auth-file", basicFile());
            assert.strictEqual(other.code, REFUSED, other.stderr);
            assert.match(other.stderr, /it asks for Bearer credentials and --basic-auth-file \S+ gives Basic ones, so pass the other kind/);
            assertNoSecret(run.stdout, run.stderr, other.stdout, other.stderr);
        });

        it("a 403 (a source range that leaves the caller out) is refused naming loadBalancerSourceRanges, credential or not", async () => {
            const url = await behindGateway({ kind: "forbid" });
            const run = await smoke(url, "--token-file", tokenFile(), "--json");
            assert.strictEqual(run.code, REFUSED, run.stderr);
            const report = JSON.parse(run.stdout);
            assert.strictEqual(report.outcome, "refused");
            assert.match(report.message, /refused the model status request with HTTP 403: the endpoint refused this caller: its address is outside the ranges the endpoint allows \(loadBalancerSourceRanges/);
            assert.match(report.message, /or the credential from --token-file \S+ lacks a right the endpoint requires/);
            assertNoSecret(run.stdout, run.stderr);
        });

        it("reads TFS_TOKEN in a real process, and prints it nowhere", async () => {
            const url = await behindGateway(requireBearer);
            const run = await runTfs(["smoke", "--url", url, "--model", MODEL, "--timeout", "20"], { env: { ...process.env, TFS_TOKEN: TOKEN } });
            assert.strictEqual(run.code, 0, run.stderr);
            assert.match(run.stderr, /^credential: Bearer token from TFS_TOKEN on every request$/m);
            assertNoSecret(run.stdout, run.stderr);
        });
    });

    describe("over gRPC", () => {
        const grpcSmoke = (endpoint: string, ...more: string[]) =>
            tfsInProcess("smoke", "--grpc", "--url", endpoint, "--model", MODEL, "--timeout", "5", ...more);
        const serveGrpc = (authorization: string) => {
            grpcServer = new FakeTfServing({ model: MODEL, authorization });
            return grpcServer.listen();
        };

        it("without a credential: UNAUTHENTICATED at the first call (exit 7), naming the options", async () => {
            const endpoint = await serveGrpc(`Bearer ${TOKEN}`);
            const run = await grpcSmoke(endpoint);
            assert.strictEqual(run.code, REFUSED, run.stderr);
            assert.match(run.stderr, new RegExp(`^tfs smoke: refused: grpc://${endpoint} refused GetModelStatus with UNAUTHENTICATED \\(no credentials\\): `
                + "the endpoint asks callers for a credential and none was sent: pass --token-file FILE", "m"));
            assert.deepStrictEqual(grpcServer?.authorizations, [undefined]);
        });

        it("with --token-file: the metadata rides on every call (status, metadata, Predict) and smoke passes", async () => {
            const endpoint = await serveGrpc(`Bearer ${TOKEN}`);
            const run = await grpcSmoke(endpoint, "--token-file", tokenFile());
            assert.strictEqual(run.code, 0, run.stderr);
            assert.match(run.stdout, /^predict: {3}Predict grpc:\/\/\S+ \(model half-plus-two\) -> OK$/m);
            assert.deepStrictEqual(grpcServer?.authorizations, [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
            assertNoSecret(run.stdout, run.stderr);
        });

        it("with TFS_BASIC_AUTH: Basic metadata, and PERMISSION_DENIED is refused naming the ranges", async () => {
            process.env.TFS_BASIC_AUTH = `${USER}:${PASSWORD}`;
            const endpoint = await serveGrpc(BASIC);
            const ok = await grpcSmoke(endpoint);
            assert.strictEqual(ok.code, 0, ok.stderr);
            assert.deepStrictEqual(new Set(grpcServer?.authorizations), new Set([BASIC]));
            grpcServer?.close();
            const forbidding = await serveGrpc("forbid");
            const refused = await grpcSmoke(forbidding);
            assert.strictEqual(refused.code, REFUSED, refused.stderr);
            assert.match(refused.stderr, /refused GetModelStatus with PERMISSION_DENIED \(caller not allowed\): the endpoint refused this caller: its address is outside the ranges .*loadBalancerSourceRanges/);
            assertNoSecret(ok.stdout, ok.stderr, refused.stdout, refused.stderr);
        });

        it("a proxy's HTTP 401 in front of gRPC is a refusal, not a server that is not gRPC", async () => {
            h2 = http2.createServer((_req, res) => {
                res.writeHead(401, { "www-authenticate": "Basic realm=\"tfs-test\"", "content-type": "text/plain" });
                res.end("401 Unauthorized\n");
            });
            const server2 = h2;
            await new Promise<void>((resolve) => server2.listen(0, "127.0.0.1", resolve));
            const run = await grpcSmoke(`127.0.0.1:${(server2.address() as AddressInfo).port}`);
            assert.strictEqual(run.code, REFUSED, run.stderr);
            assert.match(run.stderr, /refused GetModelStatus with UNAUTHENTICATED \(Received HTTP status code 401\): the endpoint asks callers for a credential/);
            assert.doesNotMatch(run.stderr, /not gRPC/);
        });
    });

    describe("tfs deploy's smoke", () => {
        let previousKubeconfig: string | undefined;
        before(() => {
            // The dev stack's preflight looks for the ambient cluster's kubeconfig.
            previousKubeconfig = process.env.KUBECONFIG;
            process.env.KUBECONFIG = file("kubeconfig", "apiVersion: v1\nkind: Config\n");
        });
        after(() => {
            if (previousKubeconfig === undefined) {
                delete process.env.KUBECONFIG;
            } else {
                process.env.KUBECONFIG = previousKubeconfig;
            }
        });

        /** The dev stack's engine with an update that succeeds and outputs that point at `restUrl`. */
        const engine = (restUrl: string): Stack => ({
            name: "ci",
            workspace: { projectSettings: async () => ({ name: "tf-serving", runtime: "nodejs" }) },
            getAllConfig: async () => Object.fromEntries(Object.entries(stackConfig(ROOT, "dev").config).map(([k, value]) => [k, { value, secret: false }])),
            preview: async () => ({ changeSummary: { same: 7 } }),
            up: async () => ({ summary: { result: "succeeded", resourceChanges: { same: 7 } }, outputs: {} }),
            outputs: async () => ({ restUrl: { value: restUrl, secret: false }, models: { value: { [MODEL]: { restUrl } }, secret: false } }),
        }) as unknown as Stack;

        it("fails its smoke step as refused without the credential, and passes with it", async () => {
            const url = await behindGateway(requireBearer);
            const run = (credential?: ReturnType<typeof readCredential>) => ciDeploy({
                projectDir: ROOT, stack: "ci", previewOnly: false, smokeTimeoutSeconds: 20, credential, selectStack: async () => engine(url),
            });
            const without = await run();
            assert.strictEqual(without.failedStep, "smoke", JSON.stringify(without));
            assert.strictEqual(without.smoke?.outcome, "refused");
            assert.match(without.steps[without.steps.length - 1].detail, /^refused: .*HTTP 401: the endpoint asks callers for a credential and none was sent/);
            const lines: string[] = [];
            const withToken = await ciDeploy({
                projectDir: ROOT, stack: "ci", previewOnly: false, smokeTimeoutSeconds: 20, onOutput: (l) => lines.push(l),
                credential: readCredential({ tokenFile: tokenFile() }, {}, (f) => fs.readFileSync(f)), selectStack: async () => engine(url),
            });
            assert.strictEqual(withToken.ok, true, JSON.stringify(withToken));
            assert.deepStrictEqual(withToken.smoke?.answer, { predictions: [[2.5]] });
            assertNoSecret(JSON.stringify(withToken), lines.join("\n"));
        });
    });

    describe("tfs doctor", () => {
        let api: FakeApiServer;
        let kubeconfig: string;
        beforeEach(async () => {
            api = new FakeApiServer();
            api.pods = [pod({ ready: true })];
            api.deployments = [deployment({ replicas: 1 })];
            api.services = [service({ address: "127.0.0.1" })];
            kubeconfig = fakeKubeconfig(fs.mkdtempSync(path.join(dir, "kube-")), await api.start());
        });
        afterEach(() => api.stop());
        const doctor = (...more: string[]) => tfsInProcess("doctor", "--kubeconfig", kubeconfig, "--namespace", NAMESPACE, ...more);

        it("names a 401 and UNAUTHENTICATED without a credential as the endpoint asking for one, with the options (pods healthy: exit 0)", async () => {
            const url = await behindGateway(requireBasic);
            grpcServer = new FakeTfServing({ model: MODEL, authorization: BASIC });
            const run = await doctor("--url", url, "--grpc-url", await grpcServer.listen());
            assert.strictEqual(run.code, 0, run.stdout + run.stderr);
            assert.match(run.stdout, new RegExp(`^INFO endpoint-refused: endpoint/${url}/v1/models/${MODEL}$`, "m"));
            assert.match(run.stdout, new RegExp(`^INFO endpoint-refused: endpoint/grpc://127\\.0\\.0\\.1:\\d+ \\(model ${MODEL}\\)$`, "m"));
            assert.match(run.stdout, /the REST endpoint asks callers for a credential \(HTTP 401\): authentication, not a dead server/);
            assert.match(run.stdout, /WWW-Authenticate: Basic \(the endpoint's challenge\)/);
            assert.match(run.stdout, /the gRPC endpoint asks callers for a credential \(UNAUTHENTICATED \(no credentials\)\)/);
            assert.match(run.stdout, /fix: The endpoint asks callers for a credential and none was sent/);
            assert.match(run.stdout, /--basic-auth-file FILE or set\s+TFS_BASIC_AUTH/);
        });

        it("names a refused credential as an error (exit 1), and a good one as answered", async () => {
            const url = await behindGateway(requireBasic);
            grpcServer = new FakeTfServing({ model: MODEL, authorization: BASIC });
            const grpcEndpoint = await grpcServer.listen();
            const refused = await doctor("--url", url, "--grpc-url", grpcEndpoint, "--token-file", tokenFile(), "--json");
            assert.strictEqual(refused.code, 1, refused.stdout + refused.stderr);
            const report = JSON.parse(refused.stdout);
            assert.deepStrictEqual(report.findings.map((f: { kind: string; severity: string }) => [f.kind, f.severity]),
                [["endpoint-refused", "error"], ["endpoint-refused", "error"]]);
            assert.match(report.findings.map((f: { fix: string }) => f.fix).join("\n"), /it asks for Basic credentials and --token-file \S+ gives Bearer ones/);
            process.env.TFS_BASIC_AUTH = `${USER}:${PASSWORD}`;
            const good = await doctor("--url", url, "--grpc-url", grpcEndpoint);
            assert.strictEqual(good.code, 0, good.stdout + good.stderr);
            assert.doesNotMatch(good.stdout, /endpoint-refused/);
            assert.match(good.stdout, new RegExp(`^endpoint of ${MODEL}: GET ${url}/v1/models/${MODEL}: version 123 AVAILABLE$`, "m"));
            assert.match(good.stdout, new RegExp(`^endpoint of ${MODEL}: GetModelStatus grpc://${grpcEndpoint}: version 7 AVAILABLE$`, "m"));
            assertNoSecret(refused.stdout, refused.stderr, good.stdout, good.stderr);
        });

        it("names a 403 as a source range that leaves this caller out (a warning: exit 1)", async () => {
            const url = await behindGateway({ kind: "forbid" });
            const run = await doctor("--url", url);
            assert.strictEqual(run.code, 1, run.stdout + run.stderr);
            assert.match(run.stdout, /^WARNING endpoint-refused: /m);
            assert.match(run.stdout, /the REST endpoint refused this caller \(HTTP 403\): a source range or a missing right, not a dead server/);
            assert.match(run.stdout, /loadBalancerSourceRanges/);
        });
    });
});
