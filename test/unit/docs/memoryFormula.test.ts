/*
 * The memory formula of docs/concepts/model-server.md#memory, read from the page and evaluated as
 * written, against the sizing the code does (`serving/sizing.ts`): for the page's worked examples and
 * for a spread of other models, so a change to either that the other does not follow fails here.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { sizeServer } from "../../../serving/sizing";

const ROOT = path.resolve(__dirname, "../../..");
const PAGE_FILE = "docs/concepts/model-server.md";
const PAGE = fs.readFileSync(path.join(ROOT, PAGE_FILE), "utf8");
const MI = 2 ** 20;

/** The "## Memory" section of `page`. */
function memorySection(page: string): string {
    const from = page.indexOf("\n## Memory\n");
    assert.ok(from >= 0, `${PAGE_FILE} has no "## Memory" section`);
    const to = page.indexOf("\n## ", from + 1);
    return page.slice(from, to < 0 ? undefined : to);
}

interface Model {
    versions: number[];
    gpu: boolean;
    batching: boolean;
}

type Formula = (model: Model) => { request: string; limit: string };

/** The formula block of `page` as a function: its constants read with their words, its four lines evaluated as arithmetic. */
function documentedFormula(page: string): Formula {
    const block = /```text\n([\s\S]*?)```/.exec(memorySection(page));
    assert.ok(block, `${PAGE_FILE}#memory: no formula block`);
    const lines = new Map(block[1].trim().split("\n").map((l) => {
        const [name, ...rest] = l.split("=");
        return [name.trim(), rest.join("=").trim()] as const;
    }));
    const runtime = /^(\d+)Mi \((\d+)Mi on GPU\)$/.exec(lines.get("runtime") ?? "");
    const batching = /^(\d+)Mi with batching on, else 0$/.exec(lines.get("batching") ?? "");
    assert.ok(runtime && batching, `${PAGE_FILE}#memory: "runtime = NMi (NMi on GPU)" and "batching = NMi with batching on, else 0": ${block[1]}`);
    const names = ["steady", "peak", "request", "limit"];
    const expression = (name: string): string => {
        const text = lines.get(name);
        assert.ok(text !== undefined, `${PAGE_FILE}#memory: no line "${name} = ..."`);
        const js = text.replace(/×/g, "*");
        // Arithmetic over the block's own names only: anything else is not a formula this test can read.
        assert.match(js, /^(?:[\d.]+|runtime|batching|steady|peak|request|sum\(versions\)|max\(versions\)|ceil64\(|[()+*\s])+$/, `${name} = ${text}`);
        return js;
    };
    const body = names.map((n) => `const ${n} = ${expression(n)};`).join("\n") + "\nreturn { request, limit };";
    type Evaluate = (runtime: number, batching: number, sum: (v: number[]) => number, max: (v: number[]) => number,
        ceil64: (bytes: number) => number, versions: number[]) => { request: number; limit: number };
    const evaluate = new Function("runtime", "batching", "sum", "max", "ceil64", "versions", body) as Evaluate;
    const quantity = (bytes: number) => `${bytes / MI}Mi`;
    return (m) => {
        const { request, limit } = evaluate(
            Number(m.gpu ? runtime[2] : runtime[1]) * MI,
            m.batching ? Number(batching[1]) * MI : 0,
            (v) => v.reduce((a, b) => a + b, 0),
            (v) => v.reduce((a, b) => Math.max(a, b), 0),
            (bytes) => Math.ceil(bytes / (64 * MI)) * 64 * MI,
            m.versions,
        );
        return { request: quantity(request), limit: quantity(limit) };
    };
}

/** "100 MiB + 100 MiB" in bytes, one entry per version. */
function sizes(cell: string): number[] {
    const unit: Record<string, number> = { KiB: 1024, MiB: MI, GiB: 1024 * MI };
    return cell.split("+").map((part) => {
        const m = /^\s*([\d.]+) (KiB|MiB|GiB)\s*$/.exec(part);
        assert.ok(m, `not a size: "${part}"`);
        return Number(m[1]) * unit[m[2]];
    });
}

/** The worked examples: each row's model and the request and limit the page gives it. */
function examples(): { model: Model; request: string; limit: string; row: string }[] {
    const rows = memorySection(PAGE).split("\n").filter((l) => /^\| [\d.]+ [KMG]iB/.test(l));
    return rows.map((row) => {
        const [versions, gpu, batching, request, limit] = row.slice(1, -1).split("|").map((c) => c.trim());
        return { model: { versions: sizes(versions), gpu: gpu === "yes", batching: batching === "yes" }, request, limit, row };
    });
}

const coded = (m: Model) => {
    const s = sizeServer({ servedVersionBytes: m.versions, gpu: m.gpu, batching: m.batching, overrides: {} });
    return { request: s.memoryRequest, limit: s.memoryLimit };
};

describe("the memory formula of the model server page", () => {
    const formula = documentedFormula(PAGE);

    it("gives each worked example what the code gives it, and the page says the same", () => {
        const rows = examples();
        assert.ok(rows.length >= 4, `${PAGE_FILE}#memory: the worked examples' table`);
        for (const { model, request, limit, row } of rows) {
            assert.deepStrictEqual(coded(model), { request, limit }, `the code sizes ${row} otherwise`);
            assert.deepStrictEqual(formula(model), { request, limit }, `the page's formula sizes ${row} otherwise`);
        }
    });

    it("gives what the code gives for models of every size, one to three versions, CPU and GPU, batching or not", () => {
        const spread = [0, 1, 24_606, 10 * MI, 63 * MI, 64 * MI, 100 * MI, 333 * MI, 1024 * MI, 3.7 * 1024 * MI];
        let compared = 0;
        for (const gpu of [false, true]) {
            for (const batching of [false, true]) {
                for (const a of spread) {
                    for (const versions of [[a], [a, spread[(spread.indexOf(a) + 3) % spread.length]], [a, a, 7 * MI]]) {
                        const model = { versions, gpu, batching };
                        assert.deepStrictEqual(formula(model), coded(model), JSON.stringify(model));
                        compared++;
                    }
                }
            }
        }
        assert.strictEqual(compared, 2 * 2 * spread.length * 3);
    });

    it("reads the formula as written: the page's old limit, (request + the largest version) × 1.25, is not the code's", () => {
        const old = PAGE.replace("limit    = ceil64(1.25 × peak)", "limit    = ceil64(1.25 × (request + max(versions)))");
        assert.notStrictEqual(old, PAGE, "the limit's line as the page writes it");
        const model = { versions: [24 * 1024], gpu: false, batching: false };
        assert.deepStrictEqual(coded(model), { request: "320Mi", limit: "384Mi" });
        assert.deepStrictEqual(documentedFormula(old)(model), { request: "320Mi", limit: "448Mi" });
    });
});
