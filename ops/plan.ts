/**
 * An offline plan: run the program under Pulumi's mock runtime with one stack's config file and
 * list every resource it would register, with exactly the inputs `pulumi up` would send: the program
 * runs for the project folder, as the language host runs it, and stages build contexts where an
 * update does. No engine, no credentials, no cluster.
 */
import { OFFLINE_SECRET } from "../serving/gatewayAccess";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { runProgram } from "../stacks/program";
import { DeclaredType, declaredTypeProblem } from "./declaredTypes";
import { REDACTED, RecordedResource, recordProgram } from "./planRuntime";
import { foreignProgramProblem } from "./projectProgram";

export interface PlanResult {
    stack: string;
    resources: RecordedResource[];
    counts: Record<string, number>;
    /** Stack outputs as the mock run resolves them (addresses and digests are mock values). */
    outputs: Record<string, unknown>;
    /** What this offline plan could not check, for the reader. */
    notes: string[];
}

/**
 * Offline there is no engine and no backend: a cloud stack's deployed settings cannot be read, so a
 * change `pulumi preview` would refuse on the running stack is planned as for a new stack.
 */
export const OFFLINE_LIVE_CHANGES_NOTE = "not checked against the running stack: `pulumi preview` refuses a change the deployed cluster cannot take " +
    "(docs/concepts/changing-a-stack.md), reading the settings the stack recorded; offline, this plan cannot read them and plans as for a new stack";

/** A plan that stopped where `pulumi preview` would: a user mistake, with its message. */
export class PlanError extends Error {}

/** Finds the Pulumi project folder (the one holding Pulumi.yaml) at or above `from`. */
export function findProjectDir(from: string): string {
    let dir = path.resolve(from);
    for (let i = 0; i < 64; i++) {
        if (fs.existsSync(path.join(dir, "Pulumi.yaml"))) {
            return dir;
        }
        const up = path.dirname(dir);
        if (up === dir) {
            break;
        }
        dir = up;
    }
    throw new PlanError(`no Pulumi.yaml in ${from} or any folder above it; run from the project folder`);
}

/**
 * The configuration the engine would hand the program: Pulumi.yaml's project defaults overlaid by
 * the stack file's values, as `project:key` → string (structured values as JSON text).
 */
export function stackConfig(projectDir: string, stack: string): { project: string; config: Record<string, string>; secretKeys: string[] } {
    const nameProblem = stackNameProblem(stack);
    if (nameProblem !== undefined) {
        throw new PlanError(`--stack ${JSON.stringify(stack)}: ${nameProblem}`);
    }
    const projectFile = readYamlFile(path.join(projectDir, "Pulumi.yaml")) as { name: string; config?: Record<string, unknown> };
    const project = projectFile.name;
    const stackFile = path.join(projectDir, `Pulumi.${stack}.yaml`);
    if (!fs.existsSync(stackFile)) {
        const stacks = fs.readdirSync(projectDir).filter((f) => /^Pulumi\..+\.yaml$/.test(f)).map((f) => f.slice(7, -5));
        throw new PlanError(`no stack file ${stackFile}; stacks with a file here: ${stacks.join(", ") || "none"}`);
    }
    const config: Record<string, string> = {};
    const secretKeys: string[] = [];
    const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
    for (const [key, decl] of Object.entries(projectFile.config ?? {})) {
        const value = decl !== null && typeof decl === "object" && !Array.isArray(decl) ? (decl as { default?: unknown; value?: unknown }).default ?? (decl as { value?: unknown }).value : decl;
        if (value !== undefined) {
            config[key.includes(":") ? key : `${project}:${key}`] = text(value);
        }
    }
    const parsed = readYamlFile(stackFile);
    const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
    if (parsed !== null && parsed !== undefined && !(isMapping(parsed) && (parsed.config === undefined || parsed.config === null || isMapping(parsed.config)))) {
        throw new PlanError(`${stackFile} is not a stack file: it must be a YAML mapping with a "config:" mapping of key: value lines (e.g. "config:\n  ${project}:replicas: 2")`);
    }
    const declared = declaredTypes(projectFile.config ?? {}, project);
    const written = new Map<string, string>();
    for (const [asWritten, value] of Object.entries((parsed as { config?: Record<string, unknown> } | null)?.config ?? {})) {
        // As the engine namespaces a bare key with the project (`stackConfigNamespacedWithProject`, pulumi/pulumi
        // sdk/go/common/workspace/loaders.go): `replicas: 3` under `config:` is `tf-serving:replicas`.
        const key = asWritten.includes(":") ? asWritten : `${project}:${asWritten}`;
        const twin = written.get(key);
        if (twin !== undefined) {
            throw new PlanError(`${stackFile}: ${twin} and ${asWritten} are the same key (Pulumi prefixes a key without a namespace with the project's, "${project}:"), `
                + "and which value wins is not defined: keep one (see docs/reference/configuration.md#the-stack-file)");
        }
        written.set(key, asWritten);
        const plain = withoutCiphertext(value);
        // A key with no value reaches the program as "" (the engine warns that it may become null one day: `checkForEmptyConfig`).
        config[key] = plain === null ? "" : text(plain);
        // As the engine marks a key that holds an encrypted value anywhere in it.
        if (JSON.stringify(plain) !== JSON.stringify(value)) {
            secretKeys.push(key);
        }
        const problem = secretKeys.includes(key) ? undefined : declaredTypeProblem(stack, declared.get(key)?.name ?? key, declared.get(key)?.type, plain !== null && typeof plain === "object" ? plain : config[key]);
        if (problem !== undefined) {
            throw new PlanError(`${stackFile}: ${asWritten} = ${JSON.stringify(config[key])}: ${problem}`);
        }
    }
    return { project, config, secretKeys };
}

