/**
 * How `tfs smoke --grpc` reaches TF Serving's gRPC port: the CA file it verifies the server with,
 * the channel's credentials and options, and what a failed connection says about the address
 * (wrong CA, TLS on one side only, a server that is not gRPC): those need a fix, not a wait.
 */
import { X509Certificate } from "crypto";
import * as fs from "fs";
import * as grpc from "@grpc/grpc-js";
import { EndpointCredential } from "./endpointCredential";

/** How to reach the gRPC port: plaintext (h2c), or TLS verified against a CA file or the system roots. */
export interface GrpcTransport {
    tls: boolean;
    /** PEM file of the CA that signed the server's certificate; without it the system roots. */
    caFile?: string;
    /** Sent as `authorization` metadata on every call (a Gateway's caller authentication). */
    credential?: EndpointCredential;
    /**
     * The `:authority` every call names instead of the target's host: the model's host where a Gateway
     * routes gRPC by host (`gateway.grpcHostname`, the `models` output's `grpcAuthority`).
     */
    authority?: string;
}

/** The channel's options: the authority, when one is named (grpc-js `grpc.default_authority`). */
export function channelOptions(transport: GrpcTransport): grpc.ChannelOptions {
    return transport.authority === undefined ? {} : { "grpc.default_authority": transport.authority };
}

/**
 * One call's metadata: `authorization` when there is a credential. Per call, not call credentials:
 * grpc-js composes those with TLS channels only, and the loopback Gateway's gRPC port is plaintext.
 */
export function callMetadata(credential: EndpointCredential | undefined): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (credential !== undefined) {
        metadata.set("authorization", credential.authorization);
    }
    return metadata;
}

/** A `--ca` file that cannot verify any server: a usage mistake, said before connecting. */
export class CaFileError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "CaFileError";
    }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The certificates of a CA file's text, or what is wrong with it (as the end of "--ca FILE ..."). */
export function parseCaFile(bytes: Buffer): { certificates: string[] } | { problem: string } {
    const text = bytes.toString("latin1");
    if (text.trim() === "") {
        return { problem: "is empty: pass the PEM file of the CA that signed the server's certificate" };
    }
    const blocks = [...text.matchAll(PEM_BLOCK)];
    const certificates = blocks.filter((b) => b[1] === "CERTIFICATE").map((b) => b[0]);
    if (certificates.length === 0) {
        if (blocks.some((b) => /PRIVATE KEY/.test(b[1]))) {
            return { problem: "holds a private key, not a certificate: pass the CA's certificate (a -----BEGIN CERTIFICATE----- block) and keep the key private" };
        }
        if (isDerCertificate(bytes)) {
            return { problem: "is a certificate in DER (binary) form: convert it to PEM (openssl x509 -inform der -in FILE -out ca.pem) and pass that" };
        }
        return { problem: "holds no PEM certificate (no -----BEGIN CERTIFICATE----- block): pass the PEM file of the CA that signed the server's certificate" };
    }
    for (const [i, pem] of certificates.entries()) {
        try {
            new X509Certificate(pem);
        } catch (err) {
            return { problem: `has a certificate that does not parse (block ${i + 1}: ${(err as Error).message}): export the CA certificate again` };
        }
    }
    return { certificates };
}

function isDerCertificate(bytes: Buffer): boolean {
    try {
        new X509Certificate(bytes);
        return true;
    } catch {
        return false;
    }
}

/** The CA certificates of `--ca FILE`, PEM; throws CaFileError naming the file and what to pass instead. */
export function readCaFile(file: string): Buffer {
    let bytes: Buffer;
    try {
        bytes = fs.readFileSync(file);
    } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new CaFileError(code === "EISDIR"
            ? `--ca ${file} is a folder: pass the PEM file of the CA (such as ca.crt), not the folder that holds it`
            : `--ca ${file}: cannot read it (${code ?? (err as Error).message})`);
    }
    const parsed = parseCaFile(bytes);
    if ("problem" in parsed) {
        throw new CaFileError(`--ca ${file} ${parsed.problem}`);
    }
    return Buffer.from(`${parsed.certificates.join("\n")}\n`);
}

/** The channel's credentials; throws CaFileError for an unusable CA file. */
export function channelCredentials(transport: GrpcTransport): grpc.ChannelCredentials {
    if (!transport.tls) {
        return grpc.credentials.createInsecure();
    }
    return grpc.credentials.createSsl(transport.caFile === undefined ? null : readCaFile(transport.caFile));
}

/**
 * Drops Node's DEP0123 warning ("Setting the TLS ServerName to an IP address...") from this process.
 * grpc-js sends the target's host as the TLS server name, an IP address included, and has no option
 * to send none (channel-credentials.js, getConnectionOptions; grpc/grpc-node#1919 is open). Servers
 * still choose their certificate by it (Traefik's CertificateStore.GetBestCertificate matches it
 * against IP SANs), so the name stays; the warning names nothing the user can change.
 */
export function withoutIpServerNameWarning(): void {
    const emit = process.emitWarning;
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
        const options = rest[0] as { code?: unknown } | string | undefined;
        const code = typeof options === "object" && options !== null ? options.code : rest[1];
        if (code !== "DEP0123") {
            (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
        }
    }) as typeof process.emitWarning;
}

