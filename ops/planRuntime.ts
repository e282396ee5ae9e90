/**
 * Runs the program under the SDK's mock runtime and records every resource it registers: type,
 * name, parent and inputs (secrets redacted). `tfs plan` prints this record. Public SDK API only:
 * `setMocks` (what the mocks are handed), the program run inside a stack as the language host runs
 * it (`runInPulumiStack`), a stack transformation for what the mocks are not handed (parent,
 * `dependsOn`, aliases, which nested input is secret: the mocks see secretness hoisted to the
 * top-level input), and `disconnect` to wait until every registration has been answered.
 */
import { createHash } from "crypto";
import * as pulumi from "@pulumi/pulumi";
import { isContentTag } from "../serving/contentTag";
import { imageTag } from "../serving/images";

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
    /** `type::name` of every resource this one was told to wait for (`dependsOn`). */
    dependsOn: string[];
    /** Names this resource was once registered under (`aliases: [{ name }]`), so state moves without a replacement. */
    aliasNames: string[];
    /** Parents this resource was once registered under (`aliases: [{ parent }]`), as `type::name` read from their URNs. */
    aliasParents: string[];
    /** How long the engine waits for it (`customTimeouts`), when set. */
    customTimeouts?: pulumi.CustomTimeouts;
    /** Inputs whose changes the engine ignores after creation (`ignoreChanges`), when set. */
    ignoreChanges?: string[];
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
    /**
     * Answers for provider functions (`aws:index/getCallerIdentity:getCallerIdentity`); merged over the
     * defaults. Without an answer, a registry lookup finds only the tags this run pushed.
     */
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
}

/** A stable fake digest for a mock image, so repeated runs produce the same plan. */
export function fakeDigest(seed: string): string {
    return `sha256:${createHash("sha256").update(seed).digest("hex")}`;
}

function defaultState(type: string, name: string, inputs: Record<string, unknown>, lb: { ip?: string; hostname?: string }): Record<string, unknown> {
    switch (type) {
        case IMAGE_TYPE: {
            const imageName = String(inputs.imageName ?? name);
            const repo = imageName.replace(/:[^/:]+$/, "");
            return { repoDigest: `${repo}@${fakeDigest(imageName)}`, baseImageName: imageName };
        }
        case "kubernetes:core/v1:Service":
            return { status: { loadBalancer: { ingress: [lb.hostname !== undefined ? { hostname: lb.hostname } : { ip: lb.ip ?? "203.0.113.10" }] } } };
        case "kubernetes:gateway.networking.k8s.io/v1:Gateway":
            // The load balancer's address, as a Gateway controller reports it.
            return { status: { addresses: [lb.hostname !== undefined ? { type: "Hostname", value: lb.hostname } : { type: "IPAddress", value: lb.ip ?? "203.0.113.10" }] } };
        case "gcp:container/cluster:Cluster":
            // Without configured locations, a regional cluster's nodes go to zones GKE picks in the region.
            return {
                endpoint: "198.51.100.1",
                masterAuth: { clusterCaCertificate: Buffer.from("mock-ca").toString("base64") },
                nodeLocations: inputs.nodeLocations ?? ["a", "b", "c"].map((zone) => `${String(inputs.location)}-${zone}`),
            };
        case "gcp:serviceaccount/account:Account":
            return { email: `${inputs.accountId}@${inputs.project}.iam.gserviceaccount.com` };
        case "gcp:artifactregistry/repository:Repository":
            return { name: inputs.repositoryId };
        case "aws:iam/role:Role":
            return { name, arn: `arn:aws:iam::123456789012:role/${name}` };
        case "aws:eks/nodeGroup:NodeGroup":
            // EKS names the Auto Scaling group it makes for a managed node group (eks-<group>-<uuid>).
            return { resources: [{ autoscalingGroups: [{ name: `eks-${name}-00000000-0000-0000-0000-000000000000` }], remoteAccessSecurityGroupId: "" }] };
        case "aws:eks/cluster:Cluster":
            // Without a configured version EKS creates the cluster on its default one.
            return {
                version: inputs.version ?? "1.33", endpoint: "https://MOCK.gr7.us-west-2.eks.amazonaws.com", certificateAuthority: { data: Buffer.from("mock-ca").toString("base64") },
                arn: `arn:aws:eks:us-west-2:123456789012:cluster/${name}`,
                // EKS reports the VPC of the cluster's subnets.
                vpcConfig: { ...(inputs.vpcConfig as Record<string, unknown> | undefined), vpcId: "vpc-0a1b2c3d4e5f60789" },
            };
        default:
            return {};
    }
}

const IMAGE_TYPE = "docker:index/image:Image";

