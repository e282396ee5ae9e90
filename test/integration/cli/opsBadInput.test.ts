/**
 * `tfs smoke`, `tfs doctor` and `tfs deploy` fed the mistakes a new user makes and the endpoints
 * that are not what they seem. Every case must end with a non-zero exit, no stack trace, and a
 * message naming what to look at (the flag, file, key or port). Set TFS_BAD_INPUT_TALLY=1 to print
 * the clear / vague / bad count.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as http from "http";
import * as http2 from "http2";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { Certificates, FakeTfServing, makeCertificates } from "../../support/fakeTfServingGrpc";
import { hugeAnswer } from "../../support/notTfServing";
import { TfsRun, runTfs } from "../../support/tfsCommand";
import { unusedPort } from "../../support/tfServingStandin";

interface Case {
    name: string;
    args: (world: World) => string[];
    env?: (world: World) => NodeJS.ProcessEnv;
    /** Where the command runs; default the suite's temporary folder (outside the project). */
    cwd?: string;
    /** The exit code the command documents for this mistake. */
    exit: number;
    /** What the output must name, each a pattern over stdout and stderr together. */
    names: ((world: World) => RegExp)[];
    /** What the output must not say (a wrong diagnosis, Node's warnings). */
    forbid?: RegExp[];
    /** The answer must come within this many seconds: no retry loop for what retrying cannot fix. */
    maxSeconds?: number;
}

/** The servers and files the cases point at, made once for the suite. */
interface World {
    dir: string;
    closing: string;
    silent: string;
    huge: string;
    grpc: string;
    plain: string;
    refused: string;
    deadApi: string;
    /** TCP servers that reset every connection, and HTTP/2 servers that are not gRPC. */
    reset: string;
    h2NotFound: string;
    h2Goaway: string;
    h2RstStream: string;
    /** The gRPC fake (model "m") over plaintext; its Predict never answers. */
    grpcHang: string;
    /** The gRPC fake over TLS, with a certificate for 127.0.0.1 signed by `certs.ca`. */
    grpcTls: string;
    certs: Certificates;
    /** --ca files that hold no usable CA certificate. */
    emptyCa: string;
    textCa: string;
    kubeconfig(name: string): string;
}

const REPO = path.resolve(__dirname, "../../..");
const withoutPulumi = (): NodeJS.ProcessEnv => ({ ...process.env, PATH: path.dirname(process.execPath) });
const hostPort = (url: string) => url.replace("http://", "");
/** A gRPC smoke against `target` that must end at once, long before its --timeout. */
const grpcAt = (target: (w: World) => string, flags: (w: World) => string[] = () => []) => (w: World) =>
    ["smoke", "--grpc", "--url", target(w), "--model", "m", "--timeout", "60", ...flags(w)];
const NOT_A_WAIT = [/did not become AVAILABLE/, /within 60 s/];
/** Well under the 60 s a wait would take, with room for ts-node's start on a loaded machine. */
const AT_ONCE = 40;
const quote = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));

