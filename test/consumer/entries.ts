/**
 * A small program that names the library's main entry and the subpaths a program on an existing
 * cluster imports, for the type checks under other TypeScript versions and module resolutions
 * (test/integration/library.test.ts). The cloud entries, whose SDKs' declarations dwarf the rest,
 * are type-checked with the repository's TypeScript through `clusters.ts`.
 */
import { ModelServer, preflight, sizeServer } from "tf-serving";
import type { ModelServerArgs } from "tf-serving";
import { ModelImage } from "tf-serving/model-image";
import { ModelGateway, ModelMonitoring } from "tf-serving/model-server";
import { compareSignatures } from "tf-serving/preflight";
import { humanBytes } from "tf-serving/sizing";

const report = preflight("models/half_plus_two");
const sizing = sizeServer({ servedVersionBytes: report.versions.map((v) => v.sizeBytes), gpu: false, batching: false, overrides: {} });
const args: Pick<ModelServerArgs, "namespace"> = { namespace: "serving" };

export const names = [ModelServer.name, ModelImage.name, ModelGateway.name, ModelMonitoring.name, typeof compareSignatures, humanBytes(1024), sizing.memoryLimit, args.namespace];
