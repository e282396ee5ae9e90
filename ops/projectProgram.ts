/**
 * Whose program a Pulumi project runs. `tfs plan` runs this project's program (the tf-serving stack:
 * `index.ts`, which runs `stacks/program.ts`) under mocks with the project's stack file; a project
 * whose Pulumi.yaml runs a program of its own (a TypeScript program that uses the library, a YAML or
 * Python one) would be planned as if it were this one, listing resources its program never declares.
 * Running the user's program instead would mean loading it with its own SDK copy and TypeScript
 * setup; `pulumi preview` does exactly that, so `tfs plan` refuses in one line and names it.
 */
import * as fs from "fs";
import * as path from "path";

/** What this project's entry holds: the import every checkout of this program's `index.ts` makes. */
const PROGRAM_IMPORT = /from\s+["']\.\/stacks\/program["']|require\(\s*["']\.\/stacks\/program["']\s*\)/;

/** Where Pulumi's Node.js host starts a program: `main` (a file, or a folder's package.json `main` or index), default the project folder. */
export function programEntry(projectDir: string, main: string | undefined): string {
    const target = path.resolve(projectDir, main ?? ".");
    if (!fs.existsSync(target) || !fs.statSync(target).isDirectory()) {
        return target;
    }
    try {
        const pkg = JSON.parse(fs.readFileSync(path.join(target, "package.json"), "utf8")) as { main?: unknown };
        if (typeof pkg.main === "string") {
            return path.resolve(target, pkg.main);
        }
    } catch {
        // No package.json (or not JSON): Node looks for an index file.
    }
    return ["index.ts", "index.js"].map((f) => path.join(target, f)).find((f) => fs.existsSync(f)) ?? path.join(target, "index.ts");
}

/**
 * Why `tfs plan` cannot plan the project in `projectDir` (its Pulumi.yaml parsed as `projectFile`) for
 * `stack`, in one line, or undefined when the project runs this program: a Node.js project whose
 * entry imports `./stacks/program`, or has no entry file at all (a folder holding only Pulumi.yaml and
 * stack files, planned with this program).
 */
export function foreignProgramProblem(projectDir: string, projectFile: { runtime?: unknown; main?: unknown }, stack: string): string | undefined {
    const runtime = typeof projectFile.runtime === "string" ? projectFile.runtime
        : (projectFile.runtime as { name?: unknown } | null | undefined)?.name;
    const main = typeof projectFile.main === "string" ? projectFile.main : undefined;
    const preview = `preview it with \`pulumi preview --stack ${stack}\`, which runs your program with its configuration (see docs/reference/cli.md#tfs-plan-outside-this-repository)`;
    if (runtime !== "nodejs") {
        return `${path.join(projectDir, "Pulumi.yaml")} runs a ${String(runtime)} program, and tfs plan plans only this project's program `
            + `(the tf-serving stack, index.ts running stacks/program.ts): ${preview}`;
    }
    const entry = programEntry(projectDir, main);
    if (!fs.existsSync(entry) || PROGRAM_IMPORT.test(fs.readFileSync(entry, "utf8"))) {
        return undefined;
    }
    return `${path.join(projectDir, "Pulumi.yaml")} runs its own program (${path.relative(projectDir, entry) || entry}), and tfs plan plans only this `
        + `project's program (the tf-serving stack, index.ts running stacks/program.ts), not yours: ${preview}`;
}
