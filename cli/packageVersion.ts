import * as fs from "fs";
import * as path from "path";

/**
 * The command's version, as `tfs --version` prints it: the version of the nearest package.json at or
 * above `from` (this file's folder by default), which is the tf-serving-cli package's when installed
 * and the repository's in a checkout. Undefined when no package.json above says one.
 */
export function commandVersion(from: string = __dirname): string | undefined {
    for (let dir = path.resolve(from), i = 0; i < 64; i++) {
        const file = path.join(dir, "package.json");
        if (fs.existsSync(file)) {
            const version = (JSON.parse(fs.readFileSync(file, "utf8")) as { version?: unknown }).version;
            return typeof version === "string" ? version : undefined;
        }
        const up = path.dirname(dir);
        if (up === dir) {
            return undefined;
        }
        dir = up;
    }
    return undefined;
}
