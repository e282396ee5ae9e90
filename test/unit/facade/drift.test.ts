/**
 * One vocabulary: each facade component's arguments (facade/*.ts) against the library arguments its
 * conversion (`toModelServerArgs`, ...) returns, read by the TypeScript compiler. A facade field has
 * the library field's name, or an entry below saying where it goes and why; every library field is
 * reached or listed as left out, with the reason; a default the facade documents is the library's
 * (its defaults constant where one exists); the facade's enums spell the library's unions. The same
 * differences are what docs/guides/other-languages.md#arguments tells a YAML or Python user.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { ArgsComparer, Drift, DriftTables, appliedDefaults, ownProgram, staleEntries, under } from "../../support/argsDrift";
import { GKE_CLUSTER_DEFAULTS } from "../../../components/clouds/gcp/cluster";
import { EKS_CLUSTER_DEFAULTS } from "../../../components/clouds/aws/cluster";
import { LIST_DATE, eksStandardVersionsOn } from "../../../components/clouds/aws/kubernetesVersions";
import { DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS } from "../../../serving/autoscaling";
import { DEFAULT_THRESHOLDS } from "../../../observability/alerts";

const ROOT = path.resolve(__dirname, "../../..");
const FACADE = path.join(ROOT, "facade");
/** The folders the facade and the library's Args types live in (the program reads only these). */
const OWN = ["facade", "lib", "components", "config", "serving", "observability", "contract", "model"];

const KEPT = "kept for compatibility: the multi-language package keeps `modelName` and `modelDir` (CHANGELOG, Unreleased, Library)";
const FLAT_RESOURCES = "flat, as the stack configuration's model keys are: the pod's `resources` object is the library's grouping";

/** The differences, each with its reason. A key is `Component.field`; an omitted key names the library's field. */
const TABLES: DriftTables = {
    renamed: {
        "ModelImage.modelName": { to: "model", why: KEPT },
        "ModelImage.modelDir": { to: "modelPath", why: `${KEPT}; the folder is read as TF Serving reads it, its served versions become \`versions\`` },
        "ModelServer.modelName": { to: "model.name", why: KEPT },
        "ModelServer.modelDir": { to: "model.versionBytes", why: `${KEPT}; the folder is read (preflight) into \`model\`: sizes, warmup records, signatures` },
        "ModelServer.versions": { to: "model.versionBytes", why: "the versions served: the folder's are read, their sizes become `model.versionBytes`" },
        "ModelServer.cpu": { to: "resources.cpu", why: FLAT_RESOURCES },
        "ModelServer.memoryRequest": { to: "resources.memoryRequest", why: FLAT_RESOURCES },
        "ModelServer.memoryLimit": { to: "resources.memoryLimit", why: FLAT_RESOURCES },
        "ModelServer.gpuCount": { to: "resources.gpuCount", why: FLAT_RESOURCES },
        "ModelServer.pool": { to: "placement", why: "a pool's name: `poolPlacement()` gives the library's selector and tolerations for it" },
        "ModelServer.batchingParametersText": { to: "batching.parametersText", why: "flat beside `batching` (a boolean), instead of its object" },
        "ModelGateway.modelName": { to: "model", why: KEPT },
        "ModelGateway.iapClientId": { to: "iap.clientID", why: "flat beside the platform's other fields, as the `platform` enum's are" },
        "ModelGateway.iapOauthSecretName": { to: "iap.oauth2ClientSecretName", why: "flat beside the platform's other fields, as the `platform` enum's are" },
        "ModelGateway.jwtIssuer": { to: "auth.issuer", why: "flat: `auth` is a union keyed by `type`, which the schema cannot carry" },
        "ModelGateway.jwtJwksEndpoint": { to: "auth.jwksEndpoint", why: "flat: `auth` is a union keyed by `type`, which the schema cannot carry" },
        "ModelMonitoring.modelName": { to: "model", why: KEPT },
        "GkeCluster.customMetricsAdapterImage": { to: "customMetricsAdapter.image", why: "the adapter's one setting, flat" },
        "EksCluster.gatewayClassName": { to: "loadBalancerController.gatewayClassName", why: "flat: `loadBalancerController` is a boolean in the facade" },
    },
    omitted: {
        "ModelImage.modelName": "the library's deprecated name for `model`",
        "ModelImage.modelBaseDir": "the library's deprecated name for `modelPath`",
        "ModelImage.registryDigest": "a function, which the schema cannot carry: the registry's v2 API is asked",
        "ModelImage.registryProbe": "a function, which the schema cannot carry: the registry's v2 API is asked",
        "ModelImage.previousImage": "a record the schema cannot carry: the facade reads it from the stack's checkpoint (facade/previousImage.ts)",
        "ModelImage.warmup": "a union (`requests` or `golden`) the schema cannot carry: the model folder's own warmup file is baked",
        "ModelServer.canary": "its gates read a live cluster through a dynamic provider the plugin does not run: TypeScript only",
        "ModelServer.cluster": "the HPA's deletion before autoscaling is turned off reaches the cluster with the ambient kubeconfig, checked against the Deployment's uid; a kubeconfig of its own: TypeScript only",
        "ModelServer.imagePullCredentials": "TypeScript only: the nodes pull with their own identity (GKE's and EKS's node roles)",
        "ModelServer.requestRateMetric": "a metric reference the cluster's TypeScript component hands over: TypeScript only",
        "ModelGateway.basicAuthSecret": "the facade takes the callers' lines (`basicAuthUsers`) and writes the Secret itself",
        "ModelMonitoring.namespaceRef": "a resource output for ordering: a YAML or Python program orders with `dependsOn`",
        "EksCluster.callerArn": "the stack reads the deployer from STS; a facade program lists every identity in `adminPrincipalArns`",
        "EksCluster.liveDesiredSizes": "the stack reads them from EKS before an update; a facade program has no such read",
        "EksCluster.prometheusAdapter": "the EKS stack's request-rate autoscaling: TypeScript only",
        "EksCluster.devicePluginImage": "a mirror of NVIDIA's image: TypeScript only",
    },
    facadeDefaults: {
        "ModelImage.contextDir": "the library takes it required (the stack names it per stack and model); a facade program gets one per model",
        "ModelGateway.iapClientId": "only when its pair is given: the empty value is the library's check to refuse",
        "ModelGateway.iapOauthSecretName": "only when its pair is given: the empty value is the library's check to refuse",
        "ModelGateway.jwtIssuer": "only when its pair is given: the empty value is the library's check to refuse",
        "ModelGateway.jwtJwksEndpoint": "only when its pair is given: the empty value is the library's check to refuse",
        "ModelMonitoring.thresholds": "no threshold given: the spread keeps every one of `DEFAULT_THRESHOLDS`",
    },
};

