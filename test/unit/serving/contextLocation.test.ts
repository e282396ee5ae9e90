import * as assert from "assert";
import * as path from "path";
import { contextFolder, projectRelative } from "../../../serving/contextLocation";

describe("serving/contextLocation", () => {
    it("stages a stack's model under .tfs/build/<stack>/<model>, named relative to the project", () => {
        assert.strictEqual(contextFolder("dev", "half-plus-two"), ".tfs/build/dev/half-plus-two");
        const location = projectRelative("/home/alice/tf-serving", contextFolder("dev", "half-plus-two"));
        assert.deepStrictEqual(location, {
            stagingDir: path.resolve("/home/alice/tf-serving/.tfs/build/dev/half-plus-two"),
            context: ".tfs/build/dev/half-plus-two",
            dockerfile: ".tfs/build/dev/half-plus-two/Dockerfile",
        });
    });

    it("names the same folder the same way from any checkout", () => {
        const a = projectRelative("/home/alice/src/tf-serving", ".tfs/build/dev/m");
        const b = projectRelative("/runner/_work/tf-serving/tf-serving", ".tfs/build/dev/m");
        assert.notStrictEqual(a.stagingDir, b.stagingDir);
        assert.deepStrictEqual([a.context, a.dockerfile], [b.context, b.dockerfile]);
    });

    it("accepts an absolute folder inside the project and names it relatively", () => {
        assert.strictEqual(projectRelative("/p", "/p/build/m").context, "build/m");
    });

    it("refuses a folder outside the project (or the project itself), saying why", () => {
        for (const outside of ["/tmp/ctx", "../ctx", "."]) {
            assert.throws(() => projectRelative("/p", outside), /not inside the project \/p: stage it under the project/, outside);
        }
    });
});
