import * as assert from "assert";
import {
    checkGpuTolerations,
    checkImageDigests,
    checkLoadBalancerSourceRanges,
    checkMemoryLimits,
    checkProbes,
    checkRollingUpdate,
    isModelServerDeployment,
    isModelServerService,
    PUBLIC_ANNOTATION,
} from "../../../policy/checks";
import { DIGEST_IMAGE, firstContainer, goodDeployment, goodService } from "./fixtures";

describe("policy checks", () => {
    describe("which resources are the model server's", () => {
        it("selects Deployments labelled app.kubernetes.io/component: model-server, on themselves or their pods", () => {
            assert.strictEqual(isModelServerDeployment(goodDeployment()), true);
            const podsOnly = goodDeployment();
            delete podsOnly.metadata;
            assert.strictEqual(isModelServerDeployment(podsOnly), true);
            assert.strictEqual(isModelServerDeployment({ metadata: { labels: { "app.kubernetes.io/component": "cache" } } }), false);
            assert.strictEqual(isModelServerDeployment({}), false);
        });

        it("selects Services labelled so or selecting model-server pods", () => {
            assert.strictEqual(isModelServerService(goodService()), true);
            assert.strictEqual(isModelServerService({ spec: { selector: { "app.kubernetes.io/component": "model-server" } } }), true);
            assert.strictEqual(isModelServerService({ spec: { type: "LoadBalancer", selector: { app: "web" } } }), false);
        });
    });

    describe("memory limits", () => {
        it("passes containers with a memory limit", () => {
            assert.deepStrictEqual(checkMemoryLimits(goodDeployment()), []);
        });

        it("names each container without one", () => {
            const d = goodDeployment();
            firstContainer(d).resources = { requests: { memory: "1Gi" }, limits: { cpu: "1" } };
            const violations = checkMemoryLimits(d);
            assert.strictEqual(violations.length, 1);
            assert.match(violations[0], /^spec\.template\.spec\.containers\[0\] \("tf-serving"\) has no memory limit \(resources\.limits\.memory\)/);
            delete firstContainer(d).resources;
            assert.strictEqual(checkMemoryLimits(d).length, 1);
        });
    });

    describe("probes", () => {
        it("passes readiness plus liveness, or readiness plus startup", () => {
            assert.deepStrictEqual(checkProbes(goodDeployment()), []);
            const startupOnly = goodDeployment();
            delete firstContainer(startupOnly).livenessProbe;
            assert.deepStrictEqual(checkProbes(startupOnly), []);
        });

        it("requires a readiness probe", () => {
            const d = goodDeployment();
            delete firstContainer(d).readinessProbe;
            assert.deepStrictEqual(checkProbes(d).map((v) => v.split(":")[0]), ["spec.template.spec.containers[0] (\"tf-serving\") has no readinessProbe"]);
        });

        it("requires a liveness or startup probe", () => {
            const d = goodDeployment();
            delete firstContainer(d).livenessProbe;
            delete firstContainer(d).startupProbe;
            const violations = checkProbes(d);
            assert.strictEqual(violations.length, 1);
            assert.match(violations[0], /has neither a livenessProbe nor a startupProbe/);
        });

        it("refuses exec probes that run curl, which the image lacks", () => {
            const d = goodDeployment();
            firstContainer(d).livenessProbe = { exec: { command: ["/usr/bin/curl", "-f", "localhost:8501/v1/models/m"] } };
            const violations = checkProbes(d);
            assert.strictEqual(violations.length, 1);
            assert.match(violations[0], /livenessProbe runs \/usr\/bin\/curl, which the tensorflow\/serving image does not have/);
        });
    });

    describe("image digests", () => {
        it("passes images pinned by sha256 digest", () => {
            assert.deepStrictEqual(checkImageDigests(goodDeployment()), []);
        });

        it("refuses tags and short digests, in containers and init containers", () => {
            const d = goodDeployment();
            firstContainer(d).image = "tensorflow/serving:2.19.0";
            const spec = d.spec?.template?.spec;
            assert.ok(spec);
            spec.initContainers = [{ name: "fetch", image: "busybox@sha256:1234" }];
            const violations = checkImageDigests(d);
            assert.strictEqual(violations.length, 2);
            assert.match(violations[0], /^spec\.template\.spec\.containers\[0\] image "tensorflow\/serving:2\.19\.0" is not pinned by digest/);
            assert.match(violations[1], /^spec\.template\.spec\.initContainers\[0\] image "busybox@sha256:1234"/);
            firstContainer(d).image = undefined;
            assert.match(checkImageDigests(d)[0], /image "" is not pinned/);
        });

        it("reads each workload type's pod spec where that type keeps it", () => {
            const tagged = { name: "c", image: "nvcr.io/nvidia/k8s-device-plugin:v0.17.1" };
            const template = { spec: { template: { spec: { containers: [tagged] } } } };
            for (const type of ["kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:StatefulSet", "kubernetes:batch/v1:Job"]) {
                assert.deepStrictEqual(checkImageDigests(template, type).map((v) => v.split(" image")[0]), ["spec.template.spec.containers[0]"], type);
            }
            const cron = { spec: { jobTemplate: { spec: { template: { spec: { initContainers: [tagged] } } } } } };
            assert.match(checkImageDigests(cron, "kubernetes:batch/v1:CronJob")[0], /^spec\.jobTemplate\.spec\.template\.spec\.initContainers\[0\] image/);
            assert.match(checkImageDigests({ spec: { containers: [tagged] } }, "kubernetes:core/v1:Pod")[0], /^spec\.containers\[0\] image/);
            assert.deepStrictEqual(checkImageDigests({ spec: { containers: [{ image: DIGEST_IMAGE }] } }, "kubernetes:core/v1:Pod"), []);
            assert.deepStrictEqual(checkImageDigests(template, "kubernetes:core/v1:ConfigMap"), [], "not a workload");
        });
    });

    describe("rolling updates", () => {
        it("passes maxUnavailable 0 or 0% with a surge", () => {
            assert.deepStrictEqual(checkRollingUpdate(goodDeployment()), []);
            const percent = goodDeployment();
            percent.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "0%", maxSurge: "25%" } };
            assert.deepStrictEqual(checkRollingUpdate(percent), []);
            const defaultReplicas = goodDeployment();
            delete defaultReplicas.spec!.replicas;
            assert.deepStrictEqual(checkRollingUpdate(defaultReplicas), []);
        });

        it("refuses an unset or non-zero maxUnavailable", () => {
            const unset = goodDeployment();
            delete unset.spec!.strategy;
            assert.match(checkRollingUpdate(unset)[0], /maxUnavailable is unset \(Kubernetes then takes 25%\)/);
            const one = goodDeployment();
            one.spec!.strategy = { rollingUpdate: { maxUnavailable: 1 } };
            assert.match(checkRollingUpdate(one)[0], /maxUnavailable is 1: pods would stop/);
            const quarter = goodDeployment();
            quarter.spec!.strategy = { rollingUpdate: { maxUnavailable: "25%" } };
            assert.match(checkRollingUpdate(quarter)[0], /maxUnavailable is "25%"/);
        });

        it("lets GPU pods, and only them, go one at a time (maxSurge 0, maxUnavailable 1)", () => {
            const gpu = goodDeployment();
            firstContainer(gpu).resources = { limits: { "memory": "4Gi", "nvidia.com/gpu": 1 } };
            gpu.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
            assert.deepStrictEqual(checkRollingUpdate(gpu), []);
            const cpu = goodDeployment();
            cpu.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
            assert.match(checkRollingUpdate(cpu)[0], /maxUnavailable is 1: pods would stop/);
            const gpuTwo = goodDeployment();
            firstContainer(gpuTwo).resources = { limits: { "memory": "4Gi", "nvidia.com/gpu": 1 } };
            gpuTwo.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } };
            assert.match(checkRollingUpdate(gpuTwo)[0], /maxUnavailable is 2/);
            const gpuBoth = goodDeployment();
            firstContainer(gpuBoth).resources = { limits: { "memory": "4Gi", "nvidia.com/gpu": 1 } };
            gpuBoth.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } };
            assert.match(checkRollingUpdate(gpuBoth)[0], /maxUnavailable is 1/, "one-at-a-time is for pools with no room to surge");
        });

        it("refuses Recreate, zero replicas and a rollout that cannot progress", () => {
            const recreate = goodDeployment();
            recreate.spec!.strategy = { type: "Recreate" };
            assert.match(checkRollingUpdate(recreate)[0], /spec\.strategy\.type is Recreate/);
            const zero = goodDeployment();
            zero.spec!.replicas = 0;
            assert.deepStrictEqual(checkRollingUpdate(zero), ["spec.replicas is 0: the model server must run at least 1 replica"]);
            const stuck = goodDeployment();
            stuck.spec!.strategy = { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } };
            assert.match(checkRollingUpdate(stuck)[0], /maxSurge is 0 while maxUnavailable is 0/);
        });
    });

    describe("GPU tolerations", () => {
        const withGpu = (tolerations?: Array<Record<string, string>>) => {
            const d = goodDeployment();
            firstContainer(d).resources = { limits: { "memory": "4Gi", "nvidia.com/gpu": 1 } };
            d.spec!.template!.spec!.tolerations = tolerations;
            return d;
        };

        it("passes CPU pods, and GPU pods that tolerate the nvidia.com/gpu taint", () => {
            assert.deepStrictEqual(checkGpuTolerations(goodDeployment()), []);
            assert.deepStrictEqual(checkGpuTolerations(withGpu([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }])), []);
            assert.deepStrictEqual(checkGpuTolerations(withGpu([{ key: "nvidia.com/gpu", operator: "Equal", value: "present" }])), []);
            assert.deepStrictEqual(checkGpuTolerations(withGpu([{ operator: "Exists" }])), []);
        });

        it("refuses GPU requests without a matching toleration", () => {
            const violations = checkGpuTolerations(withGpu());
            assert.strictEqual(violations.length, 1);
            assert.match(violations[0], /containers\[0\] \("tf-serving"\) asks for nvidia\.com\/gpu but spec\.template\.spec\.tolerations has none/);
            assert.strictEqual(checkGpuTolerations(withGpu([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoExecute" }])).length, 1);
            assert.strictEqual(checkGpuTolerations(withGpu([{ key: "dedicated", operator: "Exists" }])).length, 1);
        });

        it("counts GPUs in requests too, as strings or numbers, and ignores zero", () => {
            const d = goodDeployment();
            firstContainer(d).resources = { requests: { "nvidia.com/gpu": "2" }, limits: { memory: "1Gi" } };
            assert.strictEqual(checkGpuTolerations(d).length, 1);
            firstContainer(d).resources = { limits: { "nvidia.com/gpu": 0, "memory": "1Gi" } };
            assert.deepStrictEqual(checkGpuTolerations(d), []);
        });
    });

    describe("load balancer source ranges", () => {
        it("passes restricted ranges, the annotation form, non-LoadBalancer Services and deliberate public ones", () => {
            assert.deepStrictEqual(checkLoadBalancerSourceRanges(goodService()), []);
            const annotated = goodService();
            delete annotated.spec!.loadBalancerSourceRanges;
            annotated.metadata!.annotations = { "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, 192.0.2.0/24" };
            assert.deepStrictEqual(checkLoadBalancerSourceRanges(annotated), []);
            assert.deepStrictEqual(checkLoadBalancerSourceRanges({ spec: { type: "ClusterIP" } }), []);
            const open = goodService();
            open.spec!.loadBalancerSourceRanges = [];
            open.metadata!.annotations = { [PUBLIC_ANNOTATION]: "true" };
            assert.deepStrictEqual(checkLoadBalancerSourceRanges(open), []);
        });

        it("refuses a LoadBalancer open to everyone without the annotation", () => {
            const none = goodService();
            delete none.spec!.loadBalancerSourceRanges;
            assert.match(checkLoadBalancerSourceRanges(none)[0], /spec\.loadBalancerSourceRanges is empty.*tf-serving\.dev\/public: "true"/);
            const everyone = goodService();
            everyone.spec!.loadBalancerSourceRanges = ["203.0.113.0/24", "0.0.0.0/0"];
            assert.match(checkLoadBalancerSourceRanges(everyone)[0], /includes 0\.0\.0\.0\/0, which admits every address/);
            const notQuite = goodService();
            notQuite.metadata!.annotations = { [PUBLIC_ANNOTATION]: "yes" };
            notQuite.spec!.loadBalancerSourceRanges = ["::/0"];
            assert.strictEqual(checkLoadBalancerSourceRanges(notQuite).length, 1);
        });
    });
});
