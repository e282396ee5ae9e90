/**
 * npm 11 warns about dependencies whose install scripts `allowScripts` (package.json) does not cover,
 * and a later npm skips them. None of ours is needed (package.json denies each: protobufjs 7's only
 * warns about version schemes, @pulumi/kubernetes' runs `pulumi plugin install`, which the CLI does
 * on first use and the e2e environment from its own build, @swc/core's checks the binding its
 * platform package brings), so an install runs them or not with the same result.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "../../..");
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));

describe("install scripts", () => {
    it("allowScripts covers exactly the locked packages that have install scripts, and approves none", () => {
        const lock = read("package-lock.json") as { packages: Record<string, { hasInstallScript?: boolean }> };
        const withScripts = [...new Set(Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript)
            .map(([where]) => where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length)))].sort();
        assert.ok(withScripts.includes("@swc/core"), `read ${withScripts.join(", ")}`);
        const allowScripts = (read("package.json") as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
        assert.deepStrictEqual(Object.keys(allowScripts).map((k) => k.replace(/(?<=.)@[^@/]+$/, "")).sort(), withScripts);
        assert.deepStrictEqual(Object.entries(allowScripts).filter(([, allowed]) => allowed !== false), [], "no install script is needed");
    });
});
