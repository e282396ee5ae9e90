/**
 * The multi-language facade (facade/): what a YAML or Python program's arguments become for the
 * library's components, and the one-line refusals of what the schema cannot check.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as lib from "../../../lib/components";
import { toEksClusterArgs } from "../../../facade/eksCluster";
import * as enums from "../../../facade/enums";
import { toGkeClusterArgs } from "../../../facade/gkeCluster";
import { toModelGatewayArgs } from "../../../facade/modelGateway";
import { toModelImageArgs } from "../../../facade/modelImage";
import { toModelMonitoringArgs } from "../../../facade/modelMonitoring";
import { toModelServerArgs } from "../../../facade/modelServer";
import { fixtureModelDir } from "../../support/fixtures";

const MODEL_DIR = fixtureModelDir("half_plus_two_cpu");
const values = (e: object) => Object.values(e);

describe("the multi-language facade", () => {
    describe("enums", () => {
        it("spell the library's lists, in their order", () => {
            assert.deepStrictEqual(values(enums.Collector), [...lib.COLLECTORS]);
            assert.deepStrictEqual(values(enums.ReleaseChannel), [...lib.GKE_RELEASE_CHANNELS]);
            assert.deepStrictEqual(values(enums.BootDiskType), [...lib.GKE_BOOT_DISK_TYPES]);
            assert.deepStrictEqual(values(enums.CapacityType), [...lib.CAPACITY_TYPES]);
            assert.deepStrictEqual(values(enums.NatGateways), [...lib.NAT_GATEWAY_MODES]);
            assert.deepStrictEqual(values(enums.SubnetScheme), [...lib.SUBNET_SCHEMES]);
            assert.deepStrictEqual(values(enums.ModelDelivery), [...lib.MODEL_DELIVERIES]);
        });
    });

    describe("ModelServer", () => {
        const base = { modelName: "half-plus-two", modelDir: MODEL_DIR, namespace: "serving", image: "r/m@sha256:ab" };

        it("sizes the pods from the model folder's served versions, as the library's preflight reads them", () => {
            const args = toModelServerArgs("m", base);
            assert.strictEqual(args.model.name, "half-plus-two");
            assert.strictEqual(args.model.versionBytes.length, 1);
            assert.ok(args.model.versionBytes[0] > 0);
            assert.strictEqual(args.batching, undefined);
            assert.strictEqual(args.placement, undefined);
        });

        it("maps the enums, the pool and batching onto the library's arguments", () => {
            const args = toModelServerArgs("m", {
                ...base, rollout: enums.Rollout.OneAtATime, serviceType: enums.ServiceType.ClusterIP, pool: enums.Pool.Gpu,
                gpuCount: 1, batchingParametersText: "max_batch_size { value: 8 }",
            });
            assert.deepStrictEqual([args.rollout, args.serviceType], ["oneAtATime", "ClusterIP"]);
            assert.deepStrictEqual(args.placement, lib.poolPlacement().gpu);
            assert.deepStrictEqual(args.batching, { enabled: true, parametersText: "max_batch_size { value: 8 }" });
            assert.strictEqual(args.resources?.gpuCount, 1);
        });

        it("refuses a value outside the enum, a relative folder and a folder TF Serving could not load, in one line each", () => {
            assert.throws(() => toModelServerArgs("m", { ...base, rollout: "fast" as enums.Rollout }),
                /^Error: ModelServer "m" rollout: "fast" is not one of surge, oneAtATime \(see docs\/guides\/other-languages\.md#arguments\)$/);
            assert.throws(() => toModelServerArgs("m", { ...base, modelDir: "models/x" }),
                /ModelServer "m" modelDir: "models\/x" is not an absolute path; .*\$\{pulumi\.cwd\}.*other-languages\.md#paths/);
            assert.throws(() => toModelServerArgs("m", { ...base, modelDir: path.join(MODEL_DIR, "00000123") }),
                /ModelServer "m" modelDir: TF Serving could not load .*\(run `tfs preflight` on it/);
        });

        it("takes the model delivery and the artifact as the library does, and refuses a delivery outside the enum", () => {
            const artifact = `r/m@sha256:${"a".repeat(64)}`;
            const args = toModelServerArgs("m", { ...base, modelDelivery: enums.ModelDelivery.ImageVolume, modelArtifact: artifact });
            assert.deepStrictEqual([args.modelDelivery, args.modelArtifact], ["imageVolume", artifact]);
            assert.deepStrictEqual([toModelServerArgs("m", base).modelDelivery, toModelServerArgs("m", base).modelArtifact], [undefined, undefined], "the library's default");
            assert.throws(() => toModelServerArgs("m", { ...base, modelDelivery: "volume" as enums.ModelDelivery }),
                /^Error: ModelServer "m" modelDelivery: "volume" is not one of embedded, imageVolume \(see docs\/guides\/other-languages\.md#arguments\)$/);
        });

        it("takes extraServerArgs as the library's list, and refuses one string instead of spreading it a character per flag", () => {
            const flags = ["--rest_api_timeout_in_ms=30000"];
            assert.deepStrictEqual(toModelServerArgs("m", { ...base, extraServerArgs: flags }).extraServerArgs, flags);
            assert.strictEqual(toModelServerArgs("m", base).extraServerArgs, undefined);
            const asString = { ...base, extraServerArgs: "--rest_api_timeout_in_ms=30000" as unknown as string[] };
            assert.throws(() => toModelServerArgs("m", asString), (err: Error) => {
                assert.strictEqual(err.message, 'ModelServer "m": extraServerArgs is the string "--rest_api_timeout_in_ms=30000", not a list: ' +
                    'give a list, one item each, e.g. extraServerArgs: ["--rest_api_timeout_in_ms=30000"] (see docs/guides/other-languages.md#arguments)');
                return true;
            });
            const withNumber = { ...base, extraServerArgs: ["--rest_api_timeout_in_ms=30000", 5] as unknown as string[] };
            assert.throws(() => toModelServerArgs("m", withNumber), /^Error: ModelServer "m": extraServerArgs\[1\] is 5, not a string: give a list/);
        });
    });

    describe("ModelServer golden", () => {
        const base = { modelName: "half-plus-two", modelDir: MODEL_DIR, namespace: "serving", image: "r/m@sha256:ab" };
        let dir: string;
        before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-facade-golden-")); });
        after(() => fs.rmSync(dir, { recursive: true, force: true }));

        it("reads the golden file and hands it to the library's ModelServer with the served versions' signatures", () => {
            const file = path.join(dir, "golden.jsonl");
            fs.writeFileSync(file, JSON.stringify({ request: { instances: [1] }, expected: { y: [2.5] } }));
            const args = toModelServerArgs("m", { ...base, golden: file });
            assert.deepStrictEqual(args.golden, { file, text: fs.readFileSync(file, "utf8") });
            assert.deepStrictEqual(Object.keys(args.model.signatures?.[0] ?? {}).includes("serving_default"), true);
        });

        it("refuses a relative path and a file it cannot read, in one line each", () => {
            assert.throws(() => toModelServerArgs("m", { ...base, golden: "golden.jsonl" }), /ModelServer "m" golden: "golden\.jsonl" is not an absolute path/);
            assert.throws(() => toModelServerArgs("m", { ...base, golden: path.join(dir, "none.jsonl") }), /^Error: ModelServer "m" golden: .*none\.jsonl: cannot read it \(ENOENT\)/);
        });
    });

    describe("ModelImage", () => {
        it("bakes the served versions into a context under the program's folder", () => {
            const args = toModelImageArgs("img", {
                modelName: "half-plus-two", modelDir: MODEL_DIR, imageName: "127.0.0.1:5000/m",
                registry: { server: "127.0.0.1:5000" }, projectDir: "/work/program",
            });
            assert.deepStrictEqual(args.versions, [123]);
            assert.deepStrictEqual([args.contextDir, args.projectDir, args.modelPath], [".tfs/build/half-plus-two", "/work/program", MODEL_DIR]);
            assert.strictEqual(args.registryDigest, undefined, "the library's default lookup");
            assert.strictEqual(args.modelDelivery, undefined, "the library's default, embedded");
            const volume = toModelImageArgs("img", {
                modelName: "half-plus-two", modelDir: MODEL_DIR, imageName: "127.0.0.1:5000/m", registry: { server: "127.0.0.1:5000" }, projectDir: "/work/program",
                modelDelivery: enums.ModelDelivery.ImageVolume,
            });
            assert.strictEqual(volume.modelDelivery, "imageVolume");
        });
    });

    describe("ModelGateway and ModelMonitoring", () => {
        it("map the platform, the collector, and thresholds over the library's defaults", () => {
            const arn = "arn:aws:acm:us-east-1:111122223333:certificate/x";
            const gateway = toModelGatewayArgs("g", { modelName: "m", namespace: "s", className: "traefik", platform: enums.GatewayPlatform.Eks, certificateArn: arn, canary: true });
            assert.deepStrictEqual([gateway.model, gateway.platform, gateway.platform === "eks" && gateway.certificateArn, gateway.canary], ["m", "eks", arn, true]);
            assert.throws(() => toModelGatewayArgs("g", { modelName: "m", namespace: "s", className: "traefik", platform: enums.GatewayPlatform.Eks }),
                /ModelGateway "g": certificateArn is required with platform eks/);
            const gke = toModelGatewayArgs("g", { modelName: "m", namespace: "s", className: "gke-l7", platform: enums.GatewayPlatform.Gke, certificateArn: arn, certificateMap: "map" });
            assert.deepStrictEqual(gke, {
                model: "m", namespace: "s", className: "gke-l7", tlsSecretName: undefined, canary: undefined, platform: "gke", certificateMap: "map",
                sourceRanges: undefined, securityPolicy: undefined,
            },
                "an EKS-only field is not passed to a GKE Gateway");
            const monitoring = toModelMonitoringArgs("mon", {
                modelName: "m", namespace: "s", collector: enums.Collector.PrometheusOperator, thresholds: { restarts: 9, p99LatencyMs: undefined },
            });
            assert.deepStrictEqual(monitoring.thresholds, { ...lib.DEFAULT_THRESHOLDS, restarts: 9 });
            assert.strictEqual(monitoring.collector, "prometheus-operator");
        });
    });

    describe("GkeCluster", () => {
        it("maps the pools and the adapter image", () => {
            const pool = { machineType: "e2-standard-4", minNodes: 1, maxNodes: 3, diskSizeGb: 100, spot: false };
            const args = toGkeClusterArgs("c", {
                project: "p", region: "us-central1", clusterName: "team", cpuPool: { ...pool, diskType: enums.BootDiskType.PdSsd },
                gpuPool: { ...pool, acceleratorType: "nvidia-l4", acceleratorCount: 1, driverVersion: enums.GpuDriverVersion.Latest },
                customMetricsAdapterImage: "a@sha256:00",
            });
            assert.strictEqual(args.cpuPool.diskType, "pd-ssd");
            assert.deepStrictEqual([args.gpuPool?.driverVersion, args.gpuPool?.diskType], ["LATEST", undefined]);
            assert.deepStrictEqual(args.customMetricsAdapter, { image: "a@sha256:00" });
            assert.strictEqual(args.releaseChannel, undefined, "the library's default");
        });
    });

    describe("EksCluster", () => {
        const group = { instanceType: "m6i.xlarge", desiredNodes: 2, minNodes: 1, maxNodes: 3, diskSizeGb: 50, capacityType: enums.CapacityType.OnDemand };
        const base = { region: "us-west-2", clusterName: "team", adminPrincipalArns: ["arn:aws:iam::1:role/ci"], cpuNodeGroup: group };

        it("turns the network interface into the library's union by its kind", () => {
            const created = toEksClusterArgs("c", { ...base, network: { kind: enums.NetworkKind.Create, cidr: "10.0.0.0/16", zones: ["a", "b"], natGateways: enums.NatGateways.Single } });
            assert.deepStrictEqual(created.network, { kind: "create", cidr: "10.0.0.0/16", zones: ["a", "b"], natGateways: "single", subnetScheme: undefined, clusterZones: undefined });
            const existing = toEksClusterArgs("c", { ...base, network: { kind: enums.NetworkKind.Existing, privateSubnetIds: ["p"], publicSubnetIds: ["q"] } });
            assert.deepStrictEqual(existing.network, { kind: "existing", privateSubnetIds: ["p"], publicSubnetIds: ["q"] });
        });

        it("refuses another kind's fields, a missing field, and a GatewayClass without the controller", () => {
            assert.throws(() => toEksClusterArgs("c", { ...base, network: { kind: enums.NetworkKind.Existing, cidr: "10.0.0.0/16", privateSubnetIds: [], publicSubnetIds: [] } }),
                /EksCluster "c" network: cidr only go with kind create, and this network is kind existing; remove them/);
            assert.throws(() => toEksClusterArgs("c", { ...base, network: { kind: enums.NetworkKind.Create, cidr: "10.0.0.0/16", zones: ["a", "b"] } }),
                /EksCluster "c" network: kind create needs natGateways/);
            assert.throws(() => toEksClusterArgs("c", { ...base, network: { kind: enums.NetworkKind.Existing, privateSubnetIds: [], publicSubnetIds: [] }, gatewayClassName: "alb" }),
                /gatewayClassName needs loadBalancerController: true/);
        });
    });
});
