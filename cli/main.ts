import { Command, CommanderError } from "commander";
import { buildContextCommand } from "./buildContext";
import { UserError } from "./errors";
import { planCommand } from "./plan";
import { preflightCommand } from "./preflight";
import { smokeCommand } from "./smoke";

/** Each subcommand lives in its own module and returns a configured commander `Command`. */
type CommandFactory = (exit: (code: number) => void) => Command;

const commands: CommandFactory[] = [
    buildContextCommand,
    planCommand,
    preflightCommand,
    smokeCommand,
];

/**
 * Runs `tfs` with the given argv and resolves to the process exit code.
 * User mistakes (UserError, bad flags) print one clear line; anything else is a bug and keeps its stack.
 */
export async function main(argv: string[]): Promise<number> {
    let exitCode = 0;
    const program = new Command("tfs")
        .description("Take a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes")
        .exitOverride()
        .showHelpAfterError();
    for (const factory of commands) {
        program.addCommand(factory((code) => { exitCode = code; }));
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
