/**
 * `tfs build-context` over the mistakes a user plausibly makes: each must end with a clear error
 * (non-zero exit, no trace, the path or flag named), in bounded time, with nothing staged.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { fixtureModelDir } from "../../support/fixtures";
import { Mistake, describeMistakes, makeBrokenModels, runTfs } from "../../support/mistakes";

const ROOT = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-context-mistakes-"));
const M = makeBrokenModels(ROOT, fixtureModelDir("half_plus_two_cpu"));
const V = "00000123";
const OUT = path.join(ROOT, "out");
const foreign = path.join(ROOT, "someone-elses");
fs.mkdirSync(foreign);
fs.writeFileSync(path.join(foreign, "notes.txt"), "keep me\n");

// A model another user runs tfs on, with one file only its owner (root) can read.
const NOBODY = 65534;
const shared = path.join(ROOT, "shared");
fs.mkdirSync(shared, { mode: 0o777 });
fs.chmodSync(shared, 0o777);
fs.chmodSync(ROOT, 0o755);
const lockedModel = path.join(shared, "locked");
fs.cpSync(M.good, lockedModel, { recursive: true });
const lockedIndex = path.join(lockedModel, V, "variables", "variables.index");
fs.chmodSync(lockedIndex, 0o600);
const lockedOut = path.join(shared, "ctx");

const stage = (model: string, ...flags: string[]): string[] => [model, "--name", "m", "--out", OUT, ...flags];
const mistakes: Mistake[] = [
    { name: "--out under /proc (no mkdir loop)", args: [M.good, "--name", "m", "--out", "/proc/tfs-context/m"], mentions: ["/proc/tfs-context/m", "--out"] },
    { name: "--out below a file", args: [M.good, "--name", "m", "--out", path.join(M.file, "ctx")], mentions: [path.join(M.file, "ctx")] },
    { name: "--out is a device", args: [M.good, "--name", "m", "--out", "/dev/null"], mentions: ["/dev/null"] },
    { name: "--out inside the model", args: [M.good, "--name", "m", "--out", path.join(M.good, "build")], mentions: [path.join(M.good, "build"), "overlaps"] },
    { name: "--out is someone else's non-empty folder", args: [M.good, "--name", "m", "--out", foreign], mentions: [foreign, "not empty"] },
    { name: "--name not a DNS label", args: [M.good, "--name", "Half_Plus_Two", "--out", OUT], mentions: ["--name", "DNS label"] },
    { name: "--name missing", args: [M.good, "--out", OUT], mentions: ["--name"] },
    { name: "--base-image not a reference", args: stage(M.good, "--base-image", "tensorflow/serving:latest gpu"), mentions: ["--base-image"] },
    { name: "--label without --version", args: stage(M.good, "--label", "stable=123"), mentions: ["--label", "--version"] },
    { name: "--label naming a version not served", args: stage(M.good, "--version", "123", "--label", "stable=7"), mentions: ["stable", "7"] },
    { name: "--label that is not NAME=VERSION", args: stage(M.good, "--version", "123", "--label", "stable"), mentions: ["--label", "\"stable\""] },
    { name: "--version 0", args: stage(M.good, "--version", "0"), mentions: ["--version", "\"0\""] },
    { name: "--version past int64", args: stage(M.good, "--version", "99999999999999999999"), mentions: ["--version", "too large"] },
    { name: "a model folder that does not exist", args: stage(path.join(ROOT, "nope")), mentions: [path.join(ROOT, "nope")] },
    { name: "a folder that is not a model", args: stage(M.notAModel), mentions: [M.notAModel, "No numeric version folder"], forbid: [/links to/, /chmod -R/] },
    { name: "a zero-byte variables shard", args: stage(M.zeroShard), mentions: [path.join(M.zeroShard, V, "variables", "variables.data-00000-of-00001")] },
    { name: "an asset link back to its own version folder", args: stage(M.selfLink), mentions: [path.join(M.selfLink, V, "assets", "back-to-version"), "loop"] },
    { name: "a link loop", args: stage(M.linkLoop), mentions: [path.join(M.linkLoop, V, "assets"), "loop"], forbid: [/does not exist/] },
    { name: "a named pipe in the version folder", args: stage(M.namedPipe), mentions: [path.join(M.namedPipe, V, "assets", "pipe"), "neither a file nor a folder"] },
    { name: "a broken link", args: stage(M.brokenLink), mentions: [path.join(M.brokenLink, V, "assets", "vocab.txt")] },
    { name: "--delivery not a delivery", args: stage(M.good, "--delivery", "volume"), mentions: ["--delivery", "\"volume\"", "\"embedded\", \"imageVolume\"", "docs/concepts/model-image.md"], absent: [OUT] },
    { name: "--delivery in the wrong case", args: stage(M.good, "--delivery", "imagevolume"), mentions: ["--delivery", "\"imagevolume\"", "\"imageVolume\""], absent: [OUT] },
    { name: "--signature the model lacks", args: stage(M.good, "--signature", "predict_all"), mentions: ["predict_all", "--signature"] },
    { name: "a file this user cannot read: named, and no half-written --out", args: [lockedModel, "--name", "m", "--out", lockedOut], asUser: NOBODY, mentions: [lockedIndex, "EACCES"], absent: [lockedOut] },
];

describeMistakes("tfs build-context: user mistakes", mistakes, (m) => runTfs(["build-context", ...m.args], ROOT, m.asUser),
    () => fs.rmSync(ROOT, { recursive: true, force: true }));
