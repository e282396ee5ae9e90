/**
 * A loopback stand-in for TF Serving's REST API (port 8501 of `tensorflow_model_server`), for
 * tests. It answers the model status, metadata and `:predict` endpoints with TF Serving's JSON
 * shapes, paths, error messages and HTTP codes (from tensorflow_serving/model_servers/
 * http_rest_api_handler.cc and util/json_tensor.cc), computes the linear toy models of the
 * fixtures (half_plus_two: y = 0.5x + 2; half_plus_three: y = 0.5x + 3), and can play the states a
 * deployment goes through (loading, a failed load, predict errors).
 *
 * Known differences from the real server: tensor names in the metadata are "" (the fixtures are
 * read with `preflight`, which does not keep them); every numeric signature computes the model's
 * one linear function; string inputs (serialized tf.Example) are refused as the real models
 * refuse an empty Example; `:classify` and `:regress` are not served.
 */
import * as http from "http";
import * as net from "net";
import * as path from "path";
import { SignatureSpec, TensorSpec } from "../../contract/signature";
import { preflight } from "../../model/savedModel";
import { SAVED_MODELS } from "./fixtures";

/** The shipped SavedModel fixtures (test/fixtures/saved_models). */
export const FIXTURES_DIR = SAVED_MODELS;

export interface FakeModel {
    /** Served name (`--model_name`). */
    name: string;
    /** Served versions, lowest first; the highest answers requests that name no version. */
    versions: number[];
    /** Signatures by name, as `preflight` reports them. */
    signatures: Record<string, SignatureSpec>;
    /** Each numeric output element is `slope * x + intercept` of the matching input element. */
    slope: number;
    intercept: number;
    /** Version labels (`version_labels` in the model config). */
    labels?: Record<string, number>;
}

export interface FakeTfServingOptions {
    models: FakeModel[];
    /** Port to listen on (default: a free one chosen by the system). */
    port?: number;
    /** Status requests (per model) answered with every version LOADING before they turn AVAILABLE; Infinity: stuck loading. */
    loadingPolls?: number;
    /** After loading, every version ends (END) with this error instead of becoming AVAILABLE. */
    loadError?: string;
    /** Every `:predict` answers this HTTP status and `{"error": message}`. */
    predictError?: { status: number; message: string };
}

export interface RecordedRequest {
    method: string;
    path: string;
    body: string;
}

export interface FakeTfServing {
    /** REST base URL, e.g. http://127.0.0.1:41234 */
    url: string;
    port: number;
    /** Every request received, in order. */
    requests: RecordedRequest[];
    close(): Promise<void>;
}

/** The linear toy functions of the fixtures, by fixture folder name prefix. */
const FIXTURE_FUNCTIONS: Array<[RegExp, number, number]> = [
    [/^half_plus_two/, 0.5, 2],
    [/^half_plus_three/, 0.5, 3],
];

/** A fake model made from a fixture folder: its served versions and signatures come from `preflight`. */
export function fixtureModel(fixture: string, name = fixture): FakeModel {
    const report = preflight(path.join(FIXTURES_DIR, fixture));
    const served = report.versions.filter((v) => v.served);
    if (served.length === 0) {
        throw new Error(`fixture ${fixture} has no served version: ${report.errors.map((e) => e.message).join("; ")}`);
    }
    const fn = FIXTURE_FUNCTIONS.find(([pattern]) => pattern.test(fixture));
    return {
        name,
        versions: served.map((v) => v.version),
        signatures: served[served.length - 1].signatures,
        slope: fn?.[1] ?? 1,
        intercept: fn?.[2] ?? 0,
    };
}

/** TF Serving's status error: its message and the HTTP code http_server.cc maps it to. */
class ServingError extends Error {
    constructor(readonly httpStatus: number, message: string) {
        super(message);
    }
}
const invalidArgument = (message: string) => new ServingError(400, message);
const notFound = (message: string) => new ServingError(404, message);

const PREDICTION_PATH = /^\/v1\/models\/([^/:]+)(?:\/versions\/(\d+)|\/labels\/([^/:]+))?:(classify|regress|predict)$/i;
const STATUS_PATH = /^\/v1\/models(?:\/([^/:]+))?(?:\/versions\/(\d+)|\/labels\/([^/:]+))?(?:\/(metadata))?$/i;
const NUMERIC_TYPES = /^DT_(FLOAT|DOUBLE|HALF|BFLOAT16|U?INT(8|16|32|64))$/;

