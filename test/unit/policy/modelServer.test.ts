import * as assert from "assert";
import * as k8s from "@pulumi/kubernetes";
import { ModelServer, ModelServerArgs } from "../../../components/modelServer";
import { poolPlacement } from "../../../components/nodePlacement";
import { startMockRuntime } from "../../support/mockRuntime";
import {
    checkGpuTolerations,
    checkImageDigests,
    checkLoadBalancerSourceRanges,
    checkMemoryLimits,
    checkProbes,
    checkRollingUpdate,
    DeploymentProps,
    isModelServerDeployment,
    isModelServerService,
    ServiceProps,
} from "../../../policy/checks";
import { DIGEST_IMAGE } from "./fixtures";

/** What the ModelServer component registers must pass the pack it is checked with (the two are written apart). */
describe("ModelServer under the policy pack", () => {
    const render = async (args: Partial<ModelServerArgs>) => {
        const rec = await startMockRuntime({});
        new ModelServer("half-plus-two", {
            model: { name: "half-plus-two", versionBytes: [300 * 2 ** 20] },
            namespace: "serving",
            image: DIGEST_IMAGE,
            loadBalancerSourceRanges: ["203.0.113.0/24"],
            ...args,
        }, { provider: new k8s.Provider("test", {}) });
        await rec.settle();
        return {
            deployment: rec.one("kubernetes:apps/v1:Deployment").inputs as DeploymentProps,
            service: rec.one("kubernetes:core/v1:Service").inputs as ServiceProps,
        };
    };
    const deploymentViolations = (d: DeploymentProps) => [
        checkMemoryLimits, checkProbes, checkImageDigests, checkRollingUpdate, checkGpuTolerations,
    ].flatMap((check) => check(d));

    it("labels its Deployment and Service so the pack selects them, and passes every policy", async () => {
        const { deployment, service } = await render({});
        assert.ok(isModelServerDeployment(deployment));
        assert.ok(isModelServerService(service));
        assert.deepStrictEqual(deploymentViolations(deployment), []);
        assert.deepStrictEqual(checkLoadBalancerSourceRanges(service), []);
    });

    it("passes on GPU nodes with the GPU placement, and as a deliberately public endpoint", async () => {
        const { deployment, service } = await render({
            resources: { gpuCount: 1 }, placement: poolPlacement().gpu, loadBalancerSourceRanges: [], publicEndpoint: true,
        });
        assert.deepStrictEqual(deploymentViolations(deployment), []);
        assert.deepStrictEqual(checkLoadBalancerSourceRanges(service), []);
    });

    it("passes rolling GPU pods one at a time, as the stack does on a GPU pool with no GPU to spare", async () => {
        const { deployment } = await render({ resources: { gpuCount: 1 }, placement: poolPlacement().gpu, replicas: 2, rollout: "oneAtATime" });
        assert.deepStrictEqual(deployment.spec?.strategy?.rollingUpdate, { maxUnavailable: 1, maxSurge: 0 });
        assert.deepStrictEqual(deploymentViolations(deployment), []);
    });

    it("is caught when a GPU model lacks the toleration or an open endpoint is not marked public", async () => {
        const { deployment, service } = await render({ resources: { gpuCount: 1 }, loadBalancerSourceRanges: [] });
        assert.strictEqual(checkGpuTolerations(deployment).length, 1);
        assert.strictEqual(checkLoadBalancerSourceRanges(service).length, 1);
    });
});
