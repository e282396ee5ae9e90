/**
 * The test fixtures shipped in the repository (`test/fixtures/`): real SavedModels from TensorFlow
 * Serving's own test data (see `test/fixtures/README.md`). Every test resolves them here.
 */
import * as path from "path";

/** `test/fixtures/saved_models`: one model base folder per fixture. */
export const SAVED_MODELS = path.resolve(__dirname, "../fixtures/saved_models");

/** The base folder of one fixture model, e.g. `fixtureModelDir("half_plus_two_cpu")`. */
export function fixtureModelDir(name: string): string {
    return path.join(SAVED_MODELS, name);
}

/** A `--monitoring_config_file` that enables Prometheus metrics on the REST port. */
export const MONITORING_FIXTURE = path.resolve(__dirname, "../fixtures/monitoring_config.txt");
