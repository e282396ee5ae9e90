import * as path from "path";

/** True if `candidate` is `folder` or lies beneath it (both absolute; resolve links first where they matter). */
export function isInside(candidate: string, folder: string): boolean {
    const relative = path.relative(folder, candidate);
    return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
