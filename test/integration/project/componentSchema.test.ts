/**
 * The library package as a multi-language component package, read the way `pulumi package add`
 * reads it: Pulumi's Node.js plugin host (`@pulumi/pulumi` cmd/run-plugin/run.js) loads the
 * package's main module, finds the exported components (`getPulumiComponents`), names the provider
 * after the package, and its `ComponentProvider.getSchema` runs the schema analyzer
 * (provider/experimental/analyzer.js) over the package's `tsconfig.json` and facade sources. The
 * analyzer throws on a component it cannot describe (a union that is not a named enum, a function,
 * args that are not an interface), which fails this test.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { pack } from "../../../tools/pack/main";

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, "../../..");
const COMPONENTS = ["ModelImage", "ModelServer", "ModelGateway", "ModelMonitoring", "GkeCluster", "EksCluster"];

interface Schema {
    name: string;
    version: string;
    resources: Record<string, { isComponent: boolean; inputProperties: Record<string, any>; requiredInputs?: string[]; properties: Record<string, any> }>;
    types: Record<string, { type: string; enum?: { name: string; value: string }[]; properties?: Record<string, any> }>;
}

describe("the multi-language component package", function () {
    this.timeout(300_000);
    let work: string;
    let packageDir: string;
    let schema: Schema;

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-schema-"));
        // The SDK and TypeScript the plugin runs with: the repository's, as `npm install` in the package would give it.
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(work, "node_modules"), "dir");
        const [library] = pack(ROOT, path.join(work, "packages"));
        packageDir = library.dir;
        const { getPulumiComponents, ComponentProvider } = require("@pulumi/pulumi/provider/experimental/provider");
        const components = getPulumiComponents(require(packageDir));
        const name = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")).name;
        const provider = new ComponentProvider({ name, dirname: packageDir, components });
        schema = JSON.parse(await provider.getSchema());
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    it("is a Node.js plugin whose main module is the compiled facade", () => {
        assert.strictEqual(fs.readFileSync(path.join(packageDir, "PulumiPlugin.yaml"), "utf8").trim(), "runtime: nodejs");
        const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"));
        assert.ok(fs.existsSync(path.join(packageDir, manifest.main)), manifest.main);
    });

    it("describes the six components, each a component resource with the library's type token", () => {
        assert.strictEqual(schema.name, "tf-serving");
        for (const component of COMPONENTS) {
            const resource = schema.resources[`tf-serving:index:${component}`];
            assert.ok(resource !== undefined, `${component} missing from ${Object.keys(schema.resources).join(", ")}`);
            assert.strictEqual(resource.isComponent, true, component);
        }
    });

    it("takes ModelImage's and ModelServer's values from other resources as inputs, the model's facts as plain values", () => {
        const server = schema.resources["tf-serving:index:ModelServer"];
        assert.deepStrictEqual([...server.requiredInputs!].sort(), ["image", "modelDir", "modelName", "namespace"]);
        assert.strictEqual(server.inputProperties.image.plain, undefined, "image comes from a ModelImage's output");
        assert.strictEqual(server.inputProperties.modelName.plain, true);
        assert.deepStrictEqual([server.inputProperties.rollout.$ref, server.inputProperties.rollout.plain], ["#/types/tf-serving:index:Rollout", true]);
        assert.deepStrictEqual(Object.keys(server.properties).sort(),
            ["externalAddress", "grpcEndpoint", "imageRef", "memoryLimit", "memoryRequest", "modelStatusUrl", "restUrl"]);
        const image = schema.resources["tf-serving:index:ModelImage"];
        assert.deepStrictEqual([...image.requiredInputs!].sort(), ["imageName", "modelDir", "modelName", "projectDir", "registry"]);
        assert.ok(image.properties.imageRef !== undefined);
    });

    it("names each enum with the library's values", () => {
        const values = (type: string) => schema.types[`tf-serving:index:${type}`].enum!.map((e) => e.value);
        assert.deepStrictEqual(values("Rollout"), ["surge", "oneAtATime"]);
        assert.deepStrictEqual(values("Collector"), ["gke", "prometheus-operator", "annotations", "none"]);
        assert.deepStrictEqual(values("NetworkKind"), ["create", "existing"]);
        assert.deepStrictEqual(values("ReleaseChannel"), ["RAPID", "REGULAR", "STABLE", "EXTENDED"]);
    });

    it("refuses the library's own ModelServer, whose args hold a union and a resource of ours (why the facade exists)", () => {
        const { Analyzer } = require("@pulumi/pulumi/provider/experimental/analyzer");
        const entry = path.join(work, "library-entry");
        fs.mkdirSync(entry);
        fs.writeFileSync(path.join(entry, "index.ts"), `export { ModelServer } from "${path.join(packageDir, "dist", "lib", "modelServer")}";\n`);
        fs.writeFileSync(path.join(entry, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: true }, include: ["index.ts"] }));
        const analyzer = new Analyzer(entry, "tf-serving", { name: "tf-serving" }, new Set(["ModelServer"]));
        assert.throws(() => analyzer.analyze(), /Union types are not supported|Unsupported type|only @pulumi packages/);
    });
});
