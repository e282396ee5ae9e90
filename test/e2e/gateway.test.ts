/**
 * The Gateway endpoint (`endpoint: gateway`) on the environment's real Gateway API implementation
 * (Traefik, GatewayClass `$TFS_E2E_GATEWAY_CLASS`), as a client sees it. One stack, one sequence:
 * plaintext first (REST predict; a few hundred gRPC Predicts on one channel, each pod's share from
 * its own request count within 20 % of the mean: the Gateway balances requests, where the L4
 * LoadBalancer keeps (stack.test.ts, step 1b) a channel on one pod), then TLS from a Secret signed by a
 * CA the test makes (a client trusting that CA passes `tfs smoke --grpc --tls --ca`, one that does
 * not is refused), then a new model version under gRPC traffic through the Gateway: no failed call.
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { TFS, runCli } from "../support/cli";
import { E2eProject, MODEL, createProject, kubectl } from "../support/e2eProject";
import { grpcBalance, grpcUnderTraffic, predictOnce, worstDeviationFromMean } from "../support/grpcTraffic";
import { TfServingGrpcClient, describeGrpcError } from "../../ops/tfServingGrpc";
import { predict } from "../support/traffic";

const REQUESTS = 300;
const TLS_SECRET = "tfs-e2e-gateway-tls";
/** The Gateway API has no source ranges: the stack says the endpoint is open on purpose (the address is loopback here). */
const OPEN = { loadBalancerSourceRanges: undefined, publicEndpoint: true };

function env(name: string): string {
    const v = process.env[name];
    assert.ok(v, `${name} is not set: source the environment's env file (scripts/e2e-env env)`);
    return v;
}

/** A CA and a server certificate it signs for the Gateway's loopback address (an IP SAN: clients dial the IP). */
function makeCertificates(dir: string, address: string): { ca: string; cert: string; key: string } {
    const f = (n: string) => path.join(dir, n);
    const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"], timeout: 30_000 });
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
        "-subj", "/CN=tfs-e2e gateway test CA", "-keyout", f("ca.key"), "-out", f("ca.crt"));
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-subj", "/CN=tfs-e2e gateway", "-keyout", f("tls.key"), "-out", f("tls.csr"));
    fs.writeFileSync(f("ext.cnf"), `subjectAltName=IP:${address}\nextendedKeyUsage=serverAuth\n`);
    openssl("x509", "-req", "-in", f("tls.csr"), "-CA", f("ca.crt"), "-CAkey", f("ca.key"), "-CAcreateserial",
        "-days", "1", "-extfile", f("ext.cnf"), "-out", f("tls.crt"));
    return { ca: f("ca.crt"), cert: f("tls.crt"), key: f("tls.key") };
}

function podIps(namespace: string): string[] {
    return (kubectl("get", "pods", "-n", namespace, "-l", `app.kubernetes.io/instance=${MODEL}`).items as
        { metadata: { deletionTimestamp?: string }; status: { podIP?: string; phase: string } }[])
        .filter((p) => p.status.phase === "Running" && !p.metadata.deletionTimestamp && p.status.podIP)
        .map((p) => p.status.podIP as string);
}

