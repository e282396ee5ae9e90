#!/usr/bin/env node
// The `tfs` command: TypeScript sources run through ts-node (transpile only, with swc as tsconfig.json's
// "ts-node" section says; `npm test` type-checks).
const fs = require("fs");
const path = require("path");
const root = path.join(__dirname, "..");
// npm packs a `bin` file whatever `files` says; the package ships the components, not the command.
if (!fs.existsSync(path.join(root, "cli", "main.ts"))) {
    console.error("tfs: this command runs from a checkout of the tf-serving project; the installed package holds the components only (docs/reference/library.md)");
    process.exit(64);
}
require("ts-node").register({
    project: path.join(root, "tsconfig.json"),
    transpileOnly: true,
});
let settled = false;
// Once the command has its result, a connection a library left open must not hold the process: grpc-js
// 1.14 keeps the connection of a server that sent GOAWAY (PROTOCOL_ERROR) open after Client.close(),
// so `tfs smoke --grpc` would print its answer and never exit. The timer does not keep the process
// alive itself: a command that leaves nothing open exits at once, as before.
const LINGER_MS = 2000;
const { setTimeout } = require("timers");
const finish = () => { settled = true; setTimeout(() => process.exit(), LINGER_MS).unref(); };
require("../cli/main").main(process.argv).then(
    (code) => { process.exitCode = code; finish(); },
    (err) => {
        console.error(`tfs: internal error: ${err && err.stack ? err.stack : err}`);
        process.exitCode = 70;
        finish();
    },
);
// Node exits 0 when nothing is left to wait for, even with the command's promise unsettled (a
// request stuck with no timer holding the process): a silent success that was none.
process.on("beforeExit", () => {
    if (!settled) {
        settled = true;
        console.error("tfs: internal error: the command stopped without a result (an operation was left waiting with nothing to end it)");
        process.exitCode = 70;
    }
});