export async function startFakeTfServing(options: FakeTfServingOptions): Promise<FakeTfServing> {
    const requests: RecordedRequest[] = [];
    const statusPolls = new Map<string, number>();
    const models = new Map(options.models.map((m) => [m.name, m]));

    const loaded = (model: FakeModel) => (statusPolls.get(model.name) ?? 0) >= (options.loadingPolls ?? 0);
    const isAvailable = (model: FakeModel) => loaded(model) && options.loadError === undefined;

    /** The version a request addresses: a number, a label, or the highest available. */
    function resolveVersion(model: FakeModel, version: string | undefined, label: string | undefined, forServing: boolean): number {
        if (label !== undefined) {
            const labelled = model.labels?.[label];
            if (labelled === undefined) {
                throw invalidArgument(`Unrecognized servable version label: ${label}`);
            }
            return labelled;
        }
        if (version !== undefined) {
            const wanted = Number(version);
            if (!model.versions.includes(wanted) || (forServing && !isAvailable(model))) {
                throw notFound(forServing
                    ? `Servable not found for request: Specific(${model.name}, ${wanted})`
                    : `Could not find version ${wanted} of model ${model.name}`);
            }
            return wanted;
        }
        if (forServing && !isAvailable(model)) {
            throw notFound(`Servable not found for request: Latest(${model.name})`);
        }
        return model.versions[model.versions.length - 1];
    }

    function modelStatus(model: FakeModel, version: string | undefined, label: string | undefined): unknown {
        const state = !loaded(model) ? "LOADING" : options.loadError === undefined ? "AVAILABLE" : "END";
        statusPolls.set(model.name, (statusPolls.get(model.name) ?? 0) + 1);
        const versions = version === undefined && label === undefined
            ? model.versions
            : [resolveVersion(model, version, label, false)];
        const failed = state === "END";
        return {
            model_version_status: [...versions].reverse().map((v) => ({
                version: String(v),
                state,
                status: { error_code: failed ? "UNKNOWN" : "OK", error_message: failed ? options.loadError : "" },
            })),
        };
    }

    function metadata(model: FakeModel, version: string | undefined, label: string | undefined): unknown {
        const served = resolveVersion(model, version, label, true);
        const signatureDef: Record<string, unknown> = {};
        for (const [name, sig] of Object.entries(model.signatures)) {
            signatureDef[name] = {
                inputs: tensorInfoMap(sig.inputs),
                outputs: tensorInfoMap(sig.outputs),
                method_name: sig.method,
                defaults: {},
            };
        }
        return {
            model_spec: { name: model.name, signature_name: "", version: String(served) },
            metadata: { signature_def: { signature_def: signatureDef } },
        };
    }

    function predict(model: FakeModel, version: string | undefined, label: string | undefined, text: string): unknown {
        if (options.predictError !== undefined) {
            throw new ServingError(options.predictError.status, options.predictError.message);
        }
        resolveVersion(model, version, label, true);
        const request = parseRequest(text);
        if (request.signature_name !== undefined && typeof request.signature_name !== "string") {
            throw invalidArgument("JSON Value: 'signature_name' is not a string");
        }
        const signatureName = (request.signature_name as string | undefined) || "serving_default";
        const signature = model.signatures[signatureName];
        if (signature === undefined) {
            throw invalidArgument(`Serving signature name: "${signatureName}" not found in signature def`);
        }
        const inputNames = Object.keys(signature.inputs);
        if (inputNames.length === 0) {
            throw invalidArgument(`Failed to get input map for signature: ${signatureName}`);
        }
        const compute = (name: string, value: unknown) => linear(model, signature.inputs[name], value);
        const hasInstances = "instances" in request;
        const hasInputs = "inputs" in request;
        if (hasInstances && hasInputs) {
            throw invalidArgument("Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist");
        }
        if (hasInstances) {
            const instances = request.instances;
            if (!Array.isArray(instances)) {
                throw invalidArgument("Excepting 'instances' to be an list/array");
            }
            if (instances.length === 0) {
                throw invalidArgument("No values in 'instances' array");
            }
            const byName = instances.map((instance, i) => namedValues(instance, inputNames, i));
            const results = byName.map((values) => compute(inputNames[0], values[inputNames[0]]));
            return { predictions: results.map((y) => shapeOutputs(signature, y)) };
        }
        if (hasInputs) {
            const inputs = request.inputs;
            const isMap = inputs !== null && typeof inputs === "object" && !Array.isArray(inputs) && !isBase64(inputs);
            if (!isMap && inputNames.length > 1) {
                throw invalidArgument("inputs is a plain value/list, but expecting an object as multiple input tensors required as per tensorinfo_map");
            }
            const values = isMap ? inputs as Record<string, unknown> : { [inputNames[0]]: inputs };
            for (const name of inputNames) {
                if (!(name in values)) {
                    throw invalidArgument(`Missing named input: ${name} in 'inputs' object.`);
                }
            }
            return { outputs: shapeOutputs(signature, compute(inputNames[0], values[inputNames[0]])) };
        }
        throw invalidArgument("Missing 'inputs' or 'instances' key");
    }

    function route(method: string, urlPath: string, body: string): unknown {
        const prediction = method === "POST" ? PREDICTION_PATH.exec(urlPath) : null;
        const status = method === "GET" ? STATUS_PATH.exec(urlPath) : null;
        const match = prediction ?? status;
        if (match === null) {
            throw invalidArgument(`Malformed request: ${method} ${urlPath}`);
        }
        const [, rawName, version, label, verbOrSub] = match;
        if (rawName === undefined) {
            throw invalidArgument("Missing model name in request.");
        }
        const name = decodeURIComponent(rawName);
        const model = models.get(name);
        if (prediction !== null) {
            if (verbOrSub.toLowerCase() !== "predict") {
                throw new ServingError(501, `fake TF Serving serves only :predict, not :${verbOrSub}`);
            }
            if (model === undefined) {
                throw notFound(`Servable not found for request: ${version === undefined ? `Latest(${name})` : `Specific(${name}, ${version})`}`);
            }
            return predict(model, version, label, body);
        }
        if (model === undefined) {
            throw notFound(verbOrSub !== undefined
                ? `Servable not found for request: Latest(${name})`
                : `Could not find any versions of model ${name}`);
        }
        return verbOrSub !== undefined ? metadata(model, version, label) : modelStatus(model, version, label);
    }

    const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
            const body = Buffer.concat(chunks).toString("utf8");
            const urlPath = (req.url ?? "/").split("?")[0];
            const method = req.method ?? "GET";
            requests.push({ method, path: urlPath, body });
            if (!/^\/v1\//i.test(urlPath)) {
                // The real server registers no handler outside /v1/: its HTTP library answers 404.
                res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found");
                return;
            }
            let status = 200;
            let answer: unknown;
            try {
                answer = route(method, urlPath, body);
            } catch (err) {
                if (!(err instanceof ServingError)) {
                    throw err;
                }
                status = err.httpStatus;
                answer = { error: err.message };
            }
            res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(answer, null, 1));
        });
    });
    await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
    });
    const port = (server.address() as net.AddressInfo).port;
    return {
        url: `http://127.0.0.1:${port}`,
        port,
        requests,
        close: () => new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    };
}

