/**
 * Runs Pulumi programs under the SDK's mock runtime and records every resource they register:
 * type, name, parent and inputs (secrets redacted). `tfs plan` prints this record; unit tests
 * assert on it. No engine, no cloud credentials, no cluster.
 */
import { createHash } from "crypto";
import * as pulumi from "@pulumi/pulumi";

/** Pulumi's wire marker for a secret value (`rpc.specialSigKey` / `specialSecretSig`). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const REDACTED = "[secret]";

export interface RecordedResource {
    type: string;
    name: string;
    /** `type::name` of the parent resource, undefined at the top level. */
    parent?: string;
    custom: boolean;
    /** Inputs as the provider would receive them, with secret values replaced by `[secret]`. */
    inputs: Record<string, unknown>;
    /** Inputs with secrets in clear, for tests that check what a secret carries. */
    rawInputs: Record<string, unknown>;
    /** Paths of inputs that were secret (`registry.password`). */
    secretPaths: string[];
    /** `type::name` of every resource this one waits for (`dependsOn` and input dependencies). */
    dependsOn: string[];
    /** Names this resource was once registered under (`aliases: [{ name }]`), so state moves without a replacement. */
    aliasNames: string[];
}

export interface MockOptions {
    project?: string;
    stack?: string;
    /** Run as a preview (unknown outputs stay unknown). Default false: outputs resolve like an update. */
    preview?: boolean;
    /** Full config keys (`tf-serving:replicas`) to string values, as in `pulumi.runtime.allConfig()`. */
    config?: Record<string, string>;
    /** Extra output state for a resource, merged over its inputs and the built-in defaults. */
    state?: (r: { type: string; name: string; inputs: Record<string, unknown> }) => Record<string, unknown> | undefined;
    /** Answers for provider functions (`aws:index/getCallerIdentity:getCallerIdentity`); merged over the defaults. */
    call?: (token: string, args: Record<string, unknown>) => Record<string, unknown> | undefined;
    /** How the mock load balancer reports its address: an IP (GKE, kind) or a hostname (AWS). */
    loadBalancer?: { ip?: string; hostname?: string };
}

export class Recorder {
    readonly resources: RecordedResource[] = [];
    /** Every provider function the program invoked, in order, with its arguments. */
    readonly calls: { token: string; args: Record<string, unknown> }[] = [];

    ofType(type: string): RecordedResource[] {
        return this.resources.filter((r) => r.type === type);
    }

    /** The single resource of `type` (whose name contains `nameIncludes`); throws if there is not exactly one. */
    one(type: string, nameIncludes = ""): RecordedResource {
        const found = this.ofType(type).filter((r) => r.name.includes(nameIncludes));
        if (found.length !== 1) {
            const names = this.ofType(type).map((r) => r.name).join(", ") || "none";
            throw new Error(`expected one ${type}${nameIncludes ? ` named *${nameIncludes}*` : ""}, found ${found.length} (${names})`);
        }
        return found[0];
    }

    /** Resource counts by type, sorted by type. */
    countsByType(): Record<string, number> {
        const counts: Record<string, number> = {};
        for (const r of this.resources) {
            counts[r.type] = (counts[r.type] ?? 0) + 1;
        }
        return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
    }

    /** Waits until registrations stop arriving (bounded: about 2 s at most). */
    async settle(): Promise<void> {
        let last = -1;
        for (let i = 0; i < 200 && last !== this.resources.length; i++) {
            last = this.resources.length;
            await new Promise((resolve) => setTimeout(resolve, 10));
        }
    }
}

/** A stable fake digest for a mock image, so repeated runs produce the same plan. */
export function fakeDigest(seed: string): string {
    return `sha256:${createHash("sha256").update(seed).digest("hex")}`;
}

