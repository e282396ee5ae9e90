/**
 * Mocha global fixture for the end-to-end suite: starts the suite's own loopback environment
 * (`scripts/e2e-env start` with `suiteEnvironment()`'s settings: control plane, kwok nodes, load
 * balancer, podman, registry, Pulumi engine), beside whatever environment the user runs (the dev
 * stack of `scripts/up-local` stays untouched), loads its env file into this process, and stops it
 * afterwards (`TFS_E2E_KEEP=1` leaves it running for a look).
 */
import { startEnvironment, suiteEnvironmentCommand } from "../support/e2eProject";

export function mochaGlobalSetup(): void {
    startEnvironment();
}

export function mochaGlobalTeardown(): void {
    if (process.env.TFS_E2E_KEEP !== "1") {
        suiteEnvironmentCommand("stop", 5 * 60 * 1000);
    }
}
