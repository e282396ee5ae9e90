/**
 * gRPC through the LoadBalancer, as a client sees it: one channel, 2 replicas, a few hundred
 * Predict calls, and each pod's share read from its own request count (TF Serving's
 * `:tensorflow:serving:request_latency_count{entrypoint="GRPC"}` on the pod's metrics path).
 * An L4 load balancer balances connections, not requests: a channel is one HTTP/2 connection, so
 * every call lands on one pod however many replicas there are. This scenario records that
 * (issue 17); gateway.test.ts shows the Gateway spreading each request.
 */
import * as assert from "assert";
import { E2eProject, MODEL, createProject, kubectl } from "../support/e2eProject";
import { grpcBalance } from "../support/grpcTraffic";

const REQUESTS = 300;

describe("gRPC Predict through the LoadBalancer: one channel, 2 replicas", function () {
    this.timeout(15 * 60 * 1000);
    let project: E2eProject;

    before(async () => {
        project = await createProject();
        project.setConfig({ replicas: 2 });
    });

    after(async () => {
        await project?.dispose();
    });

    it(`${REQUESTS} Predicts on one channel all land on one pod (L4 balances connections)`, async () => {
        const up = await project.pulumi.up();
        assert.strictEqual(up.summary.result, "succeeded");
        const grpcEndpoint = up.outputs.grpcEndpoint as string;
        assert.match(grpcEndpoint, /:8500$/);
        const pods = (kubectl("get", "pods", "-n", project.namespace, "-l", `app.kubernetes.io/instance=${MODEL}`).items as { status: { podIP: string } }[])
            .map((p) => p.status.podIP);
        assert.strictEqual(pods.length, 2, "two replicas");
        const report = await grpcBalance(grpcEndpoint, { tls: false }, MODEL, pods, REQUESTS);
        console.log(JSON.stringify({ grpc: { loadBalancer: report } }));
        assert.strictEqual(report.failed, 0);
        assert.strictEqual(report.podCounts.reduce((a, b) => a + b, 0), REQUESTS, `every Predict counted once: ${report.podCounts}`);
        assert.strictEqual(Math.max(...report.podCounts), REQUESTS, `one channel, one connection, one pod: ${report.podCounts}`);
    });
});
