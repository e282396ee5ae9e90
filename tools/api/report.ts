/**
 * The library's API report (`docs/reference/api-report.md`): `--write` renders it from the entry
 * points; without it, checks that the committed report is current. Either way, exits 1 and lists the
 * problems when a public declaration names something no entry point exports.
 */
import * as fs from "fs";
import * as path from "path";
import { REGENERATE_REPORT, REPORT_FILE, readSurface } from "./surface";

const root = path.resolve(__dirname, "../..");
const { report, problems } = readSurface(root);
const file = path.join(root, REPORT_FILE);
if (process.argv.includes("--write")) {
    fs.writeFileSync(file, report);
    console.error(`wrote ${REPORT_FILE} (${report.split("\n").length - 1} lines)`);
} else if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== report) {
    console.error(`${REPORT_FILE} is not what the entry points export: run \`${REGENERATE_REPORT}\` and review the change`);
    process.exitCode = 1;
}
for (const problem of problems) {
    console.error(problem);
}
if (problems.length > 0) {
    process.exitCode = 1;
}
