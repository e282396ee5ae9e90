/**
 * Each version is pinned in one place. The npm packages are pinned in the root package.json (and its
 * lock); the policy pack and the consumer program are packages of their own, which npm makes state
 * their dependencies again: this holds those copies equal to the root's pins. (The loopback
 * environment reads its pins from the Go modules and package-lock.json: tools/e2e-env/README.md.)
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "../../..");

function manifest(file: string): { dependencies?: Record<string, string>; devDependencies?: Record<string, string> } {
    return JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));
}

const root = manifest("package.json");
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };

describe("version pins", () => {
    for (const file of ["policy/package.json", "test/consumer/package.json"]) {
        it(`${file} pins the root's versions of the packages they share`, () => {
            const own = { ...manifest(file).dependencies, ...manifest(file).devDependencies };
            const shared = Object.keys(own).filter((name) => root.devDependencies?.[name] !== undefined);
            assert.ok(shared.includes("@pulumi/pulumi"), `${file} should depend on @pulumi/pulumi`);
            for (const name of shared) {
                assert.strictEqual(own[name], root.devDependencies![name], `${file}: ${name} is ${own[name]}, the root pins ${root.devDependencies![name]}`);
            }
        });
    }

    it("the root's pins are exact and are what package-lock.json installs", () => {
        for (const [name, version] of Object.entries(root.devDependencies ?? {})) {
            assert.match(version, /^\d+\.\d+\.\d+$/, `${name}: ${version} is a range, not a pin`);
            assert.strictEqual(lock.packages[`node_modules/${name}`]?.version, version, `${name}: package-lock.json installs another version`);
        }
    });
});
