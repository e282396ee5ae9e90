/**
 * `tfs preflight` over the mistakes a user plausibly makes with a model folder: each must end with
 * a clear error (non-zero exit, no trace, the path or flag named), never "OK".
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { fixtureModelDir } from "../../support/fixtures";
import { Mistake, describeMistakes, makeBrokenModels, runTfs } from "../../support/mistakes";

const ROOT = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-preflight-mistakes-"));
const M = makeBrokenModels(ROOT, fixtureModelDir("half_plus_two_cpu"));
const V = "00000123";
const WRITES_OUTSIDE = [/chmod -R \S*o\+rX? (?!\S*etc-like)/, /cp --remove-destination/];
/** What `model.save("model.keras")` leaves where a SavedModel belongs: in the base folder, in a version folder, or passed itself. */
const KERAS_BASE = path.join(ROOT, "keras-base");
const KERAS_VERSION = path.join(ROOT, "keras-version");
const KERAS_FILE = path.join(ROOT, "keras-file", "model.keras");
for (const file of [path.join(KERAS_BASE, "model.keras"), path.join(KERAS_VERSION, "1", "model.h5"), KERAS_FILE]) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "PK\x03\x04");
}

const mistakes: Mistake[] = [
    { name: "a folder that does not exist", args: [path.join(ROOT, "nope")], mentions: [path.join(ROOT, "nope"), "does not exist"] },
    { name: "a file instead of a folder", args: [M.file], mentions: [M.file, "not a folder"] },
    { name: "an empty folder", args: [M.empty], mentions: [M.empty, "No numeric version folder"] },
    { name: "a folder that is not a model (like /etc): said once, bounded, no command writing elsewhere", args: [M.notAModel], mentions: [M.notAModel, "No numeric version folder"], forbid: [...WRITES_OUTSIDE, /links to/] },
    { name: "/etc itself", args: ["/etc"], mentions: ["/etc", "No numeric version folder"], forbid: [/chmod/, /cp --remove-destination/, /mv /] },
    { name: "a SavedModel with no version folder (flat layout)", args: [M.flat], mentions: [M.flat, path.join(M.flat, "1")] },
    { name: "the version folder itself instead of its base", args: [path.join(M.good, V)], mentions: [M.good] },
    { name: "a zero-byte variables shard", args: [M.zeroShard], mentions: [path.join(M.zeroShard, V, "variables", "variables.data-00000-of-00001"), "0 bytes"] },
    { name: "an asset link back to its own version folder", args: [M.selfLink], mentions: [path.join(M.selfLink, V, "assets", "back-to-version"), "loop"] },
    { name: "a link loop (a -> b -> a) is not called missing", args: [M.linkLoop], mentions: [path.join(M.linkLoop, V, "assets"), "loop"], forbid: [/does not exist/] },
    { name: "a named pipe in the version folder", args: [M.namedPipe], mentions: [path.join(M.namedPipe, V, "assets", "pipe"), "neither a file nor a folder"] },
    { name: "a broken link", args: [M.brokenLink], mentions: [path.join(M.brokenLink, V, "assets", "vocab.txt"), "does not exist"] },
    { name: "a truncated saved_model.pb", args: [M.truncatedGraph], mentions: [path.join(M.truncatedGraph, V, "saved_model.pb")] },
    { name: "variables without variables.index", args: [M.noIndex], mentions: [path.join(M.noIndex, V, "variables"), "variables.index"] },
    { name: "a missing data shard (1 of 2)", args: [M.missingShard], mentions: [path.join(M.missingShard, V, "variables"), "shard"] },
    { name: "a Keras file in the base folder instead of a SavedModel", args: [KERAS_BASE], mentions: [path.join(KERAS_BASE, "model.keras"), "Keras file, not a SavedModel", `.export("${path.join(KERAS_BASE, "1")}")`, "tf.saved_model.save("] },
    { name: "a Keras .h5 file in the version folder", args: [KERAS_VERSION], mentions: [path.join(KERAS_VERSION, "1", "model.h5"), "Keras file, not a SavedModel", `.export("${path.join(KERAS_VERSION, "1")}")`] },
    { name: "the .keras file itself as the model", args: [KERAS_FILE], mentions: [KERAS_FILE, "Keras file, not a SavedModel", `.export("${path.join(path.dirname(KERAS_FILE), "1")}")`] },
    { name: "--base-image that is not an image reference", args: [M.good, "--base-image", "tensorflow/Serving:2.20.0"], mentions: ["--base-image", "tensorflow/Serving:2.20.0", "not a valid image name"] },
    { name: "--version 0 (config refuses versions: [0] too)", args: [M.good, "--version", "0"], mentions: ["--version", "\"0\""] },
    { name: "--version past int64", args: [M.good, "--version", "99999999999999999999"], mentions: ["--version", "too large"] },
    { name: "--version abc", args: [M.good, "--version", "abc"], mentions: ["--version", "\"abc\""] },
    { name: "--version that has no folder", args: [M.good, "--version", "7"], mentions: ["Version 7", M.good] },
    { name: "--signature that the model lacks", args: [M.good, "--signature", "predict_all"], mentions: ["predict_all", "--signature"] },
    { name: "--tags that no MetaGraph has", args: [M.good, "--tags", "serve,gpu"], mentions: ["serve, gpu", "--tags"] },
    { name: "an unknown flag", args: [M.good, "--verison", "1"], mentions: ["--verison"] },
    { name: "no folder at all", args: [], mentions: ["model-base-dir"] },
];

describeMistakes("tfs preflight: user mistakes", mistakes, (m) => runTfs(["preflight", ...m.args], ROOT),
    () => fs.rmSync(ROOT, { recursive: true, force: true }));
