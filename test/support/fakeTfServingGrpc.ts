/**
 * A TF Serving fake on grpc-js with the product's own service definitions, and the certificates a
 * TLS one needs: for the gRPC smoke's unit tests and the `tfs smoke --grpc` bad-input table.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import { servingType, SIGNATURE_DEF_MAP_URL } from "../../model/tfProto";
import { serviceDefinition, TensorObject } from "../../ops/tfServingGrpc";

export interface Certificates {
    /** PEM file of the CA that signed the server's certificate. */
    ca: string;
    /** PEM file of another CA, which signed nothing here. */
    otherCa: string;
    /** PEM file of the server's private key (not a certificate). */
    keyFile: string;
    key: Buffer;
    cert: Buffer;
}

/** A CA and a server certificate for 127.0.0.1 and localhost it signed, made with openssl in `dir`. */
export function makeCertificates(dir: string): Certificates {
    const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    run("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=tfs smoke test CA");
    run("req", "-x509", ...ec, "-keyout", "other.key", "-out", "other.pem", "-days", "2", "-subj", "/CN=another CA");
    run("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
    fs.writeFileSync(path.join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext");
    return {
        ca: path.join(dir, "ca.pem"), otherCa: path.join(dir, "other.pem"), keyFile: path.join(dir, "server.key"),
        key: fs.readFileSync(path.join(dir, "server.key")), cert: fs.readFileSync(path.join(dir, "server.pem")),
    };
}

type Handler = (call: { request: Record<string, unknown>; metadata: grpc.Metadata }, callback: grpc.sendUnaryData<unknown>) => void;

export interface FakeOptions {
    /** Status calls that report LOADING before the model is AVAILABLE; default 0. */
    loadingPolls?: number;
    /** Predict never answers (the call stays open until its deadline). */
    hangPredict?: boolean;
    /**
     * Every call must carry this `authorization` metadata, or fails UNAUTHENTICATED (as an
     * authenticating proxy in front of the server does); `forbid` fails every call PERMISSION_DENIED.
     */
    authorization?: string | "forbid";
    /** The model's name; default "m". */
    model?: string;
}

/**
 * Model "m" (version 7; `model` names it otherwise) reports LOADING for its first `loadingPolls` status calls, then AVAILABLE;
 * Predict computes half_plus_two (y = x/2 + 2) from float_val; signature "broken" fails as the real
 * server would.
 */
export class FakeTfServing {
    readonly server = new grpc.Server();
    statusCalls = 0;
    predictRequests: Record<string, unknown>[] = [];
    /** The `authorization` metadata of every call, in order (undefined: none sent). */
    authorizations: (string | undefined)[] = [];

    constructor(options: FakeOptions = {}) {
        const loadingPolls = options.loadingPolls ?? 0;
        const fail = (callback: grpc.sendUnaryData<unknown>, code: grpc.status, details: string) => callback({ code, details, name: "", message: details });
        const name = options.model ?? "m";
        const known = (request: Record<string, unknown>) => (request.model_spec as { name?: string } | undefined)?.name === name;
        const status: Handler = ({ request }, callback) => {
            if (!known(request)) {
                return fail(callback, grpc.status.NOT_FOUND, `Could not find any versions of model ${(request.model_spec as { name?: string }).name}`);
            }
            this.statusCalls++;
            const state = this.statusCalls <= loadingPolls ? "LOADING" : "AVAILABLE";
            callback(null, { model_version_status: [{ version: 7, state, status: {} }] });
        };
        const metadata: Handler = ({ request }, callback) => {
            if (!known(request)) {
                return fail(callback, grpc.status.NOT_FOUND, "Servable not found for request: Latest(other)");
            }
            const tensor = (name: string) => ({ name, dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: -1 }, { size: 1 }] } });
            const map = servingType("tensorflow.serving.SignatureDefMap");
            const signature = { inputs: { x: tensor("x:0") }, outputs: { y: tensor("y:0") }, method_name: "tensorflow/serving/predict" };
            const value = map.encode(map.fromObject({ signature_def: { serving_default: signature, broken: signature } })).finish();
            callback(null, { model_spec: { name, version: { value: 7 } }, metadata: { signature_def: { type_url: SIGNATURE_DEF_MAP_URL, value } } });
        };
        const predict: Handler = ({ request }, callback) => {
            this.predictRequests.push(request);
            if (options.hangPredict) {
                return;
            }
            const spec = request.model_spec as { signature_name?: string };
            if (spec.signature_name === "broken") {
                return fail(callback, grpc.status.INVALID_ARGUMENT, "Expects arg[0] to be float but int64 is provided");
            }
            const x = (request.inputs as Record<string, TensorObject>).x;
            const y = (x.float_val as number[]).map((v) => v / 2 + 2);
            callback(null, {
                model_spec: { name, version: { value: 7 }, signature_name: spec.signature_name },
                outputs: { y: { dtype: "DT_FLOAT", tensor_shape: x.tensor_shape, float_val: y } },
            });
        };
        const guarded = (handler: Handler): Handler => (call, callback) => {
            const sent = call.metadata.get("authorization")[0]?.toString();
            this.authorizations.push(sent);
            if (options.authorization === "forbid") {
                return fail(callback, grpc.status.PERMISSION_DENIED, "caller not allowed");
            }
            if (options.authorization !== undefined && sent !== options.authorization) {
                return fail(callback, grpc.status.UNAUTHENTICATED, sent === undefined ? "no credentials" : "credentials not accepted");
            }
            handler(call, callback);
        };
        this.server.addService(serviceDefinition("ModelService"), { GetModelStatus: guarded(status) });
        this.server.addService(serviceDefinition("PredictionService"), { GetModelMetadata: guarded(metadata), Predict: guarded(predict) });
    }

    /** Listens on 127.0.0.1 (plaintext unless `credentials` say TLS); resolves to its HOST:PORT. */
    listen(credentials = grpc.ServerCredentials.createInsecure()): Promise<string> {
        return new Promise((resolve, reject) => this.server.bindAsync("127.0.0.1:0", credentials,
            (err, port) => (err ? reject(err) : resolve(`127.0.0.1:${port}`))));
    }

    /** TLS credentials for `listen` from `makeCertificates`. */
    static tls(certs: Certificates): grpc.ServerCredentials {
        return grpc.ServerCredentials.createSsl(null, [{ private_key: certs.key, cert_chain: certs.cert }], false);
    }

    close(): void {
        this.server.forceShutdown();
    }
}
