import * as assert from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stageBuildContext, StageOptions, StagingError } from "../../../serving/buildContext";
import { contextDigest } from "../../../serving/contextDigest";
import { renderDockerfile } from "../../../serving/dockerfile";

const FIXTURE_VERSION = path.resolve(__dirname, "../../../models/half_plus_two/00000123");

/** Every file and folder under `dir`: path -> "d MODE" or "f MODE SHA256". */
function snapshot(dir: string): Map<string, string> {
    const out = new Map<string, string>();
    const walk = (rel: string): void => {
        for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
            const childRel = rel ? `${rel}/${name}` : name;
            const full = path.join(dir, childRel);
            const stat = fs.lstatSync(full);
            const mode = (stat.mode & 0o777).toString(8);
            if (stat.isDirectory()) {
                out.set(childRel, `d ${mode}`);
                walk(childRel);
            } else {
                out.set(childRel, `${stat.isFile() ? "f" : "other"} ${mode} ${createHash("sha256").update(fs.readFileSync(full)).digest("hex")}`);
            }
        }
    };
    walk("");
    return out;
}

describe("serving/buildContext stageBuildContext", () => {
    let work: string;
    let model: string;
    let out: string;

    beforeEach(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-stage-"));
        model = path.join(work, "model");
        fs.cpSync(FIXTURE_VERSION, path.join(model, "1"), { recursive: true });
        fs.cpSync(FIXTURE_VERSION, path.join(model, "00000002"), { recursive: true });
        fs.cpSync(FIXTURE_VERSION, path.join(model, "3"), { recursive: true });
        fs.writeFileSync(path.join(model, "README.md"), "not for the image");
        fs.mkdirSync(path.join(model, "checkpoints"));
        out = path.join(work, "context");
    });

    afterEach(() => {
        fs.rmSync(work, { recursive: true, force: true });
    });

    const stage = (overrides: Partial<StageOptions> = {}) => stageBuildContext({
        modelBaseDir: model, modelName: "m", versions: [2, 1], outDir: out, baseImage: "scratch", ...overrides,
    });

    it("stages only the served version folders, under canonical version numbers, beside the Dockerfile and model config", () => {
        const staged = stage();
        const fixtureFiles = ["assets/foo.txt", "saved_model.pb", "variables/variables.data-00000-of-00001", "variables/variables.index"];
        const expected = ["Dockerfile", ...[1, 2].flatMap((v) => fixtureFiles.map((f) => `models/m/${v}/${f}`)), "models/models.config"];
        assert.deepStrictEqual(staged.files.map((f) => f.path), expected);
        assert.deepStrictEqual([...snapshot(out).keys()].filter((p) => snapshot(out).get(p)!.startsWith("f")), expected);
        assert.deepStrictEqual(staged.versions, [1, 2]);
        assert.strictEqual(staged.outDir, out);
        assert.strictEqual(staged.dockerfile, path.join(out, "Dockerfile"));
        assert.strictEqual(fs.readFileSync(staged.dockerfile, "utf8"), renderDockerfile({ baseImage: "scratch", modelName: "m", versions: [1, 2] }));
        const sizes = staged.files.map((f) => fs.statSync(path.join(out, f.path)).size);
        assert.deepStrictEqual(staged.files.map((f) => f.bytes), sizes);
        assert.strictEqual(staged.totalBytes, sizes.reduce((a, b) => a + b, 0));
        assert.ok(fs.readFileSync(path.join(out, "models/m/2/saved_model.pb")).equals(fs.readFileSync(path.join(model, "00000002", "saved_model.pb"))));
    });

    it("gives identical bytes and modes when staged twice, rewriting nothing, whatever the source times", () => {
        const first = stage();
        const before = snapshot(out);
        const later = new Date("2031-05-06T07:08:09Z");
        fs.utimesSync(path.join(model, "1", "saved_model.pb"), later, later);
        const second = stage();
        assert.deepStrictEqual(snapshot(out), before);
        assert.strictEqual(first.written, first.files.length);
        assert.strictEqual(second.written, 0);
        assert.deepStrictEqual(second.files, first.files);
        const stamped = fs.statSync(path.join(out, "models/m/1/saved_model.pb")).mtime.toISOString();
        assert.strictEqual(stamped, "2000-01-01T00:00:00.000Z", "fixed file times, so layers that keep times are reproducible");
    });

    it("stages a different context when one byte of the variables changes, and only that file differs", () => {
        stage();
        const before = snapshot(out);
        const data = path.join(model, "00000002", "variables", "variables.data-00000-of-00001");
        const bytes = fs.readFileSync(data);
        bytes[bytes.length - 1] ^= 0x01;
        fs.writeFileSync(data, bytes);
        const again = stage();
        const after = snapshot(out);
        const changed = [...after.keys()].filter((p) => after.get(p) !== before.get(p));
        assert.deepStrictEqual(changed, ["models/m/2/variables/variables.data-00000-of-00001"]);
        assert.strictEqual(again.written, 1);
    });

    it("makes every file readable and every folder traversable, whatever the source modes", () => {
        fs.chmodSync(path.join(model, "1", "saved_model.pb"), 0o600);
        fs.chmodSync(path.join(model, "1", "variables"), 0o700);
        fs.chmodSync(path.join(model, "00000002", "assets", "foo.txt"), 0o777);
        stage();
        for (const [rel, entry] of snapshot(out)) {
            assert.match(entry, entry.startsWith("d") ? /^d 755$/ : /^f 644 /, rel);
        }
    });

    it("removes what an earlier staging left and no longer belongs", () => {
        stage({ versionLabels: { stable: 2 } });
        fs.writeFileSync(path.join(out, "models", "m", "2", "leftover.txt"), "stale");
        fs.writeFileSync(path.join(out, "notes.txt"), "stale");
        const staged = stage({ versions: [2] });
        assert.deepStrictEqual([...snapshot(out).keys()].filter((p) => !p.startsWith("models/m/2/")), ["Dockerfile", "models", "models/m", "models/m/2"]);
        assert.deepStrictEqual(staged.files.map((f) => f.path).filter((p) => !p.startsWith("models/m/2/")), ["Dockerfile"]);
        assert.ok(!fs.existsSync(path.join(out, "models", "m", "2", "leftover.txt")));
    });

    it("copies a link that stays inside the model as the file it points to", () => {
        const weights = path.join(model, "00000002", "variables", "variables.data-00000-of-00001");
        fs.rmSync(weights);
        fs.symlinkSync(path.join("..", "..", "1", "variables", "variables.data-00000-of-00001"), weights);
        stage();
        const staged = path.join(out, "models/m/2/variables/variables.data-00000-of-00001");
        assert.ok(fs.lstatSync(staged).isFile(), "a regular file, not a link");
        assert.ok(fs.readFileSync(staged).equals(fs.readFileSync(path.join(model, "1", "variables", "variables.data-00000-of-00001"))));
    });

    it("refuses a link out of the model, naming the link", () => {
        const secret = path.join(work, "secret.txt");
        fs.writeFileSync(secret, "outside");
        const link = path.join(model, "1", "assets", "extra.txt");
        fs.symlinkSync(secret, link);
        assert.throws(() => stage(), (err: Error) => err instanceof StagingError && err.message.includes(link) && /outside the model folder/.test(err.message));
        assert.ok(!fs.existsSync(path.join(out, "models", "m", "1", "assets", "extra.txt")));
    });

    it("refuses a version folder that is itself a link out of the model", () => {
        const elsewhere = path.join(work, "elsewhere");
        fs.renameSync(path.join(model, "1"), elsewhere);
        fs.symlinkSync(elsewhere, path.join(model, "1"));
        assert.throws(() => stage(), /model\/1 links to .*elsewhere, outside the model folder/);
    });

    it("refuses broken links, link loops and links back up, in preflight's words", () => {
        fs.symlinkSync(path.join(model, "1", "nothing-here"), path.join(model, "1", "assets", "dangling"));
        assert.throws(() => stage(), /assets\/dangling links to .*nothing-here, which does not exist/);
        fs.rmSync(path.join(model, "1", "assets", "dangling"));
        fs.symlinkSync("..", path.join(model, "1", "assets", "loop"));
        assert.throws(() => stage(), (err: Error) => err instanceof StagingError && /assets\/loop links to \.\., which is .*, a folder that contains the link \(a link loop\)/.test(err.message));
        fs.rmSync(path.join(model, "1", "assets", "loop"));
        fs.symlinkSync("b", path.join(model, "1", "assets", "a"));
        fs.symlinkSync("a", path.join(model, "1", "assets", "b"));
        assert.throws(() => stage(), (err: Error) => err instanceof StagingError && /assets\/a links to b, and the links lead back to each other/.test(err.message) && !/does not exist/.test(err.message));
    });

    it("refuses a missing version, a missing model folder and ambiguous version folders", () => {
        assert.throws(() => stage({ versions: [4] }), /has no folder for version 4 \(version folders found: 00000002, 1, 3\)/);
        assert.throws(() => stage({ modelBaseDir: path.join(work, "nope") }), /model folder .*nope does not exist/);
        fs.cpSync(FIXTURE_VERSION, path.join(model, "01"), { recursive: true });
        assert.throws(() => stage(), /several folders for version 1 \(01, 1\)/);
    });

    it("refuses output folders it could damage", () => {
        assert.throws(() => stage({ outDir: path.join(model, "build") }), /overlaps the model folder/);
        assert.throws(() => stage({ outDir: work }), /overlaps the model folder/);
        const foreign = path.join(work, "foreign");
        fs.mkdirSync(foreign);
        fs.writeFileSync(path.join(foreign, "keep.txt"), "the user's");
        assert.throws(() => stage({ outDir: foreign }), /is not empty and was not written by tfs build-context/);
        assert.ok(fs.existsSync(path.join(foreign, "keep.txt")));
    });

    it("refuses an output folder it cannot create with one error, where Node's recursive mkdir would retry forever", function () {
        if (!fs.existsSync("/proc/self")) {
            this.skip();
        }
        assert.throws(() => stage({ outDir: "/proc/tfs-test/context" }),
            (err: Error) => err instanceof StagingError && err.about === "out" && /cannot create the output folder \/proc\/tfs-test\/context: \/proc does not take new folders/.test(err.message));
        const file = path.join(work, "a-file");
        fs.writeFileSync(file, "");
        assert.throws(() => stage({ outDir: path.join(file, "context") }), new RegExp(`${file.replace(/[/.]/g, "\\$&")} is a file, not a folder`));
    });

    it("turns an invalid name or label into a StagingError", () => {
        assert.throws(() => stage({ modelName: "Bad_Name" }), (err: Error) => err instanceof StagingError && /DNS label/.test(err.message));
        assert.throws(() => stage({ versionLabels: { stable: 3 } }), (err: Error) => err instanceof StagingError && /not served/.test(err.message));
    });

    describe("with a record of the last staging", () => {
        const MODEL_FILES = 8;
        const DATA = "variables/variables.data-00000-of-00001";
        let record: string;
        beforeEach(() => {
            record = path.join(work, "context.staging.json");
        });
        const restage = (overrides: Partial<StageOptions> = {}) => stage({ recordFile: record, ...overrides });
        /** Waits until every file written so far is older than the racy margin (100 ms with sub-second file times). */
        const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

        it("reads an unchanged model no more: no comparison, the recorded digest, the same context", async () => {
            await settle();
            const first = restage();
            const before = snapshot(out);
            const second = restage();
            assert.strictEqual(first.digestReused, false);
            assert.strictEqual(first.written, first.files.length);
            assert.deepStrictEqual([second.written, second.compared, second.digestReused], [0, 0, true]);
            assert.strictEqual(second.digest, first.digest);
            assert.strictEqual(second.digest, contextDigest(out), "the digest of what is staged");
            assert.deepStrictEqual(snapshot(out), before);
        });

        it("gives the same digest as a staging without a record", async () => {
            await settle();
            const withRecord = restage();
            assert.strictEqual(restage().digest, withRecord.digest);
            fs.rmSync(out, { recursive: true });
            assert.strictEqual(stage().digest, withRecord.digest);
        });

        it("compares a touched file (same bytes, new times) without copying it, and keeps the digest", async () => {
            await settle();
            const first = restage();
            const later = new Date("2031-05-06T07:08:09Z");
            fs.utimesSync(path.join(model, "1", "saved_model.pb"), later, later);
            const touched = restage();
            assert.deepStrictEqual([touched.written, touched.compared, touched.digestReused], [0, 1, true]);
            assert.strictEqual(touched.digest, first.digest);
        });

        /** A modification time in whole seconds, which `utimes` can put back exactly. */
        const PAST = new Date("2020-01-02T03:04:05Z");

        it("restages a file rewritten with other bytes of the same size and its old modification time, and the digest changes", async () => {
            const data = path.join(model, "00000002", DATA);
            fs.utimesSync(data, PAST, PAST);
            await settle();
            const first = restage();
            const bytes = fs.readFileSync(data);
            bytes[0] ^= 0x01;
            fs.writeFileSync(data, bytes);
            fs.utimesSync(data, PAST, PAST);
            assert.strictEqual(fs.statSync(data).mtime.getTime(), PAST.getTime());
            await settle();
            const changed = restage();
            assert.deepStrictEqual([changed.written, changed.digestReused], [1, false]);
            assert.notStrictEqual(changed.digest, first.digest);
            assert.ok(fs.readFileSync(path.join(out, "models/m/2", DATA)).equals(bytes));
            assert.strictEqual(changed.digest, contextDigest(out));
        });

        it("restages a file replaced by another of the same size, times and mode (a new inode)", async () => {
            const data = path.join(model, "1", DATA);
            const bytes = fs.readFileSync(data);
            bytes[0] ^= 0x01;
            fs.writeFileSync(`${data}.new`, bytes);
            fs.utimesSync(data, PAST, PAST);
            fs.utimesSync(`${data}.new`, PAST, PAST);
            await settle();
            const first = restage();
            fs.renameSync(`${data}.new`, data);
            const replaced = restage();
            assert.deepStrictEqual([replaced.written, replaced.digestReused], [1, false]);
            assert.notStrictEqual(replaced.digest, first.digest);
        });

        it("compares a file changed just before staging looked at it again at the next staging, though its fingerprint matches", async () => {
            await settle();
            restage();
            const changed = path.join(model, "1", "assets", "foo.txt");
            fs.appendFileSync(changed, "more");
            // Staging looks at the file 50 ms after the change, however slow the machine: inside the margin.
            const { mtimeMs, ctimeMs } = fs.statSync(changed);
            const realNow = Date.now;
            Date.now = () => Math.ceil(Math.max(mtimeMs, ctimeMs)) + 50;
            let racy: ReturnType<typeof restage>;
            try {
                racy = restage();
            } finally {
                Date.now = realNow;
            }
            assert.deepStrictEqual([racy.written, racy.compared], [1, 0]);
            const entry = JSON.parse(fs.readFileSync(record, "utf8")).files["models/m/1/assets/foo.txt"];
            assert.strictEqual(entry.settled, false);
            const next = restage();
            assert.deepStrictEqual([next.written, next.compared, next.digestReused], [0, 1, true]);
            await settle();
            restage();
            assert.strictEqual(restage().compared, 0, "settled once it has been still for the margin");
        });

        it("restores a staged file someone changed in the context", async () => {
            await settle();
            const first = restage();
            const staged = path.join(out, "models/m/2", DATA);
            const original = fs.readFileSync(staged);
            fs.writeFileSync(staged, Buffer.alloc(original.length));
            const restored = restage();
            assert.deepStrictEqual([restored.written, restored.digestReused], [1, false]);
            assert.ok(fs.readFileSync(staged).equals(original));
            assert.strictEqual(restored.digest, first.digest);
        });

        it("hashes again when a file is added to or removed from the context", async () => {
            await settle();
            const first = restage();
            fs.writeFileSync(path.join(model, "1", "assets", "extra.txt"), "new");
            const added = restage();
            assert.notStrictEqual(added.digest, first.digest);
            assert.strictEqual(added.files.length, first.files.length + 1);
            fs.rmSync(path.join(model, "1", "assets", "extra.txt"));
            const removed = restage();
            assert.deepStrictEqual([removed.digestReused, removed.digest], [false, first.digest]);
        });

        it("ignores a record it cannot read or that describes another folder", async () => {
            await settle();
            const first = restage();
            fs.writeFileSync(record, "{ not json");
            const corrupt = restage();
            assert.deepStrictEqual([corrupt.compared, corrupt.digestReused, corrupt.digest], [MODEL_FILES, false, first.digest]);
            fs.writeFileSync(record, JSON.stringify({ ...JSON.parse(fs.readFileSync(record, "utf8")), files: undefined }));
            const partial = restage();
            assert.deepStrictEqual([partial.compared, partial.digestReused, partial.digest], [MODEL_FILES, false, first.digest]);
            const other = path.join(work, "other");
            fs.cpSync(out, other, { recursive: true });
            const elsewhere = restage({ outDir: other });
            assert.deepStrictEqual([elsewhere.compared, elsewhere.digestReused, elsewhere.digest], [MODEL_FILES, false, first.digest]);
        });
    });
});
