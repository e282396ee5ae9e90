/**
 * Mocha global fixture for the end-to-end suite: starts the loopback environment
 * (`scripts/e2e-env start`: control plane, kwok nodes, load balancer, podman, registry, Pulumi
 * engine), loads its env file into this process, and stops it afterwards
 * (`TFS_E2E_KEEP=1` leaves it running for a look).
 */
import { execFileSync } from "child_process";
import * as path from "path";

const ROOT = path.resolve(__dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts", "e2e-env");

export function mochaGlobalSetup(): void {
    execFileSync(SCRIPT, ["start"], { stdio: ["ignore", "inherit", "inherit"], timeout: 60 * 60 * 1000 });
    const env = JSON.parse(execFileSync(SCRIPT, ["env", "--json"], { encoding: "utf8" })) as Record<string, string>;
    Object.assign(process.env, env);
}

export function mochaGlobalTeardown(): void {
    if (process.env.TFS_E2E_KEEP !== "1") {
        execFileSync(SCRIPT, ["stop"], { stdio: ["ignore", "inherit", "inherit"], timeout: 5 * 60 * 1000 });
    }
}
