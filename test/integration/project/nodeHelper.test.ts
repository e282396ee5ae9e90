/**
 * scripts/lib/node.sh, which scripts/up-local, scripts/e2e-env and .ci/run source: a user's Node.js
 * 22.11 or later (package.json's engines.node) is used as it is; an older one (or none) gets the pinned Node.js 24 build installed
 * once into the cache with the npm on PATH (`npm pack node-linux-<arch>@VERSION`), its bin folder
 * first on PATH. Run against a PATH of fakes (node, npm) and the few real tools the script uses:
 * nothing is fetched.
 */
import * as assert from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

const ROOT = path.resolve(__dirname, "../../..");
const HELPER = path.join(ROOT, "scripts", "lib", "node.sh");
const pin = (name: string) => {
    const m = new RegExp(`^${name}=(\\S+)$`, "m").exec(fs.readFileSync(HELPER, "utf8"));
    assert.ok(m, `${name} is not set in scripts/lib/node.sh`);
    return m[1];
};
const VERSION = pin("TFS_NODE_VERSION");
const ARCH = process.arch === "arm64" ? "arm64" : "x64";

function which(tool: string): string {
    for (const dir of ["/usr/bin", "/bin", "/usr/local/bin"]) {
        if (fs.existsSync(path.join(dir, tool))) {
            return path.join(dir, tool);
        }
    }
    throw new Error(`${tool} not found`);
}

function script(file: string, body: string): void {
    fs.writeFileSync(file, `#!${which("bash")}\n${body}\n`, { mode: 0o755 });
}

