#!/usr/bin/env node
// The `tfs` command. In a checkout it runs the TypeScript sources through ts-node (transpile only,
// with swc as tsconfig.json's "ts-node" section says; `npm test` type-checks); installed from the
// tf-serving-cli package it runs that package's compiled files (`npm run packages` builds them).
const fs = require("fs");
const path = require("path");
const root = path.join(__dirname, "..");
let command;
if (fs.existsSync(path.join(root, "cli", "main.ts"))) {
    require("ts-node").register({
        project: path.join(root, "tsconfig.json"),
        transpileOnly: true,
    });
    command = require("../cli/main");
} else if (fs.existsSync(path.join(root, "dist", "cli", "main.js"))) {
    command = require("../dist/cli/main.js");
} else {
    // The library's tarball (`npm pack` of the repository) carries this file but no command.
    console.error("tfs: this package holds the components only; install the tf-serving-cli package for the command (docs/reference/cli.md#installing-tfs)");
    process.exit(64);
}
let settled = false;
// Once the command has its result, a connection a library left open must not hold the process: grpc-js
// 1.14 keeps the connection of a server that sent GOAWAY (PROTOCOL_ERROR) open after Client.close(),
// so `tfs smoke --grpc` would print its answer and never exit. The timer does not keep the process
// alive itself: a command that leaves nothing open exits at once, as before.
const LINGER_MS = 2000;
const { setTimeout } = require("timers");
const finish = () => { settled = true; setTimeout(() => process.exit(), LINGER_MS).unref(); };
command.main(process.argv).then(
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