/** The library's defaults constants, by component and library path (`""`: the Args). */
const CONSTANTS: Record<string, Record<string, Record<string, unknown>>> = {
    GkeCluster: { "": GKE_CLUSTER_DEFAULTS },
    EksCluster: { "": EKS_CLUSTER_DEFAULTS },
    ModelServer: { autoscaling: { scaleDownStabilizationSeconds: DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS } },
    ModelMonitoring: { thresholds: { ...DEFAULT_THRESHOLDS } },
};

function tsFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? tsFiles(path.join(dir, e.name))
        : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path.join(dir, e.name)] : []);
}

/** A facade file's conversion `toXArgs(name, args): library.XArgs`: the component, the facade's Args and the library's. */
interface Conversion {
    component: string;
    source: ts.SourceFile;
    facade: ts.Type;
    library: ts.Type;
}

function conversions(program: ts.Program, facadeDir: string): Conversion[] {
    const checker = program.getTypeChecker();
    return program.getSourceFiles().filter((s) => under(facadeDir, s.fileName)).flatMap((source) => source.statements.flatMap((statement) => {
        const component = ts.isFunctionDeclaration(statement) && statement.name !== undefined ? /^to(\w+)Args$/.exec(statement.name.text)?.[1] : undefined;
        if (component === undefined) {
            return [];
        }
        const fn = statement as ts.FunctionDeclaration;
        const args = fn.parameters[fn.parameters.length - 1];
        return [{ component, source, facade: checker.getTypeAtLocation(args), library: checker.getReturnTypeOfSignature(checker.getSignatureFromDeclaration(fn)!) }];
    }));
}

/** Every drift of the facade under `facadeDir`, the tables' stale entries included. */
function drifts(program: ts.Program, facadeDir: string, tables: DriftTables, constants: typeof CONSTANTS): { found: Drift[]; components: string[] } {
    const checker = program.getTypeChecker();
    const isFacadeType = (t: ts.Type) => (t.getSymbol()?.declarations ?? []).some((d) => under(facadeDir, d.getSourceFile().fileName));
    const used = new Set<string>();
    const found: Drift[] = [];
    const all = conversions(program, facadeDir);
    for (const { component, source, facade, library } of all) {
        found.push(...new ArgsComparer(checker, component, tables, constants[component] ?? {}, isFacadeType, used).compare(facade, library));
        found.push(...appliedDefaults(source, component, tables, used));
    }
    found.push(...staleEntries(tables, used));
    return { found, components: all.map((c) => c.component) };
}

const lines = (found: Drift[]) => found.map((d) => `${d.component}.${d.field}: ${d.problem}`);

