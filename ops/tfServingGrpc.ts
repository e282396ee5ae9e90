/**
 * TF Serving's gRPC API for clients (and the tests' fake server): grpc-js service definitions
 * built from the message definitions in model/tfProto.ts, and one channel per endpoint.
 */
import * as grpc from "@grpc/grpc-js";
import * as protobuf from "protobufjs";
import { servingService } from "../model/tfProto";
import { EndpointCredential } from "./endpointCredential";
import { callMetadata, channelCredentials, channelOptions, GrpcTransport } from "./grpcTransport";
import { VersionStatus } from "./modelStatus";

/** Decoded messages are plain objects: enums by name, int64 as decimal strings, bytes as Buffers. */
const DECODE: protobuf.IConversionOptions = { enums: String, longs: String, objects: true };

/** A grpc-js service definition whose messages protobufjs encodes and decodes (plain objects both ways). */
export function serviceDefinition(name: "PredictionService" | "ModelService"): grpc.ServiceDefinition {
    const service = servingService(name);
    const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
    for (const method of service.methodsArray) {
        method.resolve();
        const request = method.resolvedRequestType as protobuf.Type;
        const response = method.resolvedResponseType as protobuf.Type;
        definition[method.name] = {
            path: `/${service.fullName.replace(/^\./, "")}/${method.name}`,
            requestStream: false,
            responseStream: false,
            requestSerialize: (value: object) => Buffer.from(request.encode(request.fromObject(value)).finish()),
            requestDeserialize: (bytes: Buffer) => request.toObject(request.decode(bytes), DECODE),
            responseSerialize: (value: object) => Buffer.from(response.encode(response.fromObject(value)).finish()),
            responseDeserialize: (bytes: Buffer) => response.toObject(response.decode(bytes), DECODE),
            originalName: method.name,
        };
    }
    return definition;
}

/** One channel to TF Serving's gRPC port, for both of its services. */
export class TfServingGrpcClient {
    private readonly client: grpc.Client;
    private readonly methods = { ...serviceDefinition("PredictionService"), ...serviceDefinition("ModelService") };
    private readonly credential?: EndpointCredential;

    /** Throws CaFileError for a CA file that cannot verify any server. Every call carries `transport.credential`. */
    constructor(target: string, transport: GrpcTransport) {
        this.client = new grpc.Client(target, channelCredentials(transport), channelOptions(transport));
        this.credential = transport.credential;
    }

    /** Calls a unary method ("Predict", "GetModelMetadata", "GetModelStatus"); rejects with the grpc-js ServiceError. */
    call<T>(method: "Predict" | "GetModelMetadata" | "GetModelStatus", request: object, timeoutMs: number): Promise<T> {
        const m = this.methods[method];
        return new Promise((resolve, reject) => {
            this.client.makeUnaryRequest(m.path, m.requestSerialize, m.responseDeserialize, request, callMetadata(this.credential),
                { deadline: Date.now() + timeoutMs }, (err, value) => (err ? reject(err) : resolve(value as T)));
        });
    }

    close(): void {
        this.client.close();
    }
}

export type { GrpcTransport } from "./grpcTransport";
/** The JSON <-> TensorProto conversions live with the model code, which the library ships and the CLI shares. */
export { predictInputs, tensorFromJson, tensorToJson } from "../model/tensorJson";
export type { TensorObject } from "../model/tensorJson";

/** A grpc-js error's code name and details, e.g. "NOT_FOUND: Servable not found for request: Latest(m)". */
export function describeGrpcError(err: unknown): { code: string; details: string } {
    const e = err as Partial<grpc.ServiceError>;
    const code = typeof e.code === "number" ? (grpc.status[e.code] ?? String(e.code)) : "UNKNOWN";
    return { code, details: e.details || e.message || String(err) };
}

/** GetModelStatusResponse (decoded) as the REST status list: versions, state names, error codes. */
export function versionStatuses(response: {
    model_version_status?: { version?: string; state?: string; status?: { error_code?: string; error_message?: string } }[];
}): VersionStatus[] {
    return (response.model_version_status ?? []).map((v) => ({
        version: v.version ?? "0",
        state: v.state ?? "UNKNOWN",
        errorCode: v.status?.error_code ?? "OK",
        errorMessage: v.status?.error_message ?? "",
    }));
}
