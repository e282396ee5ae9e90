/*
 * The library page's account of what each component refuses, held to the code: every component an
 * entry point exports has its row, and each resolver a row names is exported by the file it links.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { LIBRARY_PAGE } from "../../../tools/api/surface";

const ROOT = path.resolve(__dirname, "../../..");
const PAGE = fs.readFileSync(path.join(ROOT, LIBRARY_PAGE), "utf8");

/** The rows of the Markdown table that follows `heading`, as cells. */
function tableAfter(heading: string): string[][] {
    const from = PAGE.indexOf(heading);
    assert.ok(from >= 0, `${LIBRARY_PAGE} has no "${heading}"`);
    const lines = PAGE.slice(from).split("\n");
    const start = lines.findIndex((l) => l.startsWith("|"));
    const rows: string[][] = [];
    for (const line of lines.slice(start + 2)) {
        if (!line.startsWith("|")) {
            break;
        }
        rows.push(line.slice(1, -1).split(" | ").map((c) => c.trim()));
    }
    return rows;
}

const codeNames = (cell: string) => [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]);

describe("the library page: what the components refuse", () => {
    const refusals = tableAfter("### What the components refuse");

    it("has a row for every component the entry points export, and none for another", () => {
        const entries = tableAfter("<!-- BEGIN GENERATED: entry points");
        const all = entries.find((row) => row[0] === "`tf-serving/components`");
        assert.ok(all !== undefined, "the entry-point table has tf-serving/components");
        const exported = codeNames(all[2]).sort();
        assert.ok(exported.includes("ModelServer") && exported.length > 10, exported.join(", "));
        assert.deepStrictEqual(refusals.flatMap((row) => codeNames(row[0])).sort(), exported,
            `${LIBRARY_PAGE}: list each component once under "What the components refuse", with the checks its resolver runs`);
    });

    it("names resolvers the files it links export", () => {
        const named = refusals.flatMap((row) => [...row[1].matchAll(/`(resolve\w+|\w+Issues)` \(\[`([^`]+)`\]/g)].map((m) => ({ fn: m[1], file: m[2] })));
        assert.ok(named.length >= 6, JSON.stringify(named));
        for (const { fn, file } of named) {
            const source = fs.readFileSync(path.join(ROOT, file), "utf8");
            assert.match(source, new RegExp(`export function ${fn}\\b`), `${file} exports no ${fn}`);
        }
    });
});