describe("the Gateway endpoint on a real Gateway API implementation: REST, gRPC balanced per request, TLS, an update under gRPC traffic", function () {
    this.timeout(20 * 60 * 1000);
    let project: E2eProject;
    let certDir: string;
    let grpcEndpoint: string;
    const gatewayConfig: { className: string; tlsSecretName?: string } = { className: "" };

    before(async () => {
        gatewayConfig.className = env("TFS_E2E_GATEWAY_CLASS");
        certDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-gateway-tls-"));
        project = await createProject();
        project.setConfig({ ...OPEN, replicas: 2, endpoint: "gateway", gateway: gatewayConfig });
    });

    after(async () => {
        await project?.dispose();
        fs.rmSync(certDir, { recursive: true, force: true });
    });

    it("1. plaintext: the outputs point at the Gateway's address, and REST predict answers through it", async () => {
        const up = await project.pulumi.up();
        assert.strictEqual(up.summary.result, "succeeded");
        const address = env("TFS_E2E_GATEWAY_ADDRESS");
        grpcEndpoint = up.outputs.grpcEndpoint as string;
        assert.strictEqual(grpcEndpoint, `${address}:8500`, "grpcEndpoint is the Gateway's status address");
        const restUrl = up.outputs.restUrl as string;
        assert.strictEqual(restUrl, `http://${address}:8501`);
        assert.deepStrictEqual(await predict(restUrl, MODEL, [1, 2, 5]), [2.5, 3, 4.5]);
    });

    it(`2. ${REQUESTS} gRPC Predicts on one channel: each pod answers within 20 % of the mean`, async () => {
        const pods = podIps(project.namespace);
        assert.strictEqual(pods.length, 2, "two replicas");
        const report = await grpcBalance(grpcEndpoint, { tls: false }, MODEL, pods, REQUESTS);
        console.log(`      ${JSON.stringify({ grpc: { gateway: report } })}`);
        assert.strictEqual(report.failed, 0);
        assert.strictEqual(report.podCounts.reduce((a, b) => a + b, 0), REQUESTS, `every Predict counted once: ${report.podCounts}`);
        assert.ok(worstDeviationFromMean(report.podCounts) <= 0.2, `each pod within 20 % of the mean: ${report.podCounts}`);
    });

    it("3. TLS from a Secret: a client trusting its CA passes tfs smoke --grpc, one that does not is refused", async () => {
        const certs = makeCertificates(certDir, env("TFS_E2E_GATEWAY_ADDRESS"));
        execFileSync("kubectl", ["create", "secret", "tls", TLS_SECRET, "-n", project.namespace, "--cert", certs.cert, "--key", certs.key],
            { stdio: ["ignore", "ignore", "inherit"], timeout: 30_000 });
        gatewayConfig.tlsSecretName = TLS_SECRET;
        project.setConfig({ ...OPEN, replicas: 2, endpoint: "gateway", gateway: gatewayConfig });
        const up = await project.pulumi.up();
        assert.strictEqual(up.summary.result, "succeeded");
        assert.strictEqual(up.outputs.restUrl, `https://${env("TFS_E2E_GATEWAY_ADDRESS")}:8501`, "restUrl turns https with TLS");
        assert.strictEqual(up.outputs.grpcEndpoint, grpcEndpoint);

        // Traefik loads the Secret a moment after the Gateway changes: wait for the first trusted answer.
        const trusted = new TfServingGrpcClient(grpcEndpoint, { tls: true, caFile: certs.ca });
        let lastError = "";
        try {
            const until = Date.now() + 60_000;
            for (;;) {
                try {
                    await predictOnce(trusted, MODEL, 3, 5000);
                    break;
                } catch (err) {
                    lastError = `${describeGrpcError(err).code}: ${describeGrpcError(err).details}`;
                    assert.ok(Date.now() < until, `no TLS answer through the Gateway within 60 s: ${lastError}`);
                    await new Promise((r) => setTimeout(r, 1000));
                }
            }
        } finally {
            trusted.close();
        }

        const smoke = await runCli("node", [TFS, "smoke", "--grpc", "--tls", "--ca", certs.ca, "--url", grpcEndpoint, "--model", MODEL],
            { cwd: project.projectDir, timeoutMs: 120_000 });
        assert.strictEqual(smoke.code, 0, `tfs smoke --grpc --tls --ca: ${smoke.stdout}\n${smoke.stderr}`);

        // The system roots do not hold the test's CA: the handshake fails, and no Predict is answered.
        const untrusted = await runCli("node", [TFS, "smoke", "--grpc", "--tls", "--url", grpcEndpoint, "--model", MODEL, "--timeout", "15"],
            { cwd: project.projectDir, timeoutMs: 120_000 });
        assert.notStrictEqual(untrusted.code, 0, `a client without the CA must be refused: ${untrusted.stdout}`);
        assert.match(untrusted.stdout + untrusted.stderr, /certificate|UNAVAILABLE|self[- ]signed|verify/i);
        const plaintext = new TfServingGrpcClient(grpcEndpoint, { tls: false });
        try {
            await assert.rejects(predictOnce(plaintext, MODEL, 1, 5000), "a plaintext client is not answered by the TLS listener");
        } finally {
            plaintext.close();
        }
    });

    it("4. a new model version under gRPC traffic through the Gateway (TLS): no failed call, answers switch to it", async () => {
        fs.cpSync(path.join(project.modelDir, "123"), path.join(project.modelDir, "124"), { recursive: true });
        const transport = { tls: true, caFile: path.join(certDir, "ca.crt") };
        const t0 = Date.now();
        const updating = project.pulumi.up().then(async (up) => {
            // Until the old pods are gone: the provider's await may return before the rollout ends.
            for (let i = 0; i < 360; i++) {
                const d = kubectl("get", "deployment", MODEL, "-n", project.namespace);
                const pods = kubectl("get", "pods", "-n", project.namespace, "-l", `app.kubernetes.io/instance=${MODEL}`).items as unknown[];
                if (d.status.updatedReplicas === 2 && d.status.availableReplicas === 2 && pods.length === 2) {
                    break;
                }
                await new Promise((r) => setTimeout(r, 500));
            }
            return up;
        });
        const traffic = await grpcUnderTraffic(grpcEndpoint, transport, MODEL, updating);
        const up = await updating;
        console.log(`      update under gRPC traffic through the Gateway (${((Date.now() - t0) / 1000).toFixed(1)} s): ${traffic.requests} calls, `
            + `${traffic.failures.length} failed; versions answering: ${traffic.versions[0]} first, ${traffic.versions[traffic.versions.length - 1]} last, `
            + `${Math.max(0, traffic.versions.length - 2)} alternations between them while both served`);
        assert.strictEqual(up.summary.result, "succeeded");
        assert.deepStrictEqual(traffic.failures.slice(0, 5), [], `${traffic.failures.length} of ${traffic.requests} calls failed`);
        assert.ok(traffic.requests > 50, `the calls ran through the update (${traffic.requests})`);
        assert.strictEqual(traffic.versions[0], "123", "version 123 answered first");
        assert.strictEqual(traffic.versions[traffic.versions.length - 1], "124", "version 124 answers after the update");
    });
});
