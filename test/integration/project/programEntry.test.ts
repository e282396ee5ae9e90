/**
 * The program's entry (index.ts) as Pulumi's Node.js language host runs it, with a configuration
 * the program refuses: the user must read the refusal alone, with no Node warning before it.
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as path from "path";
import { ownChild } from "../../support/children";

const REPO = path.resolve(__dirname, "../../..");

/*
 * What @pulumi/pulumi 3.276's language host does (cmd/run/run.js, `run` and its `runProgram`): it
 * installs a handler of `unhandledRejection` that reports the error, `require`s the program, then
 * awaits file-system reads (`containsTSAndJSModules`) before it awaits what the program exported
 * (calling it first when it is a function). A promise that rejects while those reads run is
 * "unhandled", then handled: Node prints PromiseRejectionHandledWarning into the engine's diagnostics.
 */
const HOST = `
require("ts-node").register({ project: "tsconfig.json", transpileOnly: true });
const pulumi = require("@pulumi/pulumi");
pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name + "-id", state: a.inputs }), call: () => ({}) }, "tf-serving", "dev", true);
pulumi.runtime.setAllConfig({ "tf-serving:modelPath": "models/nope", "tf-serving:replicas": "0" });
process.on("unhandledRejection", (err) => console.error("unhandled: " + err.message));
const exported = require("./index");
setTimeout(async () => {
    try {
        await (exported instanceof Function ? exported() : exported);
        console.error("the program ran");
    } catch (err) {
        console.error("refused: " + err.message);
    }
}, 50);
`;

describe("index.ts under the language host", function () {
    this.timeout(120_000);

    it("a config refusal is the only thing said: no unhandled rejection, no PromiseRejectionHandledWarning", async () => {
        const stderr = await new Promise<string>((resolve) => {
            ownChild(execFile(process.execPath, ["-e", HOST], { cwd: REPO, timeout: 110_000 }, (_err, _stdout, err) => resolve(err)));
        });
        assert.match(stderr, /^refused: invalid configuration[^]*tf-serving:replicas = "0"/m, stderr);
        assert.doesNotMatch(stderr, /PromiseRejectionHandledWarning|^unhandled: /m, stderr);
    });
});