function defaultState(type: string, name: string, inputs: Record<string, unknown>, lb: { ip?: string; hostname?: string }): Record<string, unknown> {
    switch (type) {
        case "docker:index/image:Image": {
            const imageName = String(inputs.imageName ?? name);
            const repo = imageName.replace(/:[^/:]+$/, "");
            return { repoDigest: `${repo}@${fakeDigest(imageName)}`, baseImageName: imageName };
        }
        case "kubernetes:core/v1:Service":
            return { status: { loadBalancer: { ingress: [lb.hostname !== undefined ? { hostname: lb.hostname } : { ip: lb.ip ?? "203.0.113.10" }] } } };
        case "gcp:container/cluster:Cluster":
            return { endpoint: "198.51.100.1", masterAuth: { clusterCaCertificate: Buffer.from("mock-ca").toString("base64") } };
        case "gcp:serviceaccount/account:Account":
            return { email: `${inputs.accountId}@${inputs.project}.iam.gserviceaccount.com` };
        case "gcp:artifactregistry/repository:Repository":
            return { name: inputs.repositoryId };
        case "aws:iam/role:Role":
            return { name, arn: `arn:aws:iam::123456789012:role/${name}` };
        case "aws:eks/cluster:Cluster":
            return { endpoint: "https://MOCK.gr7.us-west-2.eks.amazonaws.com", certificateAuthority: { data: Buffer.from("mock-ca").toString("base64") }, arn: `arn:aws:eks:us-west-2:123456789012:cluster/${name}` };
        default:
            return {};
    }
}

function defaultCall(token: string, args: Record<string, unknown>): Record<string, unknown> {
    switch (token) {
        case "docker:index/getRegistryImage:getRegistryImage":
            // Not the Image's mock repoDigest: the registry's digest for a tag is another answer.
            return { id: String(args.name), name: args.name, sha256Digest: fakeDigest(`registry ${String(args.name)}`), insecureSkipVerify: false };
        case "gcp:artifactregistry/getDockerImage:getDockerImage": {
            // `imageName` is `IMAGE:TAG` inside the repository; the answer's name carries the digest instead of the tag.
            const [image, tag] = String(args.imageName).split(":");
            const where = `projects/${String(args.project)}/locations/${String(args.location)}/repositories/${String(args.repositoryId)}`;
            const digest = fakeDigest(`artifact registry ${where}/${String(args.imageName)}`);
            return { ...args, name: `${where}/dockerImages/${encodeURIComponent(image)}@${digest}`, tags: [tag] };
        }
        case "aws:ecr/getImage:getImage":
            return { imageDigest: fakeDigest(`ecr ${String(args.repositoryName)}:${String(args.imageTag)}`), imageTag: args.imageTag, repositoryName: args.repositoryName };
        case "aws:index/getCallerIdentity:getCallerIdentity":
            return { accountId: "123456789012", arn: "arn:aws:sts::123456789012:assumed-role/deployer/session", userId: "AROAMOCK:session", id: "123456789012" };
        case "aws:iam/getSessionContext:getSessionContext":
            return { issuerArn: "arn:aws:iam::123456789012:role/deployer", arn: "arn:aws:sts::123456789012:assumed-role/deployer/session" };
        case "aws:index/getRegion:getRegion":
            return { name: "us-west-2", region: "us-west-2", id: "us-west-2" };
        case "aws:index/getAvailabilityZones:getAvailabilityZones":
            return { names: ["us-west-2a", "us-west-2b", "us-west-2c"], zoneIds: ["usw2-az1", "usw2-az2", "usw2-az3"] };
        case "aws:ecr/getAuthorizationToken:getAuthorizationToken":
            return { userName: "AWS", password: "mock-ecr-password", proxyEndpoint: "https://123456789012.dkr.ecr.us-west-2.amazonaws.com", authorizationToken: "bW9jaw==" };
        case "aws:iam/getPolicyDocument:getPolicyDocument":
            return { json: "{}" };
        case "gcp:organizations/getClientConfig:getClientConfig":
            return { accessToken: "mock-gcp-access-token", project: "mock-project", region: "us-central1" };
        default:
            return {};
    }
}

/** Replaces secret-marked values by `[secret]` and collects their paths. */
function redact(value: unknown, path: string, secrets: string[]): unknown {
    if (Array.isArray(value)) {
        return value.map((v, i) => redact(v, `${path}[${i}]`, secrets));
    }
    if (value !== null && typeof value === "object") {
        const obj = value as Record<string, unknown>;
        if (obj[SIG_KEY] === SECRET_SIG) {
            secrets.push(path);
            return REDACTED;
        }
        return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, redact(v, path ? `${path}.${k}` : k, secrets)]));
    }
    return value;
}

