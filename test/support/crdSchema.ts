/**
 * The CRDs the scrape and rule objects are validated against, without an API server: the
 * Prometheus Operator's own (`example/prometheus-operator-crd/` of its Go module, the version pinned
 * in `tools/e2e-env/go/crds/go.mod`, fetched with `go mod download` into the e2e cache's module
 * folder) and the structural ones written from GMP's API reference
 * (`tools/e2e-env/go/crds/monitoring.googleapis.com_v1.yaml`).
 *
 * `schemaProblems` checks what a structural schema says and an API server enforces with strict field
 * validation: types, required fields, enums, patterns, unknown fields (x-kubernetes-preserve-unknown-fields and
 * additionalProperties allow them), int-or-string.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseAllDocuments } from "yaml";

const CRDS = path.resolve(__dirname, "../../tools/e2e-env/go/crds");
const OPERATOR_MODULE = "github.com/prometheus-operator/prometheus-operator";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Schema = Record<string, any>;

/** The Prometheus Operator module's folder (downloaded once into the e2e cache). */
export function operatorModuleDir(): string {
    return moduleDir(OPERATOR_MODULE);
}

/** The folder of `module` at the version `tools/e2e-env/go/crds/go.mod` pins (downloaded once into the e2e cache). */
function moduleDir(module: string): string {
    const cache = process.env.TFS_E2E_CACHE ?? path.join(os.homedir(), ".cache", "tf-serving-e2e");
    const out = execFileSync("go", ["mod", "download", "-json", module], {
        cwd: CRDS, encoding: "utf8",
        env: { ...process.env, GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local", GOMODCACHE: path.join(cache, "go", "mod") },
    });
    return (JSON.parse(out) as { Dir: string }).Dir;
}

/** The Prometheus Operator's CRD file for a plural, e.g. `podmonitors`. */
export function operatorCrdFile(plural: string): string {
    return path.join(operatorModuleDir(), "example", "prometheus-operator-crd", `monitoring.coreos.com_${plural}.yaml`);
}

/** The Gateway API's standard-channel CRD file for a plural, e.g. `gateways` (the version the loopback environment installs). */
export function gatewayApiCrdFile(plural: string): string {
    return path.join(moduleDir("sigs.k8s.io/gateway-api"), "config", "crd", "standard", `gateway.networking.k8s.io_${plural}.yaml`);
}

export const GMP_CRD_FILE = path.join(CRDS, "monitoring.googleapis.com_v1.yaml");

/** The openAPIV3Schema of `kind` at `version` among the CRDs of `file`. */
export function crdSchema(file: string, kind: string, version: string): Schema {
    for (const doc of parseAllDocuments(fs.readFileSync(file, "utf8"))) {
        const crd = doc.toJS() as any;
        if (crd?.kind === "CustomResourceDefinition" && crd.spec.names.kind === kind) {
            const v = crd.spec.versions.find((x: any) => x.name === version);
            if (v) {
                return v.schema.openAPIV3Schema;
            }
        }
    }
    throw new Error(`${file} defines no ${kind} ${version}`);
}

/** Every place `value` breaks `schema`, as `path: problem`. */
export function schemaProblems(schema: Schema, value: unknown, at = ""): string[] {
    if (schema["x-kubernetes-int-or-string"]) {
        return typeof value === "string" || Number.isInteger(value) ? [] : [`${at}: must be an integer or a string`];
    }
    const type = schema.type as string | undefined;
    const kindOf = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
    const fits = type === undefined || (type === "integer" ? Number.isInteger(value) : type === "number" ? typeof value === "number" : kindOf === type);
    if (!fits) {
        return [`${at}: must be ${type}, is ${kindOf}`];
    }
    if (schema.enum && !schema.enum.includes(value)) {
        return [`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.join(", ")}`];
    }
    if (kindOf === "string" && schema.pattern && !new RegExp(schema.pattern).test(value as string)) {
        return [`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`];
    }
    if (kindOf === "string" && schema.minLength !== undefined && (value as string).length < schema.minLength) {
        return [`${at}: shorter than ${schema.minLength}`];
    }
    const problems: string[] = [];
    if (kindOf === "array") {
        const items = value as unknown[];
        if (schema.minItems !== undefined && items.length < schema.minItems) {
            problems.push(`${at}: needs at least ${schema.minItems} items`);
        }
        items.forEach((item, i) => problems.push(...(schema.items ? schemaProblems(schema.items, item, `${at}[${i}]`) : [])));
    } else if (kindOf === "object" && at !== ".metadata") {
        const obj = value as Record<string, unknown>;
        for (const key of schema.required ?? []) {
            if (!(key in obj)) {
                problems.push(`${at}.${key}: required`);
            }
        }
        for (const [key, v] of Object.entries(obj)) {
            const sub = schema.properties?.[key] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
            if (sub) {
                problems.push(...schemaProblems(sub, v, `${at}.${key}`));
            } else if (!schema["x-kubernetes-preserve-unknown-fields"] && schema.additionalProperties !== true) {
                problems.push(`${at}.${key}: unknown field`);
            }
        }
    }
    return problems;
}
