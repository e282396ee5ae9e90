/**
 * What a symbolic link inside a model folder may be: the one rule `tfs preflight` (which reads the
 * folder) and staging (which copies it into the image) both apply, so a model one accepts the other
 * can copy. A link is followed only to a real path inside the model, and never to a folder that
 * contains it: TF Serving would load what the image holds, and a copy of such a link never ends.
 */
import * as fs from "fs";
import { isInside } from "./paths";

/**
 * "broken": resolves to nothing; "loop": links that lead to each other (the system gives up, ELOOP);
 * "outside": resolves outside the model folder; "cycle": resolves to a folder that contains the link.
 */
export type LinkProblem = "broken" | "loop" | "outside" | "cycle";

export type LinkVerdict =
    | { ok: true; target: string; real: string; stat: fs.Stats }
    | { ok: false; target: string; problem: LinkProblem; real?: string };

/**
 * Judges the link at `link` under the model folder whose real path is `modelRoot`; `ancestors` holds
 * the real paths of the folders that contain the link. Throws only what reading the link itself throws.
 */
export function judgeLink(link: string, modelRoot: string, ancestors: ReadonlySet<string>): LinkVerdict {
    const target = fs.readlinkSync(link);
    let real: string;
    try {
        real = fs.realpathSync(link);
    } catch (err) {
        return { ok: false, target, problem: (err as NodeJS.ErrnoException).code === "ELOOP" ? "loop" : "broken" };
    }
    if (!isInside(real, modelRoot)) {
        return { ok: false, target, problem: "outside", real };
    }
    const stat = fs.statSync(link);
    if (stat.isDirectory() && ancestors.has(real)) {
        return { ok: false, target, problem: "cycle", real };
    }
    return { ok: true, target, real, stat };
}

/** What is wrong with a link and how to fix it, the same words wherever it is found. */
export function linkProblemMessage(link: string, verdict: Extract<LinkVerdict, { ok: false }>): string {
    const { target } = verdict;
    switch (verdict.problem) {
        case "broken":
            return `${link} links to ${target}, which does not exist: restore the target or delete the link.`;
        case "loop":
            return `${link} links to ${target}, and the links lead back to each other without end (a link loop): replace them with the files they should point to.`;
        case "cycle":
            return `${link} links to ${target}, which is ${verdict.real}, a folder that contains the link (a link loop): copying it would copy the model into itself without end; delete the link.`;
        case "outside":
            return `${link} links to ${target}, outside the model folder; the image build copies only the model folder, so the served model would lack it: replace the link with a copy of what it points to.`;
    }
}
