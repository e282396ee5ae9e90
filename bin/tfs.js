#!/usr/bin/env node
// The `tfs` command: TypeScript sources run through ts-node (transpile only; `npm test` type-checks).
const path = require("path");
require("ts-node").register({
    project: path.join(__dirname, "..", "tsconfig.json"),
    transpileOnly: true,
});
require("../cli/main").main(process.argv).then(
    (code) => { process.exitCode = code; },
    (err) => {
        console.error(`tfs: internal error: ${err && err.stack ? err.stack : err}`);
        process.exitCode = 70;
    },
);
