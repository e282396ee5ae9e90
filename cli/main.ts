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
 * Runs `tfs` with the given argv and resolves to the process exit code.
 * User mistakes (UserError, bad flags) print one clear line; anything else is a bug and keeps its stack.
 */
export async function main(argv: string[]): Promise<number> {
    let exitCode = 0;
    const program = new Command("tfs")
        .description("Take a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes")
        .version(commandVersion() ?? "unknown", "-V, --version", "print the version of tfs and exit")
        // Only before a command: after one, `--version` is that command's (`tfs build-context --version 2`).
        .enablePositionalOptions()
        .exitOverride()
        .showHelpAfterError();
    const requested = argv[2];
    // `tfs --version` needs no subcommand: it answers without loading any.
    const names = requested in commands ? [requested] : VERSION_FLAGS.includes(requested) ? [] : Object.keys(commands);
    for (const name of names) {
        const command = commands[name]()((code) => { exitCode = code; });
        // Subcommands do not inherit the parent's settings: without this a bad flag would exit the process directly.
        command.copyInheritedSettings(program);
        program.addCommand(command);
    }
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
