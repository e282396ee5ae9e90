// ts-node's transpiler for this project (tsconfig.json: "ts-node": { "transpiler": "./bin/transpile.js" }):
// ts-node's own swc transpiler, with each file's output kept on disk and reused while the file, its
// path, the compiler options and the versions of swc and ts-node stay the same. `pulumi preview`,
// `pulumi up`, `tfs` and the tests all run the sources through ts-node; a run that changed no source
// reads them from the cache and never loads swc (0.1 s of every no-op preview here).
//
// The cache is node_modules/.cache/tf-serving/transpiled: one entry per source file (the newest
// output only), written whole or not at all (runs side by side share it), so `npm ci` empties it.
// A cache that cannot be written (a read-only checkout) leaves the run uncached, not broken.
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

const DEFAULT_CACHE = path.join(__dirname, "..", "node_modules", ".cache", "tf-serving", "transpiled");

function sha256(text) {
    return crypto.createHash("sha256").update(text).digest("hex");
}

function versionOf(pkg) {
    try {
        return require(`${pkg}/package.json`).version;
    } catch {
        return "unknown";
    }
}

/**
 * A transpiler whose outputs are cached in `cacheDir`; `inner` makes the real one on the first file
 * the cache does not hold. Both are parameters for the tests.
 */
function cached({ cacheDir, salt, inner }) {
    let transpiler;
    return {
        transpile(input, options) {
            const fileName = options.fileName;
            const key = sha256(`${salt}\0${fileName}\0${input}`);
            const entry = path.join(cacheDir, `${sha256(fileName).slice(0, 32)}.json`);
            try {
                const hit = JSON.parse(fs.readFileSync(entry, "utf8"));
                if (hit.key === key && typeof hit.outputText === "string") {
                    return { outputText: hit.outputText, sourceMapText: hit.sourceMapText };
                }
            } catch {
                // No entry, or one being replaced: transpile.
            }
            transpiler = transpiler || inner();
            const { outputText, sourceMapText } = transpiler.transpile(input, options);
            const tmp = `${entry}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`;
            try {
                fs.mkdirSync(cacheDir, { recursive: true });
                fs.writeFileSync(tmp, JSON.stringify({ key, outputText, sourceMapText }));
                fs.renameSync(tmp, entry);
            } catch {
                try {
                    fs.rmSync(tmp, { force: true });
                } catch {
                    // Its folder could not be made: there is nothing to remove.
                }
            }
            return { outputText, sourceMapText };
        },
    };
}

/** The entry point ts-node calls (its `transpiler` option): the same arguments its swc transpiler takes. */
function create(createOptions) {
    const salt = JSON.stringify([versionOf("@swc/core"), versionOf("ts-node"), createOptions.nodeModuleEmitKind, createOptions.service.config.options]);
    return cached({
        cacheDir: process.env.TFS_TRANSPILE_CACHE || DEFAULT_CACHE,
        salt,
        inner: () => require("ts-node/transpilers/swc").create(createOptions),
    });
}

module.exports = { create, cached, DEFAULT_CACHE };