const CASES: Case[] = [
    // tfs smoke: endpoints that are not TF Serving's REST API.
    { name: "smoke: a server that accepts and closes at once (--json)", args: (w) => ["smoke", "--url", w.closing, "--model", "m", "--timeout", "2", "--json"], exit: 3, names: [() => /"outcome": "unreachable"/, () => /closed it without an answer|timed out waiting/] },
    { name: "smoke: a server that accepts and closes at once", args: (w) => ["smoke", "--url", w.closing, "--model", "m", "--timeout", "2"], exit: 3, names: [() => /tfs smoke: unreachable: nothing answered at http:\/\/127\.0\.0\.1:\d+\/v1\/models\/m/] },
    { name: "smoke: a server that never answers", args: (w) => ["smoke", "--url", w.silent, "--model", "m", "--timeout", "1"], exit: 3, names: [() => /timed out waiting for an answer/] },
    { name: "smoke: a 200 MiB reply", args: (w) => ["smoke", "--url", w.huge, "--model", "m", "--timeout", "5"], exit: 3, names: [() => /larger than 8 MiB/] },
    { name: "smoke: port 6000 (fetch refuses it)", args: () => ["smoke", "--url", "http://127.0.0.1:6000", "--model", "m"], exit: 3, names: [() => /port 6000/, () => /8501/] },
    { name: "smoke: port 1 (fetch refuses it)", args: () => ["smoke", "--url", "http://127.0.0.1:1", "--model", "m"], exit: 3, names: [() => /port 1\b/] },
    { name: "smoke: the gRPC port (HTTP/2)", args: (w) => ["smoke", "--url", w.grpc, "--model", "m"], exit: 3, names: [() => /gRPC port \(8500/, () => /8501/] },
    { name: "smoke: https:// to a plain HTTP port", args: (w) => ["smoke", "--url", w.plain.replace("http:", "https:"), "--model", "m"], exit: 3, names: [() => /use http:\/\//] },
    { name: "smoke: nothing listens", args: (w) => ["smoke", "--url", w.refused, "--model", "m", "--timeout", "0.5"], exit: 3, names: [() => /connection refused/] },
    { name: "smoke: an unknown model", args: (w) => ["smoke", "--url", w.plain, "--model", "resnet"], exit: 4, names: [() => /model "resnet" is not served/, () => /check the model name/] },
    // tfs smoke: flags.
    { name: "smoke: --url without a scheme", args: () => ["smoke", "--url", "127.0.0.1:8501", "--model", "m"], exit: 2, names: [() => /--url "127\.0\.0\.1:8501" is not an http\(s\) URL/] },
    { name: "smoke: --url ftp://", args: () => ["smoke", "--url", "ftp://127.0.0.1:8501", "--model", "m"], exit: 2, names: [() => /--url "ftp:/] },
    { name: "smoke: --url http:// alone", args: () => ["smoke", "--url", "http://", "--model", "m"], exit: 2, names: [() => /--url "http:\/\/"/] },
    { name: "smoke: --url with port 99999", args: () => ["smoke", "--url", "http://127.0.0.1:99999", "--model", "m"], exit: 2, names: [() => /--url .*port, 1 to 65535/] },
    { name: "smoke: --url with a space in the host", args: () => ["smoke", "--url", "http://exa mple:8501", "--model", "m"], exit: 2, names: [() => /--url "http:\/\/exa mple:8501" does not parse/] },
    { name: "smoke: --url naming the model path", args: () => ["smoke", "--url", "http://127.0.0.1:8501/v1/models/m", "--model", "m"], exit: 2, names: [() => /base URL only/, () => /--model NAME/] },
    { name: "smoke: --timeout soon", args: (w) => ["smoke", "--url", w.plain, "--model", "m", "--timeout", "soon"], exit: 2, names: [() => /--timeout/, () => /"soon" is not a number of seconds/] },
    { name: "smoke: --timeout -1", args: (w) => ["smoke", "--url", w.plain, "--model", "m", "--timeout", "-1"], exit: 2, names: [() => /"-1" is not a number of seconds/] },
    { name: "smoke: --timeout empty", args: (w) => ["smoke", "--url", w.plain, "--model", "m", "--timeout", ""], exit: 2, names: [() => /--timeout/] },
    { name: "smoke: --timeout 1e400", args: (w) => ["smoke", "--url", w.plain, "--model", "m", "--timeout", "1e400"], exit: 2, names: [() => /"1e400" is not a number of seconds/] },
    { name: "smoke: --url without --model", args: (w) => ["smoke", "--url", w.plain], exit: 2, names: [() => /--model NAME is required with --url/] },
    { name: "smoke: --model empty", args: (w) => ["smoke", "--url", w.plain, "--model", ""], exit: 2, names: [() => /--model NAME/] },
    { name: "smoke: neither --url nor --stack", args: () => ["smoke", "--model", "m"], exit: 2, names: [() => /--stack NAME .* or --url REST_URL/] },
    { name: "smoke: both --url and --stack", args: (w) => ["smoke", "--url", w.plain, "--stack", "dev", "--model", "m"], exit: 2, names: [() => /exactly one of --stack NAME .* or --url REST_URL/] },
    { name: "smoke: --input that does not exist", args: (w) => ["smoke", "--url", w.plain, "--model", "m", "--input", path.join(w.dir, "nope.json")], exit: 2, names: [(w) => quote(`--input ${path.join(w.dir, "nope.json")}`), () => /ENOENT/] },
    { name: "smoke: --input that is not JSON", args: (w) => ["smoke", "--url", w.plain, "--model", "m", "--input", w.kubeconfig("garbage")], exit: 2, names: [(w) => quote(w.kubeconfig("garbage")), () => /is not JSON/] },
    { name: "smoke: --stack without the Pulumi CLI", args: () => ["smoke", "--stack", "dev"], env: withoutPulumi, exit: 2, names: [() => /--stack needs the Pulumi CLI, which is not on PATH/, () => /--url REST_URL --model NAME/] },
    // tfs smoke --grpc: CA files, transports and servers that are not TF Serving's gRPC port.
    { name: "smoke --grpc: --ca naming a folder", args: (w) => ["smoke", "--grpc", "--tls", "--ca", w.dir, "--url", w.grpcTls, "--model", "m"], exit: 2, names: [(w) => quote(`--ca ${w.dir}`), () => /is a folder/, () => /PEM file/] },
    { name: "smoke --grpc: --ca an empty file", args: (w) => ["smoke", "--grpc", "--tls", "--ca", w.emptyCa, "--url", w.grpcTls, "--model", "m"], exit: 2, names: [(w) => quote(`--ca ${w.emptyCa}`), () => /is empty/] },
    { name: "smoke --grpc: --ca with no certificate in it", args: (w) => ["smoke", "--grpc", "--tls", "--ca", w.textCa, "--url", w.grpcTls, "--model", "m"], exit: 2, names: [(w) => quote(`--ca ${w.textCa}`), () => /no PEM certificate/, () => /BEGIN CERTIFICATE/] },
    { name: "smoke --grpc: --ca a private key", args: (w) => ["smoke", "--grpc", "--tls", "--ca", w.certs.keyFile, "--url", w.grpcTls, "--model", "m"], exit: 2, names: [(w) => quote(`--ca ${w.certs.keyFile}`), () => /private key, not a certificate/] },
    { name: "smoke --grpc: the wrong CA", args: grpcAt((w) => w.grpcTls, (w) => ["--tls", "--ca", w.certs.otherCa]), exit: 3, names: [() => /not signed by the CA in --ca/, () => /pass the CA that signed it/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: a private CA and the system roots", args: grpcAt((w) => w.grpcTls, () => ["--tls"]), exit: 3, names: [() => /system roots/, () => /--ca FILE/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: plaintext to a TLS port", args: grpcAt((w) => w.grpcTls), exit: 3, names: [() => /closed the connection/, () => /--tls/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: TLS to a plaintext port", args: grpcAt((w) => w.grpcHang, (w) => ["--tls", "--ca", w.certs.ca]), exit: 3, names: [() => /does not speak TLS/, () => /drop --tls/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: TF Serving's REST port (HTTP/1)", args: grpcAt((w) => hostPort(w.plain)), exit: 3, names: [() => /HTTP\/1/, () => /8500/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    // A reset that comes after the connection opened reaches grpc-js as a plain "Failed to connect".
    { name: "smoke --grpc: a server that resets the connection", args: grpcAt((w) => hostPort(w.reset)), exit: 3, names: [() => /(reset|closed) the connection/, () => /8500/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    // Closed before reading the client's preface: the kernel sends FIN or, when the preface is already queued, RST;
    // which one arrives depends on timing, and both answers say the port is not gRPC.
    { name: "smoke --grpc: a server that accepts and closes", args: grpcAt((w) => hostPort(w.closing)), exit: 3, names: [() => /(closed|reset) the connection( \(ECONNRESET\))? before speaking HTTP\/2/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: an HTTP/2 server answering 404", args: grpcAt((w) => hostPort(w.h2NotFound)), exit: 3, names: [() => /HTTP 404/, () => /not gRPC/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: an HTTP/2 server that sends GOAWAY", args: grpcAt((w) => hostPort(w.h2Goaway)), exit: 3, names: [() => /not TF Serving's gRPC/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: an HTTP/2 server that resets each stream", args: grpcAt((w) => hostPort(w.h2RstStream)), exit: 3, names: [() => /RST_STREAM/, () => /not TF Serving's gRPC/], forbid: NOT_A_WAIT, maxSeconds: AT_ONCE },
    { name: "smoke --grpc: port 0", args: () => ["smoke", "--grpc", "--url", "127.0.0.1:0", "--model", "m"], exit: 2, names: [() => /--url "127\.0\.0\.1:0"/, () => /1 to 65535/] },
    { name: "smoke --grpc: port 99999", args: () => ["smoke", "--grpc", "--url", "127.0.0.1:99999", "--model", "m"], exit: 2, names: [() => /--url "127\.0\.0\.1:99999"/, () => /1 to 65535/] },
    { name: "smoke: --url with port 0", args: () => ["smoke", "--url", "http://127.0.0.1:0", "--model", "m"], exit: 2, names: [() => /--url "http:\/\/127\.0\.0\.1:0"/, () => /1 to 65535/] },
    // The report's own latency, not the run's time: ts-node's start varies with the machine's load.
    { name: "smoke --grpc: a Predict that never answers ends with --timeout", args: (w) => ["smoke", "--grpc", "--url", w.grpcHang, "--model", "m", "--timeout", "3", "--json"], exit: 5, names: [() => /Predict failed with DEADLINE_EXCEEDED/, () => /"latencyMs": [1-4]\d{3}(\.\d+)?,/] },
    { name: "smoke --grpc --tls against an IP: no DEP0123 warning", args: (w) => ["smoke", "--grpc", "--tls", "--ca", w.certs.ca, "--url", w.grpcTls, "--model", "nope"], exit: 4, names: [() => /model "nope" is not served/], forbid: [/DEP0123/, /DeprecationWarning/] },
    // tfs doctor: where the cluster is.
    { name: "doctor: no kubeconfig anywhere", args: () => ["doctor", "--namespace", "tf-serving"], env: (w) => noKubeconfigEnv(w), exit: 2, names: [() => /no kubeconfig found/, () => /--kubeconfig FILE/, () => /KUBECONFIG/] },
    { name: "doctor: an empty kubeconfig", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("empty"), "--namespace", "tf-serving"], exit: 2, names: [(w) => quote(w.kubeconfig("empty")), () => /has no contexts/] },
    { name: "doctor: a kubeconfig that is not YAML", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("garbage"), "--namespace", "tf-serving"], exit: 2, names: [(w) => quote(w.kubeconfig("garbage")), () => /no contexts|not a kubeconfig/] },
    { name: "doctor: a kubeconfig with empty lists", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("lists"), "--namespace", "tf-serving"], exit: 2, names: [(w) => quote(w.kubeconfig("lists")), () => /has no contexts/] },
    { name: "doctor: --kubeconfig that does not exist", args: (w) => ["doctor", "--kubeconfig", path.join(w.dir, "nope"), "--namespace", "tf-serving"], exit: 2, names: [(w) => quote(path.join(w.dir, "nope")), () => /no such file/] },
    { name: "doctor: KUBECONFIG naming a missing file", args: () => ["doctor", "--namespace", "tf-serving"], env: (w) => ({ ...noKubeconfigEnv(w), KUBECONFIG: path.join(w.dir, "gone") }), exit: 2, names: [() => /KUBECONFIG/, (w) => quote(path.join(w.dir, "gone"))] },
    { name: "doctor: --context that does not exist", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("two"), "--context", "prod", "--namespace", "tf-serving"], exit: 2, names: [() => /no context "prod"/, () => /it has: a, b/] },
    { name: "doctor: a current-context that does not exist", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("two"), "--namespace", "tf-serving"], exit: 2, names: [() => /no context "gone" \(its current-context\)/, () => /--context NAME/] },
    { name: "doctor: a context naming a cluster that is not there", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("two"), "--context", "b", "--namespace", "tf-serving"], exit: 2, names: [() => /context "b" names cluster "missing"/] },
    { name: "doctor: an API server that is not running", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("refused"), "--namespace", "tf-serving"], exit: 3, names: [() => /cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:\d+/, () => /ECONNREFUSED/] },
    { name: "doctor: an API server that closes the connection", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("dead"), "--namespace", "tf-serving"], exit: 3, names: [() => /cannot reach the Kubernetes API at http:\/\/127\.0\.0\.1:\d+/, () => /accepted the connection and closed it/] },
    { name: "doctor: https:// to an API address that speaks plain HTTP", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("eproto"), "--namespace", "tf-serving"], exit: 3, names: [() => /does not speak TLS/, () => /http:\/\//], forbid: [/: EPROTO$/m] },
    { name: "doctor: an address that answers, but not as a Kubernetes API", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("garbage-api"), "--namespace", "tf-serving"], exit: 3, names: [() => /answered, but not as a Kubernetes API server/, () => /server address/], forbid: [/cannot reach/] },
    { name: "doctor: no --namespace", args: (w) => ["doctor", "--kubeconfig", w.kubeconfig("two")], exit: 2, names: [() => /--namespace NS/] },
    { name: "doctor: --log-lines many", args: () => ["doctor", "--namespace", "x", "--log-lines", "many"], exit: 2, names: [() => /--log-lines/, () => /"many" is not a whole number/] },
    { name: "doctor: --lb-grace -5", args: () => ["doctor", "--namespace", "x", "--lb-grace", "-5"], exit: 2, names: [() => /--lb-grace/, () => /"-5" is not a whole number/] },
    { name: "doctor: --stack with --kubeconfig", args: (w) => ["doctor", "--stack", "dev", "--kubeconfig", w.kubeconfig("two")], exit: 2, names: [() => /drop --kubeconfig\/--context, or drop --stack/] },
    { name: "doctor: --stack without the Pulumi CLI", args: () => ["doctor", "--stack", "dev"], env: withoutPulumi, exit: 2, names: [() => /--stack needs the Pulumi CLI, which is not on PATH/, () => /--kubeconfig FILE --namespace NS/] },
    // tfs deploy.
    { name: "deploy: outside the project", args: () => ["deploy", "--stack", "dev"], env: withoutPulumi, exit: 2, names: [() => /no Pulumi\.yaml in .* or any folder above it; run from the project folder/] },
    { name: "deploy: without the Pulumi CLI", args: () => ["deploy", "--stack", "dev"], cwd: REPO, env: withoutPulumi, exit: 1, names: [() => /"failedStep": "preflight"/, () => /runs the Pulumi CLI, which is not on PATH/, () => /install the Pulumi CLI/] },
    {
        name: "deploy: GITHUB_STEP_SUMMARY in a missing folder", args: () => ["deploy", "--stack", "dev"], cwd: REPO,
        env: (w) => ({ ...withoutPulumi(), GITHUB_STEP_SUMMARY: path.join(w.dir, "no-such-folder", "summary.md") }), exit: 1,
        names: [() => /"failedStep": "preflight"/, (w) => new RegExp(`GITHUB_STEP_SUMMARY=${w.dir}/no-such-folder/summary\\.md: cannot append the job summary \\(ENOENT\\)`)],
    },
    { name: "deploy: --smoke-timeout soon", args: () => ["deploy", "--stack", "dev", "--smoke-timeout", "soon"], env: withoutPulumi, exit: 2, names: [() => /--smoke-timeout/, () => /"soon" is not a number of seconds/] },
    { name: "deploy: no --stack", args: () => ["deploy"], exit: 2, names: [() => /--stack <name>/] },
];

function noKubeconfigEnv(w: World): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(w.dir, "home") };
    delete env.KUBECONFIG;
    return env;
}

type Verdict = "clear" | "vague" | "bad";

const TRACE = /^\s+at .+:\d+:\d+\)?$/m;

/** A run and how long it took. */
type TimedRun = TfsRun & { seconds: number };

/**
 * bad: exit 0, killed, a trace or an internal error, or something the case forbids; vague: the right
 * kind of failure that does not name what to fix, or comes only after a wait that cannot help.
 */
function judge(c: Case, run: TimedRun, w: World): { verdict: Verdict; why: string } {
    const out = `${run.stdout}\n${run.stderr}`;
    if (run.code === 0 || run.code === null || TRACE.test(out) || /internal error/.test(out)) {
        return { verdict: "bad", why: `exit ${run.code}${TRACE.test(out) ? ", stack trace" : ""}` };
    }
    const forbidden = (c.forbid ?? []).find((re) => re.test(out));
    if (forbidden !== undefined) {
        return { verdict: "bad", why: `says ${forbidden}` };
    }
    if (c.maxSeconds !== undefined && run.seconds > c.maxSeconds) {
        return { verdict: "vague", why: `took ${run.seconds.toFixed(1)} s (at most ${c.maxSeconds} s)` };
    }
    const missing = c.names.map((n) => n(w)).filter((p) => !p.test(out));
    if (run.code !== c.exit || missing.length > 0) {
        return { verdict: "vague", why: `exit ${run.code} (want ${c.exit})${missing.length ? `; does not name ${missing.join(", ")}` : ""}` };
    }
    return { verdict: "clear", why: "" };
}

describe("tfs smoke, doctor and deploy: bad input (child processes)", function () {
    this.timeout(60_000);
    let world: World;
    const servers: net.Server[] = [];
    const sockets = new Set<net.Socket>();
    const fakes = { hang: new FakeTfServing({ hangPredict: true }), tls: new FakeTfServing() };
    const results = new Map<string, TimedRun>();

    const listen = async (server: net.Server): Promise<string> => {
        servers.push(server);
        server.on("connection", (socket: net.Socket) => { sockets.add(socket); socket.on("close", () => sockets.delete(socket)); });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
        return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    };

    before(async function () {
        // Every case is a node process with ts-node: seconds apiece on a busy machine, three at a time.
        this.timeout(900_000);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-bad-input-"));
        fs.mkdirSync(path.join(dir, "home"));
        const refusedPort = await unusedPort();
        const certs = makeCertificates(dir);
        world = {
            dir,
            closing: await listen(net.createServer((socket) => socket.destroy())),
            silent: await listen(net.createServer(() => undefined)),
            huge: await listen(http.createServer(hugeAnswer(200))),
            grpc: await listen(http2.createServer() as unknown as net.Server),
            // Answers as TF Serving does for a model it does not serve.
            plain: await listen(http.createServer((req, res) => {
                res.writeHead(404, { "content-type": "application/json" });
                res.end(JSON.stringify({ error: `Could not find any versions of model ${req.url?.split("/")[3]}` }));
            })),
            refused: `http://127.0.0.1:${refusedPort}`,
            deadApi: "",
            reset: await listen(net.createServer((socket) => socket.resetAndDestroy())),
            h2NotFound: await listen(http2.createServer((_req, res) => { res.writeHead(404); res.end(); }) as unknown as net.Server),
            h2Goaway: await listen(http2.createServer().on("session", (session) => session.goaway(http2.constants.NGHTTP2_PROTOCOL_ERROR)) as unknown as net.Server),
            h2RstStream: await listen(http2.createServer().on("stream", (stream) => {
                stream.on("error", () => undefined);
                stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
            }) as unknown as net.Server),
            grpcHang: await fakes.hang.listen(),
            grpcTls: await fakes.tls.listen(FakeTfServing.tls(certs)),
            certs,
            emptyCa: path.join(dir, "empty.pem"),
            textCa: path.join(dir, "text.pem"),
            kubeconfig: (name) => path.join(dir, `${name}.kubeconfig`),
        };
        world.deadApi = world.closing;
        const cluster = (name: string, server: string) => `- name: ${name}\n  cluster: {server: "${server}", insecure-skip-tls-verify: true}\n`;
        const config = (clusters: string, contexts: string, current: string) =>
            `apiVersion: v1\nkind: Config\nclusters:\n${clusters}contexts:\n${contexts}current-context: ${current}\nusers:\n- name: u\n  user: {token: x}\n`;
        fs.writeFileSync(world.kubeconfig("empty"), "");
        fs.writeFileSync(world.kubeconfig("garbage"), "::: not yaml [\n");
        fs.writeFileSync(world.kubeconfig("lists"), "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n");
        fs.writeFileSync(world.kubeconfig("two"), config(cluster("c1", "https://127.0.0.1:1"),
            "- name: a\n  context: {cluster: c1, user: u}\n- name: b\n  context: {cluster: missing, user: u}\n", "gone"));
        fs.writeFileSync(world.kubeconfig("refused"), config(cluster("c", `https://127.0.0.1:${refusedPort}`), "- name: c\n  context: {cluster: c, user: u}\n", "c"));
        fs.writeFileSync(world.emptyCa, "");
        fs.writeFileSync(world.textCa, "the CA is the one in the team's wiki\n");
        fs.writeFileSync(world.kubeconfig("eproto"), config(cluster("c", world.plain.replace("http:", "https:")), "- name: c\n  context: {cluster: c, user: u}\n", "c"));
        // Answers every request with a web page, as a wrong address (a dashboard, a proxy's sign-in page) does.
        const page = await listen(http.createServer((_req, res) => {
            res.writeHead(200, { "content-type": "text/html" });
            res.end("<html><body>Welcome</body></html>");
        }));
        fs.writeFileSync(world.kubeconfig("garbage-api"), config(cluster("c", page), "- name: c\n  context: {cluster: c, user: u}\n", "c"));
        fs.writeFileSync(world.kubeconfig("dead"), config(cluster("c", world.deadApi), "- name: c\n  context: {cluster: c, user: u}\n", "c"));

        const queue = [...CASES];
        await Promise.all([0, 1, 2].map(async () => {
            for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
                const started = Date.now();
                const run = await runTfs(c.args(world), { env: c.env?.(world), cwd: c.cwd ?? dir, timeoutMs: 120_000 });
                results.set(c.name, { ...run, seconds: (Date.now() - started) / 1000 });
            }
        }));
    });

    after(async () => {
        if (process.env.TFS_BAD_INPUT_TALLY) {
            const tally: Record<Verdict, string[]> = { clear: [], vague: [], bad: [] };
            for (const c of CASES) {
                const run = results.get(c.name);
                if (run !== undefined) {
                    const { verdict, why } = judge(c, run, world);
                    tally[verdict].push(`${c.name}${why ? `: ${why}` : ""}`);
                }
            }
            console.log(`bad input: ${CASES.length} cases, ${tally.clear.length} clear, ${tally.vague.length} vague, ${tally.bad.length} bad`);
            [...tally.vague.map((l) => `  vague ${l}`), ...tally.bad.map((l) => `  bad   ${l}`)].forEach((l) => console.log(l));
        }
        sockets.forEach((s) => s.destroy());
        Object.values(fakes).forEach((f) => f.close());
        await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
        if (world !== undefined) {
            fs.rmSync(world.dir, { recursive: true, force: true });
        }
    });

    for (const c of CASES) {
        it(c.name, () => {
            const run = results.get(c.name);
            assert.ok(run !== undefined, "the case did not run");
            const { verdict, why } = judge(c, run, world);
            assert.strictEqual(verdict, "clear", `${why}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`);
        });
    }
});
