/**
 * `npm run docs`: writes the docs pages generated from the code (the alerts reference, the
 * configuration reference's key table, the library page's entry points, the CLI reference's usage;
 * `generated.ts` lists them). `--check` writes nothing and exits 1 when a page is stale.
 */
import * as fs from "fs";
import * as path from "path";
import { REGENERATE, generatedFiles } from "./generated";

const root = path.resolve(__dirname, "../..");
const check = process.argv.includes("--check");
let stale = 0;
for (const g of generatedFiles(root)) {
    const absolute = path.join(root, g.file);
    const current = fs.existsSync(absolute) ? fs.readFileSync(absolute, "utf8") : "";
    const rendered = g.render(current);
    if (rendered === current) {
        continue;
    }
    if (check) {
        console.error(`${g.file} is not what the code renders: run \`${REGENERATE}\``);
        stale++;
    } else {
        fs.writeFileSync(absolute, rendered);
        console.error(`wrote ${g.file}`);
    }
}
process.exitCode = stale > 0 ? 1 : 0;
