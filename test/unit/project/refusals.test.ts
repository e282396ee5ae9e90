/**
 * A user's mistake ends `pulumi preview` with one line: the Node.js language host prints a
 * `pulumi.RunError`'s message alone and any other error with its JavaScript stack trace
 * (`@pulumi/pulumi` cmd/run/run.js, its uncaught-error handler). So the library's folders throw no
 * plain `Error`: a component refuses with `argsError` (components/refusal.ts), the facade with a
 * `RunError`, the pure modules with their own classes (`StagingError`, `SizingError`), which the
 * components turn into `argsError` (`refusing`). What is left is listed here, each with the reason
 * it is no user's mistake.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "../../..");
const FOLDERS = ["components", "facade", "serving", "lib"];

/** `file: message start` of each plain Error left, and why a stack trace is the right thing there. */
const NOT_USER_MISTAKES: Record<string, string> = {
    "components/clouds/gcp/artifactRegistry.ts: Artifact Registry answered a Docker image without a sha256 digest":
        "the registry's answer broke its own format: nothing the user passed, and the stack belongs in the bug report",
    "serving/contentTag.ts: a build context digest is 64 lowercase hex digits":
        "its callers pass contextDigest's own output: a bug if it fires",
    "serving/canary.ts: rule ${i} of the route has no backend for both ${services.serving} and ${services.canary}":
        "thrown inside the canary's dynamic provider during an update, whose errors reach the engine as its message only",
    "serving/autoscaling.ts: autoscaling needs targetCpuUtilization":
        "ModelServer's resolver (issue 48, item 1) refuses autoscaling without a target before it registers anything",
};

function sources(dir: string): string[] {
    return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = path.join(dir, e.name);
        return e.isDirectory() ? sources(rel) : e.name.endsWith(".ts") ? [rel] : [];
    });
}

/** The first words of each `new Error(` message in `text` (up to the first `:`, `;`, `(` or `,`). */
function plainErrorsIn(text: string): string[] {
    return [...text.matchAll(/new Error\(\s*[`"']([^`"']*)/g)].map((m) => m[1].replace(/[:;(,].*$/, "").trim());
}

/** Every `new Error(` in the library's folders, as `file: the message's first words`. */
function plainErrors(): string[] {
    return FOLDERS.flatMap(sources).flatMap((file) =>
        plainErrorsIn(fs.readFileSync(path.join(ROOT, file), "utf8")).map((m) => `${file.split(path.sep).join("/")}: ${m}`));
}

describe("refusals reach pulumi preview as one line", () => {
    it("the library's folders throw no plain Error but the listed ones, which are no user's mistake", () => {
        const found = plainErrors().sort();
        assert.deepStrictEqual(found.filter((f) => NOT_USER_MISTAKES[f] === undefined), [],
            "a user's mistake throws argsError (components), a pulumi.RunError (facade) or its module's error class (serving): a plain Error prints a stack trace");
        assert.deepStrictEqual(Object.keys(NOT_USER_MISTAKES).filter((k) => !found.includes(k)), [], "an allowed Error that is gone: remove it from the list");
    });

    it("finds a plain Error however it is written, and not a RunError", () => {
        const text = "throw new Error(`model ${m}: no version`);\nthrow x ? new Error(\n    \"a, b\") : y;\nthrow new pulumi.RunError(\"c\");";
        assert.deepStrictEqual(plainErrorsIn(text), ["model ${m}", "a"]);
    });
});