/** The registry lookups of an image's tag: the Docker registry's, ECR's and Artifact Registry's. */
const REGISTRY_LOOKUPS = new Set([
    "docker:index/getRegistryImage:getRegistryImage",
    "aws:ecr/getImage:getImage",
    "gcp:artifactregistry/getDockerImage:getDockerImage",
]);

/**
 * The mock registry holds what this run pushed and nothing else (a registry new to the stack, as in
 * a first `tfs plan`): a lookup of any other content tag fails, as a real registry answers 404. A base
 * image (`tensorflow/serving:2.21.0`, asked for its digest with `modelDelivery: imageVolume`) is in its
 * registry before any run: a tag that is no content tag is answered.
 */
function refuseUnpushedTag(token: string, args: Record<string, unknown>, pushed: Set<string>): void {
    const tag = typeof args.name === "string" ? imageTag(args.name) : undefined;
    if (REGISTRY_LOOKUPS.has(token) && !(tag !== undefined && !isContentTag(tag))) {
        const asked = JSON.stringify(args);
        if (![...pushed].some((tag) => asked.includes(`:${tag}`) || args.imageTag === tag)) {
            throw new Error(`${token}: 404 Not Found: the mock registry holds only the tags this run pushed (${asked})`);
        }
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
        case "aws:eks/getAddonVersion:getAddonVersion":
            return { ...args, version: `v0.0.0-${String(args.addonName)}-for-${String(args.kubernetesVersion)}-eksbuild.1` };
        case "aws:iam/getPolicyDocument:getPolicyDocument":
            return { json: "{}" };
        case "gcp:organizations/getProject:getProject":
            // A project number of the right shape: the Custom Metrics adapter's Workload Identity principal names it.
            return { ...args, number: "123456789012", name: String(args.projectId) };
        case "gcp:organizations/getClientConfig:getClientConfig":
            return { accessToken: "mock-gcp-access-token", project: "mock-project", region: "us-central1" };
        default:
            return {};
    }
}

type Path = (string | number)[];

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;

/** The mock's inputs with the SDK's secret markers removed, and the paths that carried one. */
function unwrapSecrets(value: unknown, path: Path, secrets: Path[]): unknown {
    if (pulumi.runtime.isRpcSecret(value)) {
        secrets.push(path);
        return unwrapSecrets(pulumi.runtime.unwrapRpcSecret(value), path, []);
    }
    if (Array.isArray(value)) {
        return value.map((v, i) => unwrapSecrets(v, [...path, i], secrets));
    }
    if (isPlainObject(value)) {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v, [...path, k], secrets)]));
    }
    return value;
}

/** Paths of the secret outputs among a resource's inputs as the program wrote them. */
async function secretOutputPaths(value: unknown, path: Path): Promise<Path[]> {
    if (pulumi.Output.isInstance(value)) {
        return (await pulumi.isSecret(value)) ? [path] : [];
    }
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : isPlainObject(value) ? Object.entries(value) : [];
    return (await Promise.all(entries.map(([k, v]) => secretOutputPaths(v, [...path, k])))).flat();
}

/**
 * `inputs` with the value at each secret path replaced by `[secret]`; where a path goes into a value
 * sent as text (a provider's JSON config), that whole value. Returns the paths replaced.
 */
function redact(inputs: Record<string, unknown>, secrets: Path[]): { redacted: Record<string, unknown>; paths: string[] } {
    const redacted = structuredClone(inputs);
    const paths = new Set<string>();
    for (const path of secrets) {
        let holder: Record<string | number, unknown> = redacted;
        for (let i = 0; i < path.length; i++) {
            const key = path[i];
            const next = holder[key];
            if (i === path.length - 1 || !(Array.isArray(next) || isPlainObject(next))) {
                if (key in holder) {
                    holder[key] = REDACTED;
                    paths.add(path.slice(0, i + 1).map((k, j) => (typeof k === "number" ? `[${k}]` : j === 0 ? k : `.${k}`)).join(""));
                }
                break;
            }
            holder = next as Record<string | number, unknown>;
        }
    }
    return { redacted, paths: [...paths] };
}

interface Options {
    parent?: string;
    dependsOn: string[];
    aliasNames: string[];
    aliasParents: Promise<string[]>;
    customTimeouts?: pulumi.CustomTimeouts;
    ignoreChanges?: string[];
    secrets: Promise<Path[]>;
}

/** `type::name` of the URN an alias names as the former parent. */
async function aliasParents(aliases: pulumi.ResourceOptions["aliases"]): Promise<string[]> {
    const parents = (aliases ?? []).map((a) => (typeof a === "object" && a !== null && "parent" in a ? a.parent : undefined))
        .filter((p) => p !== undefined && !pulumi.Resource.isInstance(p));
    const urns = await Promise.all(parents.map((p) => new Promise<string>((resolve) => pulumi.output(p as pulumi.Input<string>).apply((u) => { resolve(u); return u; }))));
    return urns.map((urn) => { const [, , types, name] = urn.split("::"); return `${types.split("$").pop()}::${name}`; });
}

