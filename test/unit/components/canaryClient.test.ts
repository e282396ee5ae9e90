/**
 * The canary's Kubernetes client is an optional peer of the library (a program without a canary never
 * installs it): `ModelServer` refuses a canary at preview when the client is missing, with the fix,
 * instead of the update failing on a missing module mid-release. The packed library's integration
 * test runs the refusal for real (test/integration/library.test.ts).
 */
import * as assert from "assert";
import { CANARY_CLIENT, canaryClientProblem } from "../../../components/canary/canaryRelease";

describe("the canary's Kubernetes client", () => {
    it("is @kubernetes/client-node, found from the canary runner's folder here", () => {
        assert.strictEqual(CANARY_CLIENT, "@kubernetes/client-node");
        assert.strictEqual(canaryClientProblem(), undefined, "the repository installs it");
    });

    it("says what to install when it does not resolve", () => {
        const asked: string[] = [];
        const problem = canaryClientProblem((name) => {
            asked.push(name);
            throw Object.assign(new Error(`Cannot find module '${name}'`), { code: "MODULE_NOT_FOUND" });
        });
        assert.deepStrictEqual(asked, [CANARY_CLIENT]);
        assert.match(problem ?? "", /^needs the @kubernetes\/client-node package, which is not installed/);
        assert.match(problem ?? "", /`npm install @kubernetes\/client-node`.*docs\/reference\/library\.md#install/);
    });
});
