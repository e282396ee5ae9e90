import * as assert from "assert";
import { modelNameProblem, normalizeVersions, quote, renderModelConfig, versionLabelProblem } from "../../../serving/modelConfig";

describe("serving/modelConfig", () => {
    describe("renderModelConfig", () => {
        it("renders specific versions and labels, versions ascending and labels by name", () => {
            const text = renderModelConfig([{
                name: "m", basePath: "/models/m", versions: [2, 1, 2], labels: { stable: 2, canary: 1 },
            }]);
            assert.strictEqual(text, [
                "model_config_list {",
                "  config {",
                "    name: 'm'",
                "    base_path: '/models/m'",
                "    model_platform: 'tensorflow'",
                "    model_version_policy {",
                "      specific {",
                "        versions: 1",
                "        versions: 2",
                "      }",
                "    }",
                "    version_labels {",
                "      key: 'canary'",
                "      value: 1",
                "    }",
                "    version_labels {",
                "      key: 'stable'",
                "      value: 2",
                "    }",
                "  }",
                "}",
                "",
            ].join("\n"));
        });

        it("leaves the policy out for TF Serving's default (latest version) and lists several models", () => {
            const text = renderModelConfig([
                { name: "a", basePath: "/models/a" },
                { name: "b", basePath: "/models/b", versions: [7] },
            ]);
            assert.strictEqual((text.match(/config \{/g) ?? []).length, 2);
            assert.strictEqual((text.match(/model_version_policy/g) ?? []).length, 1);
            assert.match(text, /name: 'b'\n {4}base_path: '\/models\/b'\n {4}model_platform: 'tensorflow'\n {4}model_version_policy \{\n {6}specific \{\n {8}versions: 7\n/);
        });

        it("refuses labels TF Serving would reject", () => {
            const base = { name: "m", basePath: "/models/m" };
            assert.throws(() => renderModelConfig([{ ...base, versions: [1], labels: { "stable-1": 1 } }]), /"stable-1" may contain only letters, digits and '_'/);
            assert.throws(() => renderModelConfig([{ ...base, versions: [1, 2], labels: { stable: 3 } }]), /points at version 3, which is not served \(served: 1, 2\)/);
            assert.throws(() => renderModelConfig([{ ...base, labels: { stable: 3 } }]), /needs an explicit versions list/);
        });

        it("refuses bad names, versions and duplicates", () => {
            assert.throws(() => renderModelConfig([]), /at least one model/);
            assert.throws(() => renderModelConfig([{ name: "My_Model", basePath: "/models/x" }]), /must be a DNS label/);
            assert.throws(() => renderModelConfig([{ name: "m", basePath: "/a" }, { name: "m", basePath: "/b" }]), /appears twice/);
            assert.throws(() => renderModelConfig([{ name: "m", basePath: "/m", versions: [] }]), /empty versions list/);
            for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
                assert.throws(() => renderModelConfig([{ name: "m", basePath: "/m", versions: [bad] }]), /positive whole number/, String(bad));
            }
        });
    });

    it("quotes text-proto strings, escaping quotes, backslashes, control and non-ASCII bytes", () => {
        assert.strictEqual(quote("/models/m"), "'/models/m'");
        assert.strictEqual(quote("it's"), "'it\\'s'");
        assert.strictEqual(quote("a\\b\"c"), "'a\\\\b\\\"c'");
        assert.strictEqual(quote("a\nb\tc\u0001"), "'a\\nb\\tc\\001'");
        assert.strictEqual(quote("é"), "'\\303\\251'");
    });

    it("normalizes versions: ascending, without duplicates", () => {
        assert.deepStrictEqual(normalizeVersions([10, 2, 10, 1]), [1, 2, 10]);
    });

    it("accepts DNS-label model names and label names TF Serving accepts", () => {
        for (const name of ["m", "half-plus-two", "a1", "x".repeat(63)]) {
            assert.strictEqual(modelNameProblem(name), undefined, name);
        }
        for (const name of ["", "Half", "-a", "a-", "1model", "a.b", "a_b", "x".repeat(64)]) {
            assert.ok(modelNameProblem(name), `"${name}" should be refused`);
        }
        assert.strictEqual(versionLabelProblem("Stable_2"), undefined);
        assert.ok(versionLabelProblem("stable 2"));
        assert.ok(versionLabelProblem(""));
    });
});