interface RegisterRequest {
    getType(): string;
    getName(): string;
    getParent(): string;
    getCustom(): boolean;
    getObject(): { toJavaScript(): Record<string, unknown> } | undefined;
    getDependenciesList(): string[];
    getAliasesList(): Array<{ getSpec(): { getName(): string } | undefined }>;
}

/**
 * Installs the mock runtime and returns the recorder. Call before constructing resources (or
 * importing a program that constructs them at load time).
 */
export async function startMockRuntime(options: MockOptions = {}): Promise<Recorder> {
    const recorder = new Recorder();
    const project = options.project ?? "tf-serving";
    const stack = options.stack ?? "test";
    const pending = new Map<string, { parent?: string; inputs: Record<string, unknown>; secretPaths: string[]; dependsOn: string[]; aliasNames: string[] }>();

    pulumi.runtime.setAllConfig(options.config ?? {});
    await pulumi.runtime.setMocks({
        newResource(args) {
            const key = `${args.type}::${args.name}`;
            const seen = pending.get(key);
            const inputs = (args.inputs ?? {}) as Record<string, unknown>;
            recorder.resources.push({
                type: args.type,
                name: args.name,
                parent: seen?.parent,
                custom: args.custom ?? true,
                inputs: seen?.inputs ?? inputs,
                rawInputs: inputs,
                secretPaths: seen?.secretPaths ?? [],
                dependsOn: seen?.dependsOn ?? [],
                aliasNames: seen?.aliasNames ?? [],
            });
            const state = {
                ...inputs,
                ...defaultState(args.type, args.name, inputs, options.loadBalancer ?? {}),
                ...(options.state?.({ type: args.type, name: args.name, inputs }) ?? {}),
            };
            return { id: args.custom === false ? "" : `${args.name}-id`, state };
        },
        call(args) {
            const inputs = (args.inputs ?? {}) as Record<string, unknown>;
            recorder.calls.push({ token: args.token, args: inputs });
            return { ...defaultCall(args.token, inputs), ...(options.call?.(args.token, inputs) ?? {}) };
        },
    }, project, stack, options.preview ?? false);

    // The mock monitor does not pass parents or secret markers to `newResource`: read them off the request.
    const monitor = pulumi.runtime.getMonitor() as unknown as { registerResource(req: RegisterRequest, cb: unknown): unknown };
    const register = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req: RegisterRequest, cb: unknown) => {
        const parentUrn = req.getParent();
        const secretPaths: string[] = [];
        const raw = req.getObject()?.toJavaScript() ?? {};
        const inputs = redact(raw, "", secretPaths) as Record<string, unknown>;
        const parent = parentUrn ? parentFromUrn(parentUrn) : undefined;
        const dependsOn = req.getDependenciesList().map(parentFromUrn).filter((d): d is string => d !== undefined);
        const aliasNames = req.getAliasesList().map((a) => a.getSpec()?.getName() ?? "").filter((n) => n !== "");
        pending.set(`${req.getType()}::${req.getName()}`, { parent, inputs, secretPaths, dependsOn, aliasNames });
        return register(req, cb);
    };
    return recorder;
}

/** `urn:pulumi:stack::project::parentType$type::name` → `type::name`; undefined for the stack itself. */
function parentFromUrn(urn: string): string | undefined {
    const parts = urn.split("::");
    const type = (parts[2] ?? "").split("$").pop() ?? "";
    const name = parts.slice(3).join("::");
    return type === "pulumi:pulumi:Stack" ? undefined : `${type}::${name}`;
}

/** Resolves an Output under the mock runtime (undefined if unknown, as in a preview). */
export function settleOutput<T>(output: pulumi.Output<T>): Promise<T | undefined> {
    return new Promise((resolve) => {
        let done = false;
        output.apply((v) => {
            done = true;
            resolve(v);
            return v;
        });
        // An unknown output never runs its apply during preview: give up after a bounded wait.
        setTimeout(() => { if (!done) { resolve(undefined); } }, 2000);
    });
}