/** Pulumi.yaml's typed declarations by full key (`tf-serving:replicas`), with the name it declares them under. */
function declaredTypes(declarations: Record<string, unknown>, project: string): Map<string, { name: string; type: DeclaredType }> {
    const types = new Map<string, { name: string; type: DeclaredType }>();
    for (const [name, decl] of Object.entries(declarations)) {
        if (decl !== null && typeof decl === "object" && !Array.isArray(decl) && typeof (decl as DeclaredType).type === "string") {
            types.set(name.includes(":") ? name : `${project}:${name}`, { name, type: decl as DeclaredType });
        }
    }
    return types;
}

/**
 * Why `name` cannot be a stack name here, or undefined. It becomes part of a file name
 * (`Pulumi.<name>.yaml`), so it may not be a path: Pulumi's own characters only, no leading dot.
 */
export function stackNameProblem(name: string): string | undefined {
    return /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$/.test(name)
        ? undefined
        : "is not a stack name: use letters, digits, '-', '_' and '.' (not first), at most 100 characters, e.g. dev or prod-eu";
}

/**
 * A YAML file's text as Pulumi decodes it: it strips a UTF-8 byte order mark (`readFileStripUTF8BOM`,
 * pulumi/pulumi sdk/go/common/workspace/loaders.go) and its Go YAML parser reads UTF-16 from its byte
 * order mark (libyaml's encoding detection, which go-yaml ports); UTF-16 without one is refused here.
 */
export function decodeYamlBytes(bytes: Buffer, file: string): string {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) {
        return bytes.subarray(2).toString("utf16le");
    }
    if (bytes[0] === 0xfe && bytes[1] === 0xff) {
        return Buffer.from(bytes.subarray(2)).swap16().toString("utf16le");
    }
    if (bytes.subarray(0, 4096).includes(0)) {
        throw new PlanError(`${file}: holds NUL bytes, as UTF-16 text without a byte order mark does, which Pulumi cannot read: save it as UTF-8 (see docs/reference/configuration.md#the-stack-file)`);
    }
    return bytes.toString("utf8").replace(/^\uFEFF/, "");
}

/**
 * Plain scalars that Pulumi's Go YAML reader reads otherwise than YAML 1.2, which this plan reads: refused,
 * so that what the plan shows is what `pulumi up` deploys. The engine decodes the stack file with
 * gopkg.in/yaml.v3 (`resolve.go`: `strconv.ParseInt(plain, 0, 64)` after removing '_', so a leading 0 is
 * octal; `0b` binary; `.inf` and `.nan` floats; YYYY-MM-DD a timestamp) and hands a value to the program
 * as its JSON (pulumi/pulumi sdk/go/common/resource/config/object.go `MarshalString`; a timestamp as Go's
 * `time.Time.String()`), at the top of `config:` and inside a mapping or list alike. Measured with Pulumi
 * 3.277.0: `010` reaches the program as "8", `1_000` as "1000", `0b101` as "5", `2001-12-14` as
 * "2001-12-14 00:00:00 +0000 UTC", and `.inf` stops it ("json: unsupported value: +Inf"). What both read
 * alike passes: `0x2`, `+2`, `2.0` and `1e1` are numbers (2, 2, 2, 10), `True` and `FALSE` booleans,
 * `yes` and `off` text (yaml.v3 takes the YAML 1.1 booleans as text unless decoding into a bool).
 */
