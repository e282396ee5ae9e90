import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { Ecr, lifecyclePolicy, tagMutability } from "../../../../../components/clouds/aws/ecr";
import { contentTag } from "../../../../../serving/contentTag";
import { settleOutput, startMockRuntime } from "../../../../support/mockRuntime";

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

describe("ECR tag mutability", () => {
    /** ECR's WILDCARD filter: `*` matches any run of characters. */
    const excluded = (tag: string) => tagMutability().imageTagMutabilityExclusionFilters.some((f) =>
        new RegExp(`^${f.filter.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, "\\$&")).join(".*")}$`).test(tag));

    it("lets every tag the program pushes be pushed again (a rebuild, a refresh, another stack)", () => {
        for (const seed of ["0", "a", "f"]) {
            assert.ok(excluded(contentTag(seed.repeat(64))), contentTag(seed.repeat(64)));
        }
    });

    it("keeps every other tag immutable", () => {
        assert.strictEqual(tagMutability().imageTagMutability, "IMMUTABLE_WITH_EXCLUSION");
        for (const tag of ["latest", "v1.2.0", "release-2024", "0123456789abcdef"]) {
            assert.ok(!excluded(tag), tag);
        }
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

    it("one repository per model: scanned on push, tags immutable except the content tags a re-push may move", async () => {
        const { recorder } = await build(["half-plus-two", "resnet"]);
        const repos = recorder.ofType("aws:ecr/repository:Repository").map((r) => r.inputs as any);
        assert.deepStrictEqual(repos.map((r) => r.name), ["tf-serving/half-plus-two", "tf-serving/resnet"]);
        for (const repo of repos) {
            // Plain IMMUTABLE refuses pushing an existing tag again, even with the same digest.
            assert.strictEqual(repo.imageTagMutability, "IMMUTABLE_WITH_EXCLUSION");
            assert.deepStrictEqual(repo.imageTagMutabilityExclusionFilters, [{ filter: "ctx-*", filterType: "WILDCARD" }]);
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
