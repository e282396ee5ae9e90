/**
 * Pulumi.yaml's typed declarations as the engine checks a stack's values: ValidateConfigValue in
 * pulumi/pulumi sdk/go/common/workspace/project.go (integers: a whole number, or text strconv.Atoi takes;
 * booleans: true/false or their text; arrays: every item of the items type), called by
 * validateStackConfigValue in pkg/workspace/config.go with the value the program would receive.
 */
import * as assert from "assert";
import { declaredTypeName, declaredTypeProblem, matchesDeclaredType } from "../../../ops/declaredTypes";

describe("Pulumi.yaml's declared config types", () => {
    it("integer: what strconv.Atoi takes, within 64 bits, or a whole JSON number", () => {
        for (const ok of ["2", "+2", "-7", "0", "9223372036854775807", "-9223372036854775808", 3, 2.0]) {
            assert.ok(matchesDeclaredType({ type: "integer" }, ok), String(ok));
        }
        for (const bad of ["true", "2.5", " 2", "0x2", "9223372036854775808", "", 2.5, true, [1]]) {
            assert.ok(!matchesDeclaredType({ type: "integer" }, bad), String(bad));
        }
    });

    it("boolean, string, object, array: as the engine reads them", () => {
        assert.ok(matchesDeclaredType({ type: "boolean" }, "true") && matchesDeclaredType({ type: "boolean" }, false));
        assert.ok(!matchesDeclaredType({ type: "boolean" }, "True") && !matchesDeclaredType({ type: "boolean" }, "yes"));
        assert.ok(matchesDeclaredType({ type: "string" }, "2") && !matchesDeclaredType({ type: "string" }, { a: 1 }));
        assert.ok(matchesDeclaredType({ type: "object" }, { a: 1 }) && !matchesDeclaredType({ type: "object" }, [1]));
        assert.ok(matchesDeclaredType({ type: "array", items: { type: "integer" } }, [1, "2"]));
        assert.ok(!matchesDeclaredType({ type: "array", items: { type: "integer" } }, "[1]"));
        assert.ok(!matchesDeclaredType({ type: "array" }, []), "an array without items takes nothing");
        assert.strictEqual(declaredTypeName({ type: "array", items: { type: "array", items: { type: "string" } } }), "array<array<string>>");
    });

    it("says what the engine says, and which item is wrong", () => {
        assert.strictEqual(declaredTypeProblem("dev", "replicas", { type: "integer" }, "2"), undefined);
        assert.strictEqual(declaredTypeProblem("dev", "replicas", undefined, "x"), undefined, "undeclared: not checked");
        assert.match(declaredTypeProblem("dev", "replicas", { type: "integer" }, "true") ?? "", /\("Stack 'dev' with configuration key 'replicas' must be of type 'integer'"\): write a whole number/);
        assert.match(declaredTypeProblem("dev", "versions", { type: "array", items: { type: "integer" } }, [1, 1.5]) ?? "", /item \[1\] \(1\.5\) is not of type integer: write a list of integer items, e\.g\. \[1, 2\]/);
    });
});
