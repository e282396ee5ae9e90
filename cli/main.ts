import { Command, CommanderError } from "commander";
import { UserError } from "./errors";
import { commandVersion } from "./packageVersion";

/** Each subcommand lives in its own module and returns a configured commander `Command`. */
export type CommandFactory = (exit: (code: number) => void) => Command;

/*
 * Subcommand modules load only when their command runs (all of them for `tfs --help`): `plan` and
 * `deploy` pull in the Pulumi SDK, which `tfs preflight` has no need to wait for.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const commands: Record<string, () => CommandFactory> = {
    "build-context": () => require("./buildContext").buildContextCommand,
    "deploy": () => require("./deploy").deployCommand,
    "doctor": () => require("./doctor").doctorCommand,
    "plan": () => require("./plan").planCommand,
    "preflight": () => require("./preflight").preflightCommand,
    "smoke": () => require("./smoke").smokeCommand,
    "warmup": () => require("./warmup").warmupCommand,
};
/* eslint-enable @typescript-eslint/no-require-imports */

const VERSION_FLAGS = ["-V", "--version"];

/**
 * The `tfs` command with its subcommands: only `requested` when it names one (the others' modules
 * stay unloaded), else every one. `main` parses with it; the CLI reference's usage block is rendered
 * from it (`tools/docs/cliUsage.ts`), so an option added here is documented by `npm run docs`.
 */
export function tfsProgram(exit: (code: number) => void, requested?: string): Command {
    const program = new Command("tfs")
        .description("Take a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes")
        .version(commandVersion() ?? "unknown", "-V, --version", "print the version of tfs and exit")
        // Only before a command: after one, `--version` is that command's (`tfs build-context --version 2`).
        .enablePositionalOptions()
        .exitOverride()
        .showHelpAfterError();
    // `tfs --version` needs no subcommand: it answers without loading any.
    const names = requested !== undefined && Object.hasOwn(commands, requested) ? [requested]
        : requested !== undefined && VERSION_FLAGS.includes(requested) ? [] : Object.keys(commands);
    for (const name of names) {
        const command = commands[name]()(exit);
        // Subcommands do not inherit the parent's settings: without this a bad flag would exit the process directly.
        command.copyInheritedSettings(program);
        program.addCommand(command);
    }
    return program;
}

/**
 * Runs `tfs` with the given argv and resolves to the process exit code.
 * User mistakes (UserError, bad flags) print one clear line; anything else is a bug and keeps its stack.
 */
export async function main(argv: string[]): Promise<number> {
    let exitCode = 0;
    const program = tfsProgram((code) => { exitCode = code; }, argv[2]);
    try {
        await program.parseAsync(argv);
        return exitCode;
    } catch (err) {
        if (err instanceof CommanderError) {
            return err.exitCode === 0 ? 0 : 2;
        }
        if (err instanceof UserError) {
            console.error(`tfs: ${err.message}`);
            return err.exitCode;
        }
        throw err;
    }
}
