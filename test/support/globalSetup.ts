/**
 * Mocha global fixture for `npm test`: builds and fetches, once and before any test, what tests
 * would otherwise make on first use inside a test's own timeout. On a new machine (empty Go caches)
 * the TF Serving stand-in takes 20-40 s to build, the CRD modules and TypeScript 6 (which only the
 * consumer tests install, from npm's cache) a download each: inside a 20 s test that is a failure no
 * warm machine ever shows. With `--parallel` this runs once, in the main
 * process, before the workers start; each worker then finds the binary and the modules cached.
 */
import { gatewayApiCrdFile, operatorModuleDir } from "./crdSchema";
import { standinBinary } from "./tfServingStandin";
import { TYPESCRIPT_6, cacheTypescript6 } from "./typescript6";

function timed(what: string, make: () => unknown): void {
    const started = Date.now();
    make();
    const seconds = (Date.now() - started) / 1000;
    if (seconds >= 1) {
        console.log(`  (global setup: ${what} in ${seconds.toFixed(1)} s)`);
    }
}

export function mochaGlobalSetup(): void {
    timed("the TF Serving stand-in built", standinBinary);
    timed("the CRD modules fetched", () => {
        operatorModuleDir();
        gatewayApiCrdFile("gateways");
    });
    timed(`TypeScript ${TYPESCRIPT_6} in npm's cache (the consumer tests compile with it)`, cacheTypescript6);
}
