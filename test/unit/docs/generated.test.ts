/*
 * The docs pages generated from the code are the ones committed: a change to the alerts or to
 * Pulumi.yaml's declarations without `npm run docs` fails here, naming the command.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { REGENERATE, generatedFiles, inject } from "../../../tools/docs/generated";
import { anchorsOf } from "../../../tools/docs/markdown";
import { fieldDocs } from "../../../tools/docs/alertsPage";
import { renderConfigurationTable } from "../../../tools/docs/configurationPage";
import { renderCliUsage } from "../../../tools/docs/cliUsage";
import { tfsProgram } from "../../../cli/main";
import { Command } from "commander";
import { ALERT_NAMES, RUNBOOK_PAGE, alertRules } from "../../../observability/alerts";

const ROOT = path.resolve(__dirname, "../../..");

describe("generated docs", () => {
    for (const g of generatedFiles(ROOT)) {
        it(`${g.file} is what the code renders`, () => {
            const committed = fs.readFileSync(path.join(ROOT, g.file), "utf8");
            assert.ok(g.render(committed) === committed, `${g.file} is out of date with the code it is generated from: run \`${REGENERATE}\` and commit the result`);
        });
    }

    it("every alert's runbook_url names its own section of the alerts page", () => {
        const anchors = anchorsOf(fs.readFileSync(path.join(ROOT, RUNBOOK_PAGE), "utf8"));
        const rules = alertRules({ name: "m", namespace: "ns" }).rules;
        assert.deepStrictEqual(rules.map((r) => r.alert), [...ALERT_NAMES]);
        for (const r of rules) {
            const [page, anchor] = r.annotations.runbook_url.split("#");
            assert.strictEqual(page, RUNBOOK_PAGE, r.alert);
            assert.ok(anchors.has(anchor), `${r.alert}: ${RUNBOOK_PAGE} has no heading #${anchor}`);
        }
        assert.strictEqual(alertRules({ name: "m", namespace: "ns" }, undefined, "https://runbooks.example.com/tfs").rules[0].annotations.runbook_url,
            "https://runbooks.example.com/tfs#tfservingmodelunavailable", "a library user's own base");
    });

    it("puts a generated part between its markers and nowhere else", () => {
        const page = "# T\n\nkept\n<!-- BEGIN GENERATED: X (npm run docs) -->\nold\n<!-- END GENERATED: X -->\nkept too\n";
        assert.strictEqual(inject(page, "X", "new"), "# T\n\nkept\n<!-- BEGIN GENERATED: X (npm run docs) -->\nnew\n<!-- END GENERATED: X -->\nkept too\n");
        assert.throws(() => inject("# T\n", "X", "new"), /no "<!-- BEGIN GENERATED: X/);
    });

    it("renders a declared key's type, default and description", () => {
        const table = renderConfigurationTable("config:\n  versions:\n    type: array\n    items:\n      type: integer\n    default: []\n    description: \"a | b\"\n  cloud:\n    type: string\n    default: local\n");
        assert.deepStrictEqual(table.split("\n").slice(2), ["| `versions` | integer list | — | a \\| b |", "| `cloud` | string | `local` |  |"]);
    });

    it("renders each command's arguments and every option it declares, required ones unbracketed", () => {
        const program = new Command("tfs").version("9.9.9");
        program.addCommand(new Command("push").argument("<model-base-dir>").argument("[extra...]")
            .requiredOption("--out <dir>", "d").option("--gpu", "g").option("--version <n...>", "v").option("--grpc-url <host:port>", "u")
            .option("--level [n]", "l"));
        assert.deepStrictEqual(renderCliUsage(program).split("\n"), [
            "```text",
            "npx tfs push MODEL_BASE_DIR [EXTRA ...] --out DIR [--gpu] [--version N ...] [--grpc-url HOST:PORT] [--level [N]]",
            "npx tfs --version",
            "npx tfs [COMMAND] --help",
            "```",
        ]);
    });

    it("documents every option of every tfs command (a new one reaches the CLI reference's usage)", () => {
        const program = tfsProgram(() => undefined);
        const page = fs.readFileSync(path.join(ROOT, "docs/reference/cli.md"), "utf8");
        const usage = page.slice(page.indexOf("<!-- BEGIN GENERATED: usage"), page.indexOf("<!-- END GENERATED: usage"));
        assert.ok(program.commands.length >= 7, program.commands.map((c) => c.name()).join());
        for (const command of program.commands) {
            const line = usage.split("\n").find((l) => l.startsWith(`npx tfs ${command.name()} `));
            assert.ok(line !== undefined, `docs/reference/cli.md: no usage line for tfs ${command.name()}: run \`${REGENERATE}\``);
            for (const option of command.options) {
                assert.ok(line.includes(`${option.long} `) || line.includes(`${option.long}]`), `tfs ${command.name()} ${option.long} is not in its usage line: run \`${REGENERATE}\``);
            }
        }
    });

    it("reads a threshold's meaning from its declaration", () => {
        const docs = fieldDocs("export interface T {\n    /** Minutes,\n     * held. */\n    a: number;\n    b: number;\n}\n", "T");
        assert.deepStrictEqual([...docs], [["a", "Minutes, held."], ["b", ""]]);
    });
});