describe("scripts/lib/node.sh", () => {
    let dir: string, tools: string, fake: string, cache: string, npmLog: string;

    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-node-helper-"));
        tools = path.join(dir, "tools");
        fake = path.join(dir, "fake");
        cache = path.join(dir, "cache");
        npmLog = path.join(dir, "npm.log");
        fs.mkdirSync(tools);
        fs.mkdirSync(fake);
        for (const t of ["bash", "tar", "gzip", "mktemp", "uname", "mv", "rm", "mkdir", "cat", "chmod"]) {
            fs.symlinkSync(which(t), path.join(tools, t));
        }
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** The user's node, answering `node -p process.versions.node` with version. */
    const userNode = (version: string) => script(path.join(fake, "node"), `echo ${version}`);
    /** An npm whose `pack` writes a tarball like the registry's (package/bin/node), or fails. */
    const npm = (works = true) => script(path.join(fake, "npm"), [
        `echo "$*" >> ${npmLog}`,
        works ? "" : "exit 1",
        "mkdir -p package/bin",
        `printf '#!%s\\ncase $1 in -p) echo ${VERSION} ;; *) echo v${VERSION} ;; esac\\n' ${which("bash")} > package/bin/node`,
        "chmod +x package/bin/node",
        `tar -czf node-linux-${ARCH}-${VERSION}.tgz package && rm -rf package`,
    ].join("\n"));

    function ensure() {
        const r = spawnSync(which("bash"), ["-c", 'source "$1" && tfs_node_ensure && printf "%s\\n%s\\n%s\\n" "$(command -v node)" "${TFS_NODE_BIN-}" "$(node -p process.versions.node)"', "_", HELPER], {
            env: { PATH: `${fake}:${tools}`, HOME: dir, TFS_E2E_CACHE: cache }, encoding: "utf8",
        });
        const [node, bin, version] = r.stdout.split("\n");
        return { status: r.status, stderr: r.stderr, node, bin, version };
    }
    const npmCalls = () => (fs.existsSync(npmLog) ? fs.readFileSync(npmLog, "utf8").split("\n").filter(Boolean) : []);

    it("pins a Node.js 24 LTS build and asks for 22.11 or later", () => {
        assert.match(VERSION, /^24\.\d+\.\d+$/);
        assert.strictEqual(pin("TFS_NODE_MIN"), "22.11");
    });

    for (const version of ["22.11.0", "22.23.5", "23.0.0", "24.22.3", "100.0.0"]) {
        it(`uses the user's own Node.js ${version} as it is, without npm`, () => {
            userNode(version);
            npm();
            const r = ensure();
            assert.strictEqual(r.status, 0, r.stderr);
            assert.strictEqual(r.node, path.join(fake, "node"));
            assert.strictEqual(r.bin, "");
            assert.deepStrictEqual(npmCalls(), []);
            assert.ok(!fs.existsSync(cache));
        });
    }

    for (const version of ["22.10.0", "21.99.0", "9.11.0"]) {
        it(`installs the pinned build for Node.js ${version}, older than 22.11`, () => {
            userNode(version);
            npm();
            const r = ensure();
            assert.strictEqual(r.status, 0, r.stderr);
            assert.strictEqual(r.node, path.join(cache, `node-${VERSION}`, "bin", "node"));
            assert.match(r.stderr, new RegExp(`^== Node\\.js ${version.replace(/\./g, "\\.")} is older than 22\\.11: installing Node\\.js ${VERSION.replace(/\./g, "\\.")} `));
        });
    }

    it("installs the pinned build once for Node.js 20 and puts it first on PATH", () => {
        userNode("20.20.2");
        npm();
        const first = ensure();
        assert.strictEqual(first.status, 0, first.stderr);
        const bin = path.join(cache, `node-${VERSION}`, "bin");
        assert.strictEqual(first.node, path.join(bin, "node"));
        assert.strictEqual(first.bin, bin);
        assert.strictEqual(first.version, VERSION);
        assert.deepStrictEqual(npmCalls(), [`pack --silent node-linux-${ARCH}@${VERSION}`]);
        const second = ensure();
        assert.strictEqual(second.status, 0, second.stderr);
        assert.strictEqual(second.node, path.join(bin, "node"));
        assert.strictEqual(npmCalls().length, 1, "the second run uses the cache");
        assert.deepStrictEqual(fs.readdirSync(cache), [`node-${VERSION}`], "no temporary folder is left");
    });

    /** A cached build at the pinned version's folder that does not run (exits 1, as one cut short or built for another machine does). */
    const brokenCache = () => {
        fs.mkdirSync(path.join(cache, `node-${VERSION}`, "bin"), { recursive: true });
        script(path.join(cache, `node-${VERSION}`, "bin", "node"), "exit 1");
    };

    it("installs the pinned build again over a cached one that does not run, and puts the working one first on PATH", () => {
        userNode("20.20.2");
        npm();
        brokenCache();
        const r = ensure();
        assert.strictEqual(r.status, 0, r.stderr);
        assert.match(r.stderr, new RegExp(`^== the cached Node\\.js ${VERSION.replace(/\./g, "\\.")} in .* does not run: installing it again\n`));
        assert.strictEqual(r.node, path.join(cache, `node-${VERSION}`, "bin", "node"));
        assert.strictEqual(r.version, VERSION, "the node first on PATH runs");
        assert.deepStrictEqual(npmCalls(), [`pack --silent node-linux-${ARCH}@${VERSION}`]);
    });

    it("fails, with nothing put on PATH, when a cached build does not run and cannot be installed again", () => {
        userNode("20.20.2");
        npm(false);
        brokenCache();
        const r = ensure();
        assert.notStrictEqual(r.status, 0, "no success with a node that does not run");
        assert.match(r.stderr.trim().split("\n").pop()!, /^error: installing Node\.js .* failed: install Node\.js 22\.11 or later/);
        assert.strictEqual(r.node, "", "tfs_node_ensure returned failure, so nothing after it ran");
    });

    it("fails when the build another script moved in meanwhile does not run either", () => {
        userNode("20.20.2");
        // An npm that, like a racing script, leaves a build that does not run where the install goes, and packs one that does not run.
        script(path.join(fake, "npm"), [
            `echo "$*" >> ${npmLog}`,
            `mkdir -p ${path.join(cache, `node-${VERSION}`, "bin")} package/bin`,
            `printf '#!%s\\nexit 1\\n' ${which("bash")} > ${path.join(cache, `node-${VERSION}`, "bin", "node")}`,
            `chmod +x ${path.join(cache, `node-${VERSION}`, "bin", "node")}`,
            `printf '#!%s\\necho v${VERSION}\\n' ${which("bash")} > package/bin/node`,
            "chmod +x package/bin/node",
            `tar -czf node-linux-${ARCH}-${VERSION}.tgz package && rm -rf package`,
        ].join("\n"));
        const r = ensure();
        assert.notStrictEqual(r.status, 0);
        assert.match(r.stderr.trim().split("\n").pop()!, new RegExp(`^error: the Node\\.js ${VERSION.replace(/\./g, "\\.")} in .* does not run: remove .* and run again`));
    });

    it("installs the pinned build when there is no node at all", () => {
        npm();
        const r = ensure();
        assert.strictEqual(r.status, 0, r.stderr);
        assert.strictEqual(r.node, path.join(cache, `node-${VERSION}`, "bin", "node"));
    });

    it("says in one line how to fix it when npm is missing, and leaves nothing behind", () => {
        userNode("20.20.2");
        const r = ensure();
        assert.notStrictEqual(r.status, 0);
        assert.match(r.stderr, /^error: Node\.js 20\.20\.2 is older than 22\.11 and npm is not on PATH .*docs\/getting-started\/loopback\.md#nodejs\)\n$/);
        assert.ok(!fs.existsSync(path.join(cache, `node-${VERSION}`)));
    });

    it("fails with one line when the download fails, and leaves no partial install", () => {
        userNode("18.20.0");
        npm(false);
        const r = ensure();
        assert.notStrictEqual(r.status, 0);
        assert.match(r.stderr.trim().split("\n").pop()!, /^error: installing Node\.js .* failed: install Node\.js 22\.11 or later \(see docs\/getting-started\/loopback\.md#nodejs\)$/);
        assert.deepStrictEqual(fs.readdirSync(cache), []);
    });
});