/**
 * Installs the mock runtime recording into `recorder`, and returns the stack transformation that
 * records what only resource options say: register it on the stack the resources are created under.
 */
export async function installMocks(options: MockOptions, recorder: Recorder): Promise<pulumi.ResourceTransformation> {
    const names = new Map<pulumi.Resource, string>();
    const seen = new Map<string, Options>();
    const pushedTags = new Set<string>();
    pulumi.runtime.setAllConfig(options.config ?? {});
    await pulumi.runtime.setMocks({
        async newResource(args) {
            const marked: Path[] = [];
            const clear = unwrapSecrets(args.inputs ?? {}, [], marked) as Record<string, unknown>;
            if (args.type !== "pulumi:pulumi:Stack") {
                const opts = seen.get(`${args.type}::${args.name}`);
                const { redacted, paths: secretPaths } = redact(clear, opts ? await opts.secrets : marked);
                recorder.resources.push({
                    type: args.type,
                    name: args.name,
                    parent: opts?.parent,
                    custom: args.custom ?? true,
                    inputs: redacted,
                    rawInputs: clear,
                    secretPaths,
                    dependsOn: opts?.dependsOn ?? [],
                    aliasNames: opts?.aliasNames ?? [],
                    aliasParents: opts ? await opts.aliasParents : [],
                    ...(opts?.customTimeouts ? { customTimeouts: opts.customTimeouts } : {}),
                    ...(opts?.ignoreChanges ? { ignoreChanges: opts.ignoreChanges } : {}),
                });
            }
            if (args.type === IMAGE_TYPE && clear.skipPush !== true) {
                pushedTags.add(String(clear.imageName).replace(/^.*:/, ""));
            }
            const state = {
                ...clear,
                ...defaultState(args.type, args.name, clear, options.loadBalancer ?? {}),
                ...(options.state?.({ type: args.type, name: args.name, inputs: clear }) ?? {}),
            };
            return { id: args.custom === false ? "" : `${args.name}-id`, state };
        },
        call(args) {
            const inputs = (args.inputs ?? {}) as Record<string, unknown>;
            recorder.calls.push({ token: args.token, args: inputs });
            const answer = options.call?.(args.token, inputs);
            if (answer === undefined) {
                refuseUnpushedTag(args.token, inputs, pushedTags);
            }
            return { ...defaultCall(args.token, inputs), ...(answer ?? {}) };
        },
    }, options.project ?? "tf-serving", options.stack ?? "test", options.preview ?? false, "organization");

    const nameOf = (r: unknown) => (pulumi.Resource.isInstance(r) ? names.get(r) : undefined);
    return ({ resource, type, name, props, opts }) => {
        const key = `${type}::${name}`;
        names.set(resource, key);
        const dependsOn = Array.isArray(opts.dependsOn) ? opts.dependsOn : opts.dependsOn === undefined ? [] : [opts.dependsOn];
        seen.set(key, {
            // Resources at the top level are the stack's children: no parent in the record.
            parent: nameOf(opts.parent),
            dependsOn: dependsOn.map(nameOf).filter((d): d is string => d !== undefined),
            aliasNames: (opts.aliases ?? []).map((a) => (typeof a === "object" && a !== null && "name" in a && typeof a.name === "string" ? a.name : "")).filter((n) => n !== ""),
            customTimeouts: (opts as pulumi.CustomResourceOptions).customTimeouts,
            ignoreChanges: opts.ignoreChanges,
            aliasParents: aliasParents(opts.aliases),
            secrets: secretOutputPaths(props, []),
        });
        return undefined;
    };
}

/**
 * Runs `program` under mocks inside a stack, as the language host runs a program, and returns what
 * it registered and the stack's outputs (unknown ones left out). Throws what the program throws.
 */
export async function recordProgram(options: MockOptions, program: () => Promise<Record<string, unknown>>): Promise<{ recorder: Recorder; outputs: Record<string, unknown> }> {
    const recorder = new Recorder();
    const record = await installMocks(options, recorder);
    // The stack's outputs are several promises the SDK derives from one: had the program's error
    // rejected them, only the one awaited here would be handled and Node would end the process on
    // the others. The error is held instead, and thrown once the stack has settled.
    let failure: { error: unknown } | undefined;
    try {
        const outputs = await pulumi.runtime.runInPulumiStack(async () => {
            pulumi.runtime.registerStackTransformation(record);
            try {
                return await program();
            } catch (error) {
                failure = { error };
                return {};
            }
        });
        if (failure) {
            throw failure.error;
        }
        return { recorder, outputs: Object.fromEntries(Object.entries(outputs ?? {}).filter(([, v]) => v !== undefined)) };
    } finally {
        await pulumi.runtime.disconnect();
    }
}