function ambiguousScalarProblem(source: string): string | undefined {
    // With an 8 or 9 in it, Go's ParseInt fails and the float reading gives the decimal value YAML 1.2 gives.
    if (/^[-+]?0[0-7_]+$/.test(source)) {
        return `Pulumi's YAML reader takes a number with a leading zero as octal (${source} is ${parseInt(source.replace(/_/g, ""), 8)} to it), YAML 1.2 as decimal: write it without the leading zero, or quote it if it is text`;
    }
    if (/^[-+]?[0-9][0-9_]*(\.[0-9_]*)?$/.test(source) && source.includes("_")) {
        return `Pulumi's YAML reader drops the '_' of ${source} and reads a number, YAML 1.2 keeps it as text: write the digits without '_', or quote it if it is text`;
    }
    if (/^[-+]?0b[01_]+$/.test(source)) {
        return `Pulumi's YAML reader takes ${source} as a binary number, YAML 1.2 as text: write it in decimal, or quote it if it is text`;
    }
    if (/^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.test(source)) {
        return `Pulumi's YAML reader takes ${source} as a timestamp and hands the program Go's text for it ("2001-12-14 00:00:00 +0000 UTC" for 2001-12-14), YAML 1.2 the text as written: quote it`;
    }
    if (/^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/.test(source)) {
        return "is not a finite number: the configuration reaches the program as JSON, which has no infinity or NaN, so Pulumi refuses the stack file (\"json: unsupported value\"): write a number, or remove the key for the default";
    }
    return undefined;
}

/** A YAML file's value; a syntax error names the file, the line and what is wrong, without the parser's internals. */
export function readYamlFile(file: string): unknown {
    let text: string;
    try {
        text = decodeYamlBytes(fs.readFileSync(file), file);
    } catch (err) {
        throw err instanceof PlanError ? err : new PlanError(`cannot read ${file}: ${(err as Error).message}`);
    }
    // Merge keys (`<<: *anchor`) as Pulumi's Go YAML reader applies them; YAML 1.2 alone would keep "<<" as a key.
    const lineCounter = new YAML.LineCounter();
    const doc = YAML.parseDocument(text, { merge: true, lineCounter });
    const error = doc.errors[0];
    if (error !== undefined) {
        const line = error.linePos?.[0].line;
        const where = line === undefined ? file : `${file}, line ${line}`;
        const source = line === undefined ? "" : (text.split("\n")[line - 1] ?? "");
        const what = error.code === "TAB_AS_INDENT" ? "a tab indents this line, and YAML indents with spaces only: replace the tab with spaces"
            : error.code === "DUPLICATE_KEY" ? `the key ${JSON.stringify(source.trim().split(/:(?:\s|$)/)[0])} appears twice in one mapping (the later value would silently win): keep one`
            : `${error.message.split(" at line ")[0]}: fix the YAML syntax`;
        throw new PlanError(`${where}: ${what}${source.trim() ? `\n    ${source.trimEnd()}` : ""}`);
    }
    let ambiguous: string | undefined;
    YAML.visit(doc, {
        Scalar(key, node) {
            const problem = key === "key" || node.type !== "PLAIN" || node.source === undefined ? undefined : ambiguousScalarProblem(node.source);
            if (problem !== undefined && node.range) {
                const line = lineCounter.linePos(node.range[0]).line;
                ambiguous = `${file}, line ${line}: ${node.source} ${problem.startsWith("is ") ? problem : `is read two ways: ${problem}`} (see docs/reference/configuration.md#the-stack-file)\n    ${(text.split("\n")[line - 1] ?? "").trimEnd()}`;
                return YAML.visit.BREAK;
            }
            return undefined;
        },
    });
    if (ambiguous !== undefined) {
        throw new PlanError(ambiguous);
    }
    try {
        return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
        // yaml 2.x throws a ReferenceError ("Excessive alias count...") once aliases expand past the limit.
        throw new PlanError(`${file}: its aliases (*name) expand past ${MAX_ALIAS_COUNT} uses, as an alias bomb does `
            + `(yaml: ${(err as Error).message}); a stack file needs few aliases or none: write the values out`);
    }
}

