import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CaFileError, connectionError, hopelessGrpcProblem, parseCaFile, readCaFile } from "../../../ops/grpcTransport";
import { makeCertificates } from "../../support/fakeTfServingGrpc";

/** Status details as grpc-js 1.14 words them (seen against the servers of test/integration/cli/opsBadInput.test.ts). */
const DETAILS = {
    refused: "No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:39199. Resolution note: ",
    wrongCa: "No connection established. Last error: Error: unable to verify the first certificate. Resolution note: ",
    tlsToPlain: "No connection established. Last error: Error: 809CA5711A7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:"
        + "../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n. Resolution note: ",
    closed: "No connection established. Last error: Failed to connect (2026-12-01T20:29:03.615Z). Resolution note: ",
    http1: "No connection established. Last error: Protocol error (2026-12-01T20:29:03.554Z). Resolution note: ",
    reset: "No connection established. Last error: Error: connect ECONNRESET 127.0.0.1:39199. Resolution note: ",
};

describe("grpcTransport", () => {
    describe("parseCaFile", () => {
        let certs: ReturnType<typeof makeCertificates>;
        let dir: string;
        before(() => {
            dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-ca-"));
            certs = makeCertificates(dir);
        });
        after(() => fs.rmSync(dir, { recursive: true, force: true }));

        it("keeps only the certificates of a PEM file", () => {
            const both = Buffer.concat([fs.readFileSync(certs.keyFile), fs.readFileSync(certs.ca)]);
            const parsed = parseCaFile(both);
            assert.ok("certificates" in parsed);
            assert.strictEqual(parsed.certificates.length, 1);
            assert.match(parsed.certificates[0], /^-----BEGIN CERTIFICATE-----/);
        });

        it("says what an unusable file holds instead", () => {
            const problem = (bytes: Buffer) => (parseCaFile(bytes) as { problem?: string }).problem;
            assert.match(problem(Buffer.from(" \n")) ?? "", /^is empty/);
            assert.match(problem(fs.readFileSync(certs.keyFile)) ?? "", /^holds a private key, not a certificate/);
            assert.match(problem(Buffer.from("ca: see the wiki\n")) ?? "", /^holds no PEM certificate/);
            const der = Buffer.from(fs.readFileSync(certs.ca, "utf8").replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
            assert.match(problem(der) ?? "", /DER \(binary\) form: convert it to PEM/);
            assert.match(problem(Buffer.from("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")) ?? "", /does not parse/);
        });

        it("readCaFile names the file, and a folder as a folder", () => {
            assert.throws(() => readCaFile(dir), (err: Error) => err instanceof CaFileError && err.message === `--ca ${dir} is a folder: pass the PEM file of the CA (such as ca.crt), not the folder that holds it`);
            assert.throws(() => readCaFile(path.join(dir, "nope.pem")), /--ca .*nope\.pem: cannot read it \(ENOENT\)/);
            assert.match(readCaFile(certs.ca).toString(), /^-----BEGIN CERTIFICATE-----/);
        });
    });

    it("connectionError keeps grpc-js's last error alone", () => {
        assert.strictEqual(connectionError(DETAILS.refused), "connect ECONNREFUSED 127.0.0.1:39199");
        assert.strictEqual(connectionError(DETAILS.tlsToPlain), "wrong version number");
        assert.strictEqual(connectionError(DETAILS.closed), "Failed to connect");
        assert.strictEqual(connectionError("Received HTTP status code 404"), undefined);
    });

    describe("hopelessGrpcProblem", () => {
        const plain = { tls: false };
        it("leaves what a wait may cure to the wait: connection refused, a timeout", () => {
            assert.strictEqual(hopelessGrpcProblem(DETAILS.refused, plain), undefined);
            assert.strictEqual(hopelessGrpcProblem("Deadline exceeded after 1.002s", plain), undefined);
        });

        it("names the fix for what no wait cures", () => {
            const cases: [string, { tls: boolean; caFile?: string }, RegExp][] = [
                [DETAILS.wrongCa, { tls: true, caFile: "ca.pem" }, /not signed by the CA in --ca ca\.pem \(unable to verify the first certificate\): pass the CA that signed it/],
                [DETAILS.wrongCa, { tls: true }, /system roots do not trust .*: pass --ca FILE/],
                [DETAILS.tlsToPlain, { tls: true }, /does not speak TLS on this port \(wrong version number\): drop --tls/],
                [DETAILS.closed, plain, /closed the connection before speaking HTTP\/2: if the port serves TLS add --tls/],
                [DETAILS.http1, plain, /answers HTTP\/1, not gRPC's HTTP\/2: .*REST port.*8500/],
                [DETAILS.reset, plain, /reset the connection \(ECONNRESET\)/],
                ["Received HTTP status code 404", plain, /answered HTTP 404, not gRPC/],
                ["Received RST_STREAM with code 1", plain, /RST_STREAM PROTOCOL_ERROR/],
                ["Stream refused by server", plain, /REFUSED_STREAM or GOAWAY/],
                // A server's GOAWAY PROTOCOL_ERROR as grpc-js reports it on Node 24 (on Node 20: the RST_STREAM case above).
                ["Write error: Session closed with error code 1", plain, /closed the HTTP\/2 connection \(GOAWAY PROTOCOL_ERROR\) without a gRPC status: this is not TF Serving's gRPC port/],
                ["Write error: Session closed with error code 99", plain, /GOAWAY code 99/],
            ];
            for (const [details, transport, want] of cases) {
                assert.match(hopelessGrpcProblem(details, transport) ?? "(none)", want, details);
            }
        });
    });
});