describe("the facade's arguments against the library's (one vocabulary)", function () {
    this.timeout(60_000);
    let program: ts.Program;

    before(() => {
        program = ownProgram(OWN.flatMap((d) => tsFiles(path.join(ROOT, d))));
    });

    it("has the library's names, defaults and enum values for every component, or a listed reason", () => {
        const { found, components } = drifts(program, FACADE, TABLES, CONSTANTS);
        assert.deepStrictEqual([...components].sort(), ["EksCluster", "GkeCluster", "ModelGateway", "ModelImage", "ModelMonitoring", "ModelServer"]);
        assert.deepStrictEqual(lines(found), []);
    });

    it("names every rename and every field left out in the user's docs (other-languages.md, Arguments)", () => {
        const doc = fs.readFileSync(path.join(ROOT, "docs/guides/other-languages.md"), "utf8");
        const row = (component: string) => doc.split("\n").find((l) => l.startsWith(`| \`${component}\` |`)) ?? "";
        const missing = [...Object.keys(TABLES.renamed), ...Object.keys(TABLES.omitted)].filter((key) => {
            const [component, field] = [key.slice(0, key.indexOf(".")), key.slice(key.indexOf(".") + 1).split(".")[0]];
            return !row(component).includes(`\`${field}\``);
        });
        assert.deepStrictEqual(missing, []);
    });

    it("gives a Kubernetes version as example that EKS supports without the extended-support charge", () => {
        const checker = program.getTypeChecker();
        const eks = conversions(program, FACADE).find((c) => c.component === "EksCluster")!;
        const examples = [eks.facade, eks.library].map((t) => {
            const doc = ts.displayPartsToString(checker.getPropertyOfType(t, "kubernetesVersion")!.getDocumentationComment(checker));
            return /e\.g\. `([0-9.]+)`/.exec(doc)?.[1];
        });
        const standard = eksStandardVersionsOn(LIST_DATE).map((v) => v.version);
        assert.deepStrictEqual(examples.filter((e) => e === undefined || !standard.includes(e)), [], `standard support on ${LIST_DATE}: ${standard.join(", ")}`);
        assert.strictEqual(examples[0], examples[1]);
    });

    describe("the comparer, on a facade that drifted", () => {
        const files: Record<string, string> = {
            "/drift/library/args.ts": `
                export interface ServerArgs {
                    /** The model's name. */
                    model: string;
                    /** Pods. Default 2. */
                    replicas?: number;
                    /** Kubernetes minor version, e.g. \`1.35\`. */
                    kubernetesVersion?: string;
                    /** How pods are replaced. */
                    rollout?: "surge" | "oneAtATime";
                    /** @deprecated Since 0.3.0: \`model\`. */
                    modelName?: string;
                    /** The registry's login. */
                    credentials?: string;
                }`,
            "/drift/facade/server.ts": `
                import * as library from "../library/args";
                export enum Rollout { Surge = "surge" }
                export interface ServerArgs {
                    /** The model's name. */
                    modelName: string;
                    /** Pods. Default 3. */
                    replicas?: number;
                    /** Kubernetes minor version, e.g. \`1.33\`. */
                    kubernetesVersion?: string;
                    /** How pods are replaced. */
                    rollout?: Rollout;
                    /** The model folder. */
                    modelDir: string;
                }
                export function toServerArgs(name: string, args: ServerArgs): library.ServerArgs {
                    return { model: args.modelName, replicas: args.replicas, kubernetesVersion: args.kubernetesVersion ?? "1.33", rollout: args.rollout };
                }`,
        };
        const host = (): ts.CompilerHost => {
            const real = ts.createCompilerHost({});
            return {
                ...real,
                fileExists: (f) => files[f] !== undefined || real.fileExists(f),
                directoryExists: (d) => Object.keys(files).some((f) => f.startsWith(`${d}/`)) || (real.directoryExists?.(d) ?? false),
                readFile: (f) => files[f] ?? real.readFile(f),
                getSourceFile: (f, language) => files[f] !== undefined ? ts.createSourceFile(f, files[f], language, true) : real.getSourceFile(f, language),
            };
        };
        const none: DriftTables = { renamed: {}, omitted: {}, facadeDefaults: {} };

        it("reports each kind of drift, one line each", () => {
            const { found } = drifts(ownProgram(Object.keys(files), host()), "/drift/facade",
                { ...none, renamed: { "Server.gone": { to: "gone", why: "a stale entry" } } }, {});
            assert.deepStrictEqual(lines(found), [
                "Server.modelName: maps to the library's deprecated modelName: map it to the field that replaces it",
                "Server.replicas: documents the default \"3\"; the library's replicas has \"2\" (its doc comment)",
                "Server.kubernetesVersion: gives the example 1.33; the library's kubernetesVersion gives 1.35",
                "Server.rollout: is the enum surge; the library's rollout takes oneAtATime, surge",
                "Server.modelDir: has no library field modelDir: name it as the library does, or list it as renamed with the reason",
                "Server.model: the library's field has no facade field: add one of the same name, or list it as omitted with the reason",
                "Server.credentials: the library's field has no facade field: add one of the same name, or list it as omitted with the reason",
                "Server.kubernetesVersion: the facade applies its own default (\"1.33\"): use the library's constant, or list it as the facade's own default with the reason",
                "Server.gone: the renamed table's entry matches nothing: remove it",
            ]);
        });

        it("compares a documented default with the library's constant before its doc comment", () => {
            const { found } = drifts(ownProgram(Object.keys(files), host()), "/drift/facade", none, { Server: { "": { replicas: 3 } } });
            assert.ok(!lines(found).some((l) => l.startsWith("Server.replicas")), lines(found).join("\n"));
        });
    });
});