/** grpc-js's "No connection established. Last error: ..." as the last error alone ("wrong version number", "connect ECONNRESET ..."). */
export function connectionError(details: string): string | undefined {
    const match = /^No connection established\. Last error: ([\s\S]*?)(?:\.? Resolution note:[\s\S]*)?$/.exec(details);
    if (match === null) {
        return undefined;
    }
    const last = match[1].replace(/^Error: /, "").trim();
    // OpenSSL's own text: "8088...:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/...".
    return /SSL routines:[^:]*:([^:]+)/.exec(last)?.[1] ?? last.replace(/ \(\d{4}-\d\d-\d\dT[^)]*\)$/, "");
}

/** HTTP/2 error codes by number (RFC 9113 section 7), for a stream a server reset. */
const H2_ERRORS = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
    "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"];

const GRPC_PORT = "TF Serving's gRPC port (8500 by convention)";

/**
 * Why no wait can reach TF Serving's gRPC API at this address, with the fix, from a failed call's
 * status `details`; undefined for what a wait may cure (connection refused while a pod starts, a timeout).
 */
export function hopelessGrpcProblem(details: string, transport: GrpcTransport): string | undefined {
    const status = /Received HTTP status code (\d+)/.exec(details);
    if (status !== null) {
        return `an HTTP/2 server answered HTTP ${status[1]}, not gRPC: this is not ${GRPC_PORT}, or a proxy in front of it has no gRPC route to it`;
    }
    const reset = /Received RST_STREAM with code (\d+)/.exec(details);
    if (reset !== null) {
        const name = H2_ERRORS[Number(reset[1])];
        return `the server reset the call's HTTP/2 stream (RST_STREAM ${name ?? `code ${reset[1]}`}) without a gRPC status: `
            + `this is not ${GRPC_PORT}, or a proxy that cannot reach it`;
    }
    // A GOAWAY with an error code: Node's http2 destroys the session with ERR_HTTP2_SESSION_ERROR "Session closed
    // with error code N" (lib/internal/http2/core.js, onGoawayData). On Node 24 the stream's teardown hands that
    // error to the write in flight (core.js, Http2Stream._destroy), so grpc-js ends the call with "Write error: ..."
    // (subchannel-call.js, sendMessageWithContext) before its stream-close handler could say "Received RST_STREAM
    // with code N", which is what Node 20 reported for the same GOAWAY.
    const goaway = /Session closed with error code (\d+)/.exec(details);
    if (goaway !== null) {
        const name = H2_ERRORS[Number(goaway[1])];
        return `the server closed the HTTP/2 connection (GOAWAY ${name ?? `code ${goaway[1]}`}) without a gRPC status: `
            + `this is not ${GRPC_PORT}, or a proxy that cannot reach it`;
    }
    if (/Stream refused by server/.test(details)) {
        return `the server refused the call's HTTP/2 stream (REFUSED_STREAM or GOAWAY) without a gRPC status: this is not ${GRPC_PORT}, or a server shutting down`;
    }
    const last = connectionError(details);
    if (last === undefined) {
        return undefined;
    }
    if (/unable to verify|unable to get (local )?issuer certificate|self[- ]signed certificate|certificate signature failure/.test(last)) {
        return transport.caFile !== undefined
            ? `the server's certificate is not signed by the CA in --ca ${transport.caFile} (${last}): pass the CA that signed it`
            : `the system roots do not trust the server's certificate (${last}): pass --ca FILE, the PEM file of the CA that signed it`;
    }
    if (/certificate has expired|certificate is not yet valid/.test(last)) {
        return `the server's certificate cannot be trusted now (${last}): renew it`;
    }
    if (/does not match certificate's altnames/.test(last)) {
        return `the server's certificate is not for this address (${last}): connect by a name or IP address it lists`;
    }
    if (/wrong version number|packet length too long|unknown protocol|http request/i.test(last)) {
        return `the server does not speak TLS on this port (${last}): drop --tls (TF Serving's own port is plaintext; TLS comes from a Gateway or proxy in front of it)`;
    }
    if (/socket disconnected before secure TLS connection/.test(last)) {
        return `the server closed the connection during the TLS handshake: if this port is plaintext drop --tls, otherwise it is not ${GRPC_PORT}`;
    }
    if (/^Protocol error/.test(last)) {
        return `the server answers HTTP/1, not gRPC's HTTP/2: if it is TF Serving's REST port (8501 by convention), point at ${GRPC_PORT}, or drop --grpc`;
    }
    if (/ECONNRESET/.test(last)) {
        return `the server reset the connection (ECONNRESET) before speaking HTTP/2: this is not ${GRPC_PORT}, or a port-forward or load balancer with no ready pod behind it`;
    }
    if (/^Failed to connect/.test(last)) {
        return `the server closed the connection before speaking HTTP/2: if the port serves TLS add --tls (and --ca FILE); `
            + `otherwise it is not ${GRPC_PORT}, or a port-forward or load balancer with no ready pod behind it`;
    }
    return undefined;
}
