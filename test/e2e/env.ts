/**
 * Mocha global fixture for the end-to-end suite: starts the suite's own loopback environment
 * (`scripts/e2e-env start` with `suiteEnvironment()`'s settings: control plane, kwok nodes, load
 * balancer, podman, registry, Pulumi engine), beside whatever environment the user runs (the dev
 * stack of `scripts/up-local` stays untouched), loads its env file into this process, and stops it
 * afterwards (`TFS_E2E_KEEP=1` leaves it running for a look). Both are timed into `.ci/run`'s table
 * (`TFS_TEST_TIMES`) beside the files.
 */
import * as fs from "fs";
import { startEnvironment, suiteEnvironmentCommand } from "../support/e2eProject";

function timed(what: string, run: () => void): void {
    const started = Date.now();
    try {
        run();
    } finally {
        if (process.env.TFS_TEST_TIMES) {
            fs.appendFileSync(process.env.TFS_TEST_TIMES, `${JSON.stringify({ file: what, seconds: (Date.now() - started) / 1000, passed: 0, failed: 0 })}\n`);
        }
    }
}

export function mochaGlobalSetup(): void {
    timed("(environment start)", startEnvironment);
}

export function mochaGlobalTeardown(): void {
    if (process.env.TFS_E2E_KEEP !== "1") {
        timed("(environment stop)", () => suiteEnvironmentCommand("stop", 5 * 60 * 1000));
    }
}
