#!/usr/bin/env node
// The `tfs` command: TypeScript sources run through ts-node (transpile only, with swc as tsconfig.json's
// "ts-node" section says; `npm test` type-checks).
const fs = require("fs");
const path = require("path");
const root = path.join(__dirname, "..");
// npm packs a `bin` file whatever `files` says; the package ships the components, not the command.
if (!fs.existsSync(path.join(root, "cli", "main.ts"))) {
    console.error("tfs: this command runs from a checkout of the tf-serving project; the installed package holds the components only (README: \"Use the components from your own program\")");
    process.exit(64);
}
require("ts-node").register({
    project: path.join(root, "tsconfig.json"),
    transpileOnly: true,
});
require("../cli/main").main(process.argv).then(
    (code) => { process.exitCode = code; },
    (err) => {
        console.error(`tfs: internal error: ${err && err.stack ? err.stack : err}`);
        process.exitCode = 70;
    },
);
