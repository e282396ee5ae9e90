/**
 * The node the mistakes tests run `tfs` with as another user (test/support/mistakes.ts): Node.js installed
 * under a home closed to others (scripts/lib/node.sh puts it in ~/.cache/tf-serving-e2e; root's home is 0700)
 * cannot be run by that user, so the tests link it into the folder the command runs in.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { nodeForOthers, othersMayRun } from "../../support/mistakes";

describe("the node another user runs tfs with", () => {
    let dir: string;
    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-node-for-others-"));
        fs.chmodSync(dir, 0o755);
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("others may not run a file in a folder closed to them, whatever the file's own mode", () => {
        const closed = path.join(dir, "home");
        fs.mkdirSync(path.join(closed, "bin"), { recursive: true });
        const file = path.join(closed, "bin", "node");
        fs.writeFileSync(file, "", { mode: 0o755 });
        fs.chmodSync(closed, 0o700);
        assert.strictEqual(othersMayRun(file), false);
        fs.chmodSync(closed, 0o755);
        assert.strictEqual(othersMayRun(file), true);
        fs.chmodSync(file, 0o750);
        assert.strictEqual(othersMayRun(file), false);
    });

    it("is this process's node when others may run it, else one in the command's folder they may run", () => {
        const node = nodeForOthers(dir);
        if (othersMayRun(process.execPath)) {
            assert.strictEqual(node, process.execPath);
        } else {
            assert.strictEqual(node, path.join(dir, ".node", "node"));
            assert.ok(othersMayRun(node));
            assert.strictEqual(fs.statSync(node).size, fs.statSync(process.execPath).size);
        }
    });
});