/** A loopback port with nothing listening on it (bound, then closed): connecting to it is refused. */
export async function unusedPort(): Promise<number> {
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => {
        probe.once("error", reject);
        probe.listen(0, "127.0.0.1", () => resolve());
    });
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
}

/** A TensorInfo map in the proto3 JSON TF Serving prints (int64 sizes as strings). */
function tensorInfoMap(tensors: Record<string, TensorSpec>): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (const [name, t] of Object.entries(tensors)) {
        map[name] = {
            dtype: t.dtype,
            tensor_shape: {
                dim: (t.shape ?? []).map((size) => ({ size: String(size), name: "" })),
                unknown_rank: t.shape === null,
            },
            name: "",
        };
    }
    return map;
}

function parseRequest(text: string): Record<string, unknown> {
    if (text.trim() === "") {
        throw invalidArgument("JSON Parse error: The document is empty");
    }
    let doc: unknown;
    try {
        doc = JSON.parse(text);
    } catch (err) {
        throw invalidArgument(`JSON Parse error: ${(err as Error).message}`);
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
        throw invalidArgument(`JSON Value: ${text.slice(0, 100)} Is not object`);
    }
    return doc as Record<string, unknown>;
}

function isBase64(value: unknown): boolean {
    return value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 1 && "b64" in value;
}

/** The input values of one `instances` element: an object of named inputs, or the one input's value. */
function namedValues(instance: unknown, inputNames: string[], index: number): Record<string, unknown> {
    const isObject = instance !== null && typeof instance === "object" && !Array.isArray(instance) && !isBase64(instance);
    if (!isObject) {
        if (inputNames.length > 1) {
            throw invalidArgument("instances is a plain list, but expecting list of objects as multiple input tensors required as per tensorinfo_map");
        }
        return { [inputNames[0]]: instance };
    }
    const keys = Object.keys(instance as object).sort();
    if (keys.join(",") !== [...inputNames].sort().join(",")) {
        throw invalidArgument(`Failed to process element: ${index} of 'instances' list. JSON object: ${JSON.stringify(instance)} must only have keys: ${[...inputNames].sort().join(",")}`);
    }
    return instance as Record<string, unknown>;
}

/** `slope * x + intercept` over a nested list of numbers, refusing what TF Serving would refuse for the input's dtype. */
function linear(model: FakeModel, spec: TensorSpec, value: unknown): unknown {
    if (!NUMERIC_TYPES.test(spec.dtype)) {
        // The fixtures' string inputs are serialized tf.Examples; an empty or foreign one lacks feature x.
        throw invalidArgument("Feature: x (data type: float) is required but could not be found.");
    }
    const walk = (v: unknown): unknown => {
        if (Array.isArray(v)) {
            return v.map(walk);
        }
        if (typeof v !== "number") {
            throw invalidArgument(`JSON Value: ${JSON.stringify(v)} Type: ${v === null ? "Null" : typeof v} is not of expected type: ${spec.dtype.slice(3).toLowerCase()}`);
        }
        return model.slope * v + model.intercept;
    };
    return walk(value);
}

/** One output value per output name; a single output is written without its name, as TF Serving does. */
function shapeOutputs(signature: SignatureSpec, value: unknown): unknown {
    const names = Object.keys(signature.outputs);
    if (names.length === 1) {
        return value;
    }
    return Object.fromEntries(names.map((n) => [n, value]));
}
