import * as assert from "assert";
import {
    ALB_GATEWAY_CONTROLLER, CONTROLLER_SERVICE_ACCOUNT, LOAD_BALANCER_CONTROLLER, PolicyStatement, albGatewayClass, controllerChartValues,
    controllerCrdManifests, loadBalancerControllerPolicy, podIdentityTrustPolicy,
} from "../../../../../components/clouds/aws/loadBalancerController";

const POLICY = loadBalancerControllerPolicy("aws");
const actionsOf = (s: PolicyStatement) => s.Action;
const grants = (action: string) => POLICY.Statement.filter((s) => actionsOf(s).includes(action));

describe("AWS Load Balancer Controller: pinned release, chart values, IAM", () => {
    it("pins one release: chart 3.5.0 with its controller image v3.5.0, and the Gateway API CRDs that release requires (v1.6.0)", () => {
        assert.deepStrictEqual(
            [LOAD_BALANCER_CONTROLLER.chart, LOAD_BALANCER_CONTROLLER.chartVersion, `${LOAD_BALANCER_CONTROLLER.image}:${LOAD_BALANCER_CONTROLLER.imageTag}`, LOAD_BALANCER_CONTROLLER.gatewayApiVersion],
            ["aws-load-balancer-controller", "3.5.0", "public.ecr.aws/eks/aws-load-balancer-controller:v3.5.0", "v1.6.0"]);
        // The image tag is the chart's appVersion: v + the chart version.
        assert.strictEqual(LOAD_BALANCER_CONTROLLER.imageTag, `v${LOAD_BALANCER_CONTROLLER.chartVersion}`);
    });

    it("pins a release that serves the jwt-validation action gateway.auth renders (first in v2.17.1)", () => {
        // kubernetes-sigs/aws-load-balancer-controller: apis/gateway/v1beta1/listenerruleconfig_types.go has no
        // jwt-validation ActionType at v2.17.0 and has it at v2.17.1, with buildJwtValidationAction in
        // pkg/gateway/routeutils/route_rule_action.go; at v3.5.0 in apis/gateway/v1 too (the storage version), and in
        // config/crd/gateway/gateway-crds.yaml, which controllerCrdManifests applies. v3.5.0 is the newest release.
        const version = (tag: string) => tag.replace(/^v/, "").split(".").map(Number);
        const atLeast = (tag: string, since: string) => {
            const [a, b] = [version(tag), version(since)];
            const i = a.findIndex((n, k) => n !== b[k]);
            return i < 0 || a[i] > b[i];
        };
        assert.ok(atLeast(LOAD_BALANCER_CONTROLLER.imageTag, "v2.17.1"), LOAD_BALANCER_CONTROLLER.imageTag);
        assert.ok(!atLeast("v2.17.0", "v2.17.1") && atLeast("v3.0.0", "v2.17.1"));
        assert.ok(controllerCrdManifests().some((m) => m.url.endsWith(`/${LOAD_BALANCER_CONTROLLER.imageTag}/config/crd/gateway/gateway-crds.yaml`)));
    });

    it("applies the CRDs from release files at the pinned tags, never a moving branch", () => {
        const manifests = controllerCrdManifests();
        assert.deepStrictEqual(manifests.map((m) => m.url), [
            "https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.6.0/standard-install.yaml",
            "https://raw.githubusercontent.com/kubernetes-sigs/aws-load-balancer-controller/v3.5.0/helm/aws-load-balancer-controller/crds/crds.yaml",
            "https://raw.githubusercontent.com/kubernetes-sigs/aws-load-balancer-controller/v3.5.0/config/crd/gateway/gateway-crds.yaml",
        ]);
        const bumped = controllerCrdManifests({ ...LOAD_BALANCER_CONTROLLER, imageTag: "v3.6.0", gatewayApiVersion: "v1.7.0" } as unknown as typeof LOAD_BALANCER_CONTROLLER);
        assert.ok(bumped.every((m) => /\/v3\.6\.0\/|\/v1\.7\.0\//.test(m.url)), "the URLs follow the pinned versions");
    });

    it("chart values: the cluster, region and VPC, the pinned image, the chart's service account, ALB Gateway API on, no Service takeover", () => {
        const values = controllerChartValues({ clusterName: "tf-serving", region: "eu-west-1", vpcId: "vpc-0a1b2c3d4e5f60789" });
        assert.deepStrictEqual(values, {
            clusterName: "tf-serving",
            region: "eu-west-1",
            vpcId: "vpc-0a1b2c3d4e5f60789",
            image: { repository: "public.ecr.aws/eks/aws-load-balancer-controller", tag: "v3.5.0" },
            serviceAccount: { create: true, name: "aws-load-balancer-controller" },
            controllerConfig: { featureGates: { ALBGatewayAPI: true } },
            enableServiceMutatorWebhook: false,
            defaultTargetType: "ip",
        });
        assert.deepStrictEqual(CONTROLLER_SERVICE_ACCOUNT, { namespace: "kube-system", name: "aws-load-balancer-controller" });
    });

    it("trust: EKS Pod Identity's service principal, assume and tag session only", () => {
        assert.deepStrictEqual(podIdentityTrustPolicy(), {
            Version: "2012-10-17",
            Statement: [{ Effect: "Allow", Principal: { Service: "pods.eks.amazonaws.com" }, Action: ["sts:AssumeRole", "sts:TagSession"] }],
        });
    });

    it("policy: no wildcard action, and the service-linked role for Elastic Load Balancing only", () => {
        assert.strictEqual(POLICY.Version, "2012-10-17");
        for (const action of POLICY.Statement.flatMap(actionsOf)) {
            assert.match(action, /^[a-z0-9-]+:[A-Za-z]+$/, `a named action: ${action}`);
        }
        const [slr] = grants("iam:CreateServiceLinkedRole");
        assert.deepStrictEqual(slr.Condition, { StringEquals: { "iam:AWSServiceName": "elasticloadbalancing.amazonaws.com" } });
    });

    it("policy: load balancers and target groups are created only carrying the controller's cluster tag, and changed or deleted only where it is", () => {
        for (const action of ["elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"]) {
            assert.deepStrictEqual(grants(action).map((s) => s.Condition), [{ Null: { "aws:RequestTag/elbv2.k8s.aws/cluster": "false" } }], action);
        }
        for (const action of ["DeleteLoadBalancer", "DeleteTargetGroup", "ModifyLoadBalancerAttributes", "SetSecurityGroups", "ModifyTargetGroup"]) {
            assert.deepStrictEqual(grants(`elasticloadbalancing:${action}`).map((s) => s.Condition), [{ Null: { "aws:ResourceTag/elbv2.k8s.aws/cluster": "false" } }], action);
        }
        const deleteSg = grants("ec2:DeleteSecurityGroup");
        assert.deepStrictEqual(deleteSg.map((s) => s.Condition), [{ Null: { "aws:ResourceTag/elbv2.k8s.aws/cluster": "false" } }]);
        // Tags on security groups are written only at their creation, or on ones the controller already tagged.
        assert.deepStrictEqual(grants("ec2:CreateTags").map((s) => s.Resource), ["arn:aws:ec2:*:*:security-group/*", "arn:aws:ec2:*:*:security-group/*"]);
    });

    it("policy: has what v3.x calls besides the older policies (security groups for the VPC, listener attributes, rule priorities)", () => {
        for (const action of ["ec2:GetSecurityGroupsForVpc", "elasticloadbalancing:DescribeListenerAttributes", "elasticloadbalancing:ModifyListenerAttributes",
            "elasticloadbalancing:SetRulePriorities", "elasticloadbalancing:DescribeTrustStores", "acm:DescribeCertificate"]) {
            assert.ok(grants(action).length > 0, action);
        }
    });

    it("policy: ARNs in the region's partition, and small enough for an inline role policy (10,240 characters)", () => {
        const gov = JSON.stringify(loadBalancerControllerPolicy("aws-us-gov"));
        assert.ok(!gov.includes("arn:aws:"), "no commercial-partition ARN in GovCloud");
        assert.ok(gov.includes("arn:aws-us-gov:elasticloadbalancing:*:*:targetgroup/*/*"));
        assert.ok(JSON.stringify(POLICY).length < 10_240, `${JSON.stringify(POLICY).length} characters`);
    });

    it("a GatewayClass of the controller's ALBs", () => {
        assert.deepStrictEqual(albGatewayClass("tf-serving-alb"), {
            apiVersion: "gateway.networking.k8s.io/v1", kind: "GatewayClass", metadata: { name: "tf-serving-alb" }, spec: { controllerName: "gateway.k8s.aws/alb" },
        });
        assert.strictEqual(ALB_GATEWAY_CONTROLLER, "gateway.k8s.aws/alb");
    });
});
