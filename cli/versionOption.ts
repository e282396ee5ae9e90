import { InvalidArgumentError } from "commander";
import { parseVersion } from "../serving/modelConfig";

/** Commander's parser for a repeatable `--version N`: the same rule as the `versions` config key. */
export function collectVersion(value: string, previous: number[] | undefined): number[] {
    const parsed = parseVersion(value);
    if ("problem" in parsed) {
        throw new InvalidArgumentError(`"${value}" ${parsed.problem} (put MODEL_BASE_DIR before --version).`);
    }
    return [...(previous ?? []), parsed.version];
}
