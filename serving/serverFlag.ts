/** One `tensorflow_model_server` flag this program sets, with why a user may not set it again. */
export interface ServerFlag {
    name: string;
    value: string | number | boolean;
    /** What controls it instead, for the message refusing it in `extraServerArgs`. */
    why: string;
}

/** The flags as command-line arguments, `--name=value`. */
export function flagArgs(flags: ServerFlag[]): string[] {
    return flags.map((f) => `${f.name}=${f.value}`);
}