/**
 * yaml's own default (`ToJSOptions.maxAliasCount`, 100; it counts an anchor's uses times the aliases
 * inside it, `nodes/Alias.js`): a few lines of nested aliases can expand to a billion values.
 */
const MAX_ALIAS_COUNT = 100;

/** Encrypted values (`{secure: ...}`) cannot be decrypted offline: they stand as a placeholder string. */
function withoutCiphertext(value: unknown): unknown {
    if (Array.isArray(value)) {
        return value.map(withoutCiphertext);
    }
    if (value !== null && typeof value === "object") {
        const obj = value as Record<string, unknown>;
        if (Object.keys(obj).length === 1 && typeof obj.secure === "string") {
            return OFFLINE_SECRET;
        }
        return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, withoutCiphertext(v)]));
    }
    return value;
}

/**
 * Runs this project's program under mocks for the project in `projectDir` and its `stack`, and returns
 * what it registered. A project whose Pulumi.yaml runs a program of its own is refused (`foreignProgramProblem`).
 */
export async function planStack(projectDir: string, stack: string, options: { loadBalancer?: { ip?: string; hostname?: string } } = {}): Promise<PlanResult> {
    // A project with a program of its own is not planned as this one (a bad stack name is stackConfig's to refuse).
    const foreign = stackNameProblem(stack) === undefined
        ? foreignProgramProblem(projectDir, readYamlFile(path.join(projectDir, "Pulumi.yaml")) as { runtime?: unknown; main?: unknown }, stack)
        : undefined;
    if (foreign !== undefined) {
        throw new PlanError(foreign);
    }
    const { project, config, secretKeys } = stackConfig(projectDir, stack);
    // AWS load balancers have only a hostname; the others report an IP.
    const loadBalancer = options.loadBalancer ?? (config[`${project}:cloud`] === "aws" ? { hostname: "mock-nlb.elb.amazonaws.com" } : undefined);
    try {
        const { recorder, outputs } = await recordProgram({ project, stack, config, preview: true, loadBalancer },
            () => runProgram({ project, stack, config, secretKeys, projectDir: path.resolve(projectDir) }, { offline: true }));
        return {
            stack,
            resources: recorder.resources,
            counts: recorder.countsByType(),
            outputs: Object.fromEntries(Object.entries(outputs).map(([name, value]) => [name, name === "kubeconfig" ? REDACTED : value])),
            notes: outputs.deployedSettings !== undefined ? [OFFLINE_LIVE_CHANGES_NOTE] : [],
        };
    } catch (err) {
        if (err instanceof pulumi.RunError) {
            throw new PlanError(err.message);
        }
        throw err;
    }
}

/** The plan as text a reviewer reads: one YAML block per resource, then counts and outputs. */
export function formatPlan(plan: PlanResult): string {
    const lines = [`Plan for stack "${plan.stack}": ${plan.resources.length} resources (mock runtime: nothing contacted; digests and addresses are placeholders)`,
        ...plan.notes.map((n) => `Note: ${n}`), ""];
    for (const r of plan.resources) {
        lines.push(`${r.custom ? "+" : "◆"} ${r.type}  ${r.name}${r.parent ? `   (parent: ${r.parent})` : ""}`);
        const inputs = Object.keys(r.inputs).length ? YAML.stringify(r.inputs, { lineWidth: 0 }).trimEnd() : "{}";
        lines.push(...inputs.split("\n").map((l) => `    ${l}`), "");
    }
    lines.push("Resources by type:");
    for (const [type, n] of Object.entries(plan.counts)) {
        lines.push(`  ${String(n).padStart(3)}  ${type}`);
    }
    lines.push("", "Outputs:");
    for (const [name, value] of Object.entries(plan.outputs)) {
        lines.push(`  ${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    }
    return lines.join("\n");
}
