/**
 * TypeScript 6, for the consumer tests only: the repository stays on 5.x (its devDependency), and a
 * consumer project may compile the library with 6. The global setup puts it in npm's cache before
 * any test, as it fetches the other tools tests need; a test installs it from there, offline, into
 * its own folder.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

export const TYPESCRIPT_6 = "6.0.3";

/** Puts TypeScript 6 in npm's cache (no request when it is there already). */
export function cacheTypescript6(): void {
    execFileSync("npm", ["cache", "add", `typescript@${TYPESCRIPT_6}`, "--prefer-offline"], { stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
}

/** Installs TypeScript 6 from npm's cache into `dir` (a folder of its own); the path of its `tsc`. */
export function installTypescript6(dir: string): string {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "typescript-6", version: "0.0.0", private: true }, null, 2)}\n`);
    try {
        execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--save-exact", `typescript@${TYPESCRIPT_6}`], {
            cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000,
        });
    } catch (err) {
        throw new Error(`TypeScript ${TYPESCRIPT_6} is not in npm's cache (the global setup puts it there: test/support/globalSetup.ts; ` +
            `or run \`npm cache add typescript@${TYPESCRIPT_6}\`): ${(err as { stderr?: string }).stderr ?? err}`);
    }
    return path.join(dir, "node_modules", "typescript", "bin", "tsc");
}
