/**
 * The registry's answer when a cloud's provider SDK is missing: the packages make `@pulumi/gcp` and
 * `@pulumi/aws` optional peers, so a stack on GKE or EKS must say which one to install before any of
 * its rules load (the packed command's integration test runs the same without them).
 */
import * as assert from "assert";
import { CLOUDS, cloudAbout, cloudSdkProblem } from "../../../../components/clouds/registry";

const missing = (name: string): string => {
    throw Object.assign(new Error(`Cannot find module '${name}'`), { code: "MODULE_NOT_FOUND" });
};

describe("the cloud registry's SDKs", () => {
    it("names each cloud's provider SDK, and none for a stack on an existing cluster", () => {
        assert.deepStrictEqual(Object.fromEntries(CLOUDS.map((c) => [c, cloudAbout(c).sdk])), { local: undefined, gcp: "@pulumi/gcp", aws: "@pulumi/aws" });
    });

    it("says which SDK a cloud needs when it is not installed, and how to install it", () => {
        const problem = cloudSdkProblem("gcp", missing);
        assert.match(problem ?? "", /^needs the @pulumi\/gcp package, which is not installed/);
        assert.match(problem ?? "", /`npm install @pulumi\/gcp`/);
        assert.match(problem ?? "", /docs\/reference\/cli\.md#installing-tfs/);
        assert.match(cloudSdkProblem("aws", missing) ?? "", /@pulumi\/aws/);
    });

    it("finds nothing wrong when the SDK resolves, or when the cloud needs none", () => {
        const asked: string[] = [];
        assert.strictEqual(cloudSdkProblem("aws", (name) => { asked.push(name); return `/x/${name}/index.js`; }), undefined);
        assert.deepStrictEqual(asked, ["@pulumi/aws"]);
        assert.strictEqual(cloudSdkProblem("local", missing), undefined);
        assert.strictEqual(cloudSdkProblem("gcp"), undefined, "the repository installs every SDK");
    });
});
