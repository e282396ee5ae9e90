/**
 * Mocha global fixture for the end-to-end suite: starts the loopback environment
 * (`scripts/e2e-env start`: control plane, kwok nodes, load balancer, podman, registry, Pulumi
 * engine), loads its env file into this process, and stops it afterwards
 * (`TFS_E2E_KEEP=1` leaves it running for a look).
 */
import { execFileSync } from "child_process";
import * as path from "path";
import { ROOT, startEnvironment } from "../support/e2eProject";

export function mochaGlobalSetup(): void {
    startEnvironment();
}

export function mochaGlobalTeardown(): void {
    if (process.env.TFS_E2E_KEEP !== "1") {
        execFileSync(path.join(ROOT, "scripts", "e2e-env"), ["stop"], { stdio: ["ignore", "inherit", "inherit"], timeout: 5 * 60 * 1000 });
    }
}
