/**
 * `tfs --version`: the version of the package `tfs` runs from (the repository's in a checkout, the
 * tf-serving-cli package's when installed: test/integration/project/cliPackage.test.ts), answered
 * before any command, while `--version` after a command stays that command's option.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { main } from "../../../cli/main";
import { commandVersion } from "../../../cli/packageVersion";

const ROOT = path.resolve(__dirname, "../../..");
const ROOT_VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/** Runs `tfs ARGS` in this process; what commander writes to stdout (its usage errors go to stderr, kept off the report), and the exit code. */
async function tfs(...args: string[]): Promise<{ code: number; stdout: string }> {
    let stdout = "";
    const [out, err] = [process.stdout.write, process.stderr.write];
    process.stdout.write = ((chunk: string | Uint8Array) => { stdout += chunk.toString(); return true; }) as typeof process.stdout.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
        return { code: await main(["node", "tfs", ...args]), stdout };
    } finally {
        [process.stdout.write, process.stderr.write] = [out, err];
    }
}

describe("tfs --version", () => {
    it("prints the version of the package it runs from, in a checkout the repository's", async () => {
        for (const flag of ["--version", "-V"]) {
            assert.deepStrictEqual(await tfs(flag), { code: 0, stdout: `${ROOT_VERSION}\n` }, flag);
        }
        assert.strictEqual(commandVersion(path.join(ROOT, "cli")), ROOT_VERSION);
    });

    it("reads the nearest package.json above the command's files, as in an installed package", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-version-"));
        try {
            fs.mkdirSync(path.join(dir, "tf-serving-cli", "dist", "cli"), { recursive: true });
            fs.writeFileSync(path.join(dir, "tf-serving-cli", "package.json"), JSON.stringify({ name: "tf-serving-cli", version: "0.2.1-dev.3f2a9c01" }));
            fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "user", version: "9.9.9" }));
            assert.strictEqual(commandVersion(path.join(dir, "tf-serving-cli", "dist", "cli")), "0.2.1-dev.3f2a9c01");
            fs.writeFileSync(path.join(dir, "tf-serving-cli", "package.json"), JSON.stringify({ name: "tf-serving-cli" }));
            assert.strictEqual(commandVersion(path.join(dir, "tf-serving-cli", "dist", "cli")), undefined, "a package.json without a version says none");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("leaves --version after a command to that command (the model's versions)", async () => {
        const run = await tfs("preflight", "--version");
        assert.strictEqual(run.code, 2, "preflight's --version takes a value");
        assert.ok(!run.stdout.includes(ROOT_VERSION), run.stdout);
    });
});
