import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { Ecr, lifecyclePolicy } from "../../../components/registry/ecr";
import { settleOutput, startMockRuntime } from "../../../ops/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
describe("ECR lifecycle policy", () => {
    it("expires all but the newest N images, tagged or not", () => {
        assert.deepStrictEqual(JSON.parse(lifecyclePolicy(5)), {
            rules: [{
                rulePriority: 1,
                description: "Keep the last 5 images",
                selection: { tagStatus: "any", countType: "imageCountMoreThan", countNumber: 5 },
                action: { type: "expire" },
            }],
        });
    });
});

describe("Ecr", () => {
    async function build(models: string[]) {
        const recorder = await startMockRuntime();
        const ecr = new Ecr("images", { settings: { repositoryPrefix: "tf-serving", keepImages: 10, forceDelete: false }, models });
        const resolved = {
            imageNames: await Promise.all(models.map((m) => settleOutput(ecr.imageName(m)))),
            server: await settleOutput(ecr.server),
            username: await settleOutput(ecr.username),
            password: await settleOutput(ecr.password),
            passwordIsSecret: await pulumi.isSecret(ecr.password),
        };
        await recorder.settle();
        return { recorder, ecr, resolved };
    }

    it("one repository per model: scanned on push, immutable tags", async () => {
        const { recorder } = await build(["half-plus-two", "resnet"]);
        const repos = recorder.ofType("aws:ecr/repository:Repository").map((r) => r.inputs as any);
        assert.deepStrictEqual(repos.map((r) => r.name), ["tf-serving/half-plus-two", "tf-serving/resnet"]);
        for (const repo of repos) {
            assert.strictEqual(repo.imageTagMutability, "IMMUTABLE");
            assert.deepStrictEqual(repo.imageScanningConfiguration, { scanOnPush: true });
            assert.strictEqual(repo.forceDelete, false);
        }
    });

    it("a lifecycle policy on every repository keeping the last N images", async () => {
        const { recorder } = await build(["half-plus-two", "resnet"]);
        const policies = recorder.ofType("aws:ecr/lifecyclePolicy:LifecyclePolicy").map((p) => p.inputs as any);
        assert.deepStrictEqual(policies.map((p) => p.repository), ["tf-serving/half-plus-two", "tf-serving/resnet"]);
        for (const p of policies) {
            assert.strictEqual(JSON.parse(p.policy).rules[0].selection.countNumber, 10);
        }
    });

    it("image names under the account's registry; credentials from GetAuthorizationToken, secret", async () => {
        const { resolved } = await build(["half-plus-two"]);
        assert.strictEqual(resolved.server, "123456789012.dkr.ecr.us-west-2.amazonaws.com");
        assert.deepStrictEqual(resolved.imageNames, ["123456789012.dkr.ecr.us-west-2.amazonaws.com/tf-serving/half-plus-two"]);
        assert.strictEqual(resolved.username, "AWS");
        assert.strictEqual(resolved.password, "mock-ecr-password");
        assert.strictEqual(resolved.passwordIsSecret, true);
    });

    it("refuses an image name for a model it has no repository for", async () => {
        const { ecr } = await build(["half-plus-two"]);
        assert.throws(() => ecr.imageName("other"), /no ECR repository for model "other"/);
    });
});
