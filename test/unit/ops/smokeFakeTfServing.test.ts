import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { FakeTfServing, fixtureModel, FIXTURES_DIR, startFakeTfServing } from "../../support/fakeTfServing";

/** The stand-in smoke is tested against must itself answer as TF Serving does. */
describe("fake TF Serving (test support)", () => {
    let server: FakeTfServing;
    afterEach(async () => server?.close());

    const get = async (p: string) => {
        const res = await fetch(`${server.url}${p}`, { signal: AbortSignal.timeout(5000) });
        return { status: res.status, body: await res.json() as Record<string, unknown> };
    };
    const post = async (p: string, body: unknown) => {
        const res = await fetch(`${server.url}${p}`, {
            method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), signal: AbortSignal.timeout(5000),
        });
        return { status: res.status, body: await res.json() as Record<string, unknown> };
    };

    describe("a loaded half_plus_two", () => {
        beforeEach(async () => {
            const model = { ...fixtureModel("half_plus_two_cpu", "half_plus_two"), labels: { stable: 123 } };
            server = await startFakeTfServing({ models: [model, fixtureModel("half_plus_three")] });
        });

        it("answers the model status as the REST API documents it", async () => {
            assert.deepStrictEqual(await get("/v1/models/half_plus_two"), {
                status: 200,
                body: { model_version_status: [{ version: "123", state: "AVAILABLE", status: { error_code: "OK", error_message: "" } }] },
            });
            assert.strictEqual((await get("/v1/models/half_plus_two/versions/123")).status, 200);
            assert.strictEqual((await get("/v1/models/half_plus_two/labels/stable")).status, 200);
        });

        it("answers the metadata as TF Serving did for this fixture (tensor names aside)", async () => {
            const oracle = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, "half_plus_two_cpu.metadata.json"), "utf8"));
            const { status, body } = await get("/v1/models/half_plus_two/metadata");
            assert.strictEqual(status, 200);
            const blankNames = (json: unknown) => JSON.parse(JSON.stringify(json), (k, value) => (k === "name" && typeof value === "string" && value.includes(":") ? "" : value));
            const expected = blankNames(oracle);
            expected.model_spec.name = "half_plus_two";
            assert.deepStrictEqual(body, expected);
        });

        it("computes y = 0.5x + 2 for rows and columns, and 0.5x + 3 for half_plus_three", async () => {
            assert.deepStrictEqual(await post("/v1/models/half_plus_two:predict", { instances: [1.0, 2.0, 5.0] }), {
                status: 200, body: { predictions: [2.5, 3.0, 4.5] },
            });
            assert.deepStrictEqual((await post("/v1/models/half_plus_two/versions/123:predict", { inputs: { x: [[1.0]] } })).body, { outputs: [[2.5]] });
            assert.deepStrictEqual((await post("/v1/models/half_plus_two/labels/stable:predict", { instances: [{ x: [4] }] })).body, { predictions: [[4]] });
            assert.deepStrictEqual((await post("/v1/models/half_plus_three:predict", { instances: [1.0, 2.0, 5.0] })).body, { predictions: [3.5, 4.0, 5.5] });
        });

        it("answers unknown models and versions with 404 and TF Serving's messages", async () => {
            assert.deepStrictEqual(await post("/v1/models/half:predict", { instances: [1.0, 5.0] }), {
                status: 404, body: { error: "Servable not found for request: Latest(half)" },
            });
            assert.deepStrictEqual(await get("/v1/models/half"), { status: 404, body: { error: "Could not find any versions of model half" } });
            assert.deepStrictEqual(await get("/v1/models/half_plus_two/versions/7"), {
                status: 404, body: { error: "Could not find version 7 of model half_plus_two" },
            });
            assert.strictEqual((await get("/v1/models/half_plus_two/labels/canary")).status, 400);
        });

        it("answers bad requests with 400 and an error", async () => {
            const bad = async (body: unknown) => post("/v1/models/half_plus_two:predict", body);
            assert.deepStrictEqual(await bad({ signature_name: "nope", instances: [1] }), {
                status: 400, body: { error: "Serving signature name: \"nope\" not found in signature def" },
            });
            assert.deepStrictEqual(await bad({}), { status: 400, body: { error: "Missing 'inputs' or 'instances' key" } });
            assert.strictEqual((await bad({ instances: [1], inputs: [1] })).status, 400);
            assert.strictEqual((await bad({ instances: [] })).status, 400);
            assert.strictEqual((await bad({ instances: ["a"] })).status, 400);
            assert.strictEqual((await bad("{not json")).status, 400);
            assert.deepStrictEqual(await bad({ signature_name: "classify_x_to_y", instances: [""] }), {
                status: 400, body: { error: "Feature: x (data type: float) is required but could not be found." },
            });
            assert.deepStrictEqual(await get("/v1/elsewhere"), { status: 400, body: { error: "Malformed request: GET /v1/elsewhere" } });
        });

        it("records every request", async () => {
            await get("/v1/models/half_plus_two");
            await post("/v1/models/half_plus_two:predict", { instances: [1] });
            assert.deepStrictEqual(server.requests.map((r) => `${r.method} ${r.path}`), [
                "GET /v1/models/half_plus_two", "POST /v1/models/half_plus_two:predict",
            ]);
            assert.strictEqual(server.requests[1].body, '{"instances":[1]}');
        });
    });

    it("serves every version of a two-version model and answers for the highest", async () => {
        const model = fixtureModel("half_plus_two_2_versions", "m");
        server = await startFakeTfServing({ models: [{ ...model, versions: [123, 124] }] });
        const status = await get("/v1/models/m");
        assert.deepStrictEqual((status.body.model_version_status as Array<{ version: string }>).map((s) => s.version), ["124", "123"]);
        assert.strictEqual(((await get("/v1/models/m/metadata")).body.model_spec as { version: string }).version, "124");
    });

    it("reports LOADING for the first polls, then AVAILABLE", async () => {
        server = await startFakeTfServing({ models: [fixtureModel("half_plus_two_cpu", "m")], loadingPolls: 2 });
        const state = async () => ((await get("/v1/models/m")).body.model_version_status as Array<{ state: string }>)[0].state;
        assert.strictEqual(await state(), "LOADING");
        assert.deepStrictEqual(await post("/v1/models/m:predict", { instances: [1] }), {
            status: 404, body: { error: "Servable not found for request: Latest(m)" },
        });
        assert.strictEqual(await state(), "LOADING");
        assert.strictEqual(await state(), "AVAILABLE");
    });

    it("ends versions with the load error when told to", async () => {
        server = await startFakeTfServing({ models: [fixtureModel("half_plus_two_cpu", "m")], loadError: "Failed to load" });
        assert.deepStrictEqual((await get("/v1/models/m")).body, {
            model_version_status: [{ version: "123", state: "END", status: { error_code: "UNKNOWN", error_message: "Failed to load" } }],
        });
    });

    it("fails every predict when told to", async () => {
        server = await startFakeTfServing({
            models: [fixtureModel("half_plus_two_cpu", "m")],
            predictError: { status: 500, message: "Resource exhausted: OOM" },
        });
        assert.deepStrictEqual(await post("/v1/models/m:predict", { instances: [1] }), {
            status: 500, body: { error: "Resource exhausted: OOM" },
        });
    });
});
