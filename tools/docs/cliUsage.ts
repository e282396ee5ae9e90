/**
 * The usage block of the CLI reference, rendered from the commander definitions `tfs` parses with
 * (`cli/main.ts`, `tfsProgram`): one line per command, its arguments and every option it declares,
 * in declaration order, so an option added to a command appears here at the next `npm run docs`.
 */
import { Argument, Command, Option } from "commander";

/** A placeholder as the reference writes it: `<rest-url>` is `REST_URL`, `<n...>` is `N ...`. */
function placeholder(name: string, variadic: boolean): string {
    const text = name.replace(/\.\.\.$/, "").toUpperCase().replace(/-/g, "_");
    return variadic ? `${text} ...` : text;
}

function argumentText(a: Argument): string {
    const text = placeholder(a.name(), a.variadic);
    return a.required ? text : `[${text}]`;
}

/** An option as the usage line shows it: `--out DIR` when required, `[--gpu]` otherwise. */
export function optionText(o: Option): string {
    const value = /[<[]([^>\]]+)[>\]]/.exec(o.flags);
    const valueText = value === null ? "" : placeholder(value[1], o.variadic);
    const flag = o.long ?? o.short ?? o.flags;
    const text = valueText === "" ? flag : o.optional ? `${flag} [${valueText}]` : `${flag} ${valueText}`;
    return o.mandatory ? text : `[${text}]`;
}

/** `npx tfs NAME ARGS OPTIONS` for each command, then the program's own options (`--help`, and `--version` where declared). */
export function renderCliUsage(program: Command): string {
    const lines = program.commands.map((command) => [
        `npx ${program.name()} ${command.name()}`,
        ...command.registeredArguments.map(argumentText),
        ...command.options.filter((o) => !o.hidden).map(optionText),
    ].join(" "));
    for (const o of program.createHelp().visibleOptions(program)) {
        const flag = o.long ?? o.flags;
        lines.push(flag === "--help" ? `npx ${program.name()} [COMMAND] --help` : `npx ${program.name()} ${optionText(o).replace(/^\[(.*)\]$/, "$1")}`);
    }
    return ["```text", ...lines, "```"].join("\n");
}
