import * as assert from "assert";
import { STATE_SCHEMA } from "../../../stacks/stateRecords";
import { DeployedSettings, liveChanges } from "../../../config/liveChanges";
import type { EksDeployed, GkeDeployed } from "../../../components/clouds/registry";
import { expands } from "../../../components/clouds/gcp/liveChanges";
import { eksSettingsOf, subnetSchemeFor } from "../../../components/clouds/aws/liveChanges";
import { readConfig } from "../../../config/config";
import { ROOT, exampleConfig } from "../../support/cloudMocks";

const GKE: GkeDeployed = {
    project: "my-project", region: "us-central1", clusterName: "tf-serving", deletionProtection: true, privateNodes: false, subnetCidr: "10.0.0.0/20",
};
const EKS: EksDeployed = {
    region: "us-west-2", clusterName: "tf-serving", deletionProtection: true, kubernetesVersion: "1.32",
    network: { kind: "create", cidr: "10.0.0.0/16", zones: ["us-west-2a", "us-west-2b"], subnetScheme: "slots", clusterZones: ["us-west-2a", "us-west-2b"] },
    repositories: ["tf-serving/half-plus-two"],
    forceDelete: false,
};
const gke = (edit: Partial<GkeDeployed> = {}): DeployedSettings => ({ schema: STATE_SCHEMA, cloud: "gcp", gke: { ...GKE, ...edit } });
const eks = (edit: Partial<EksDeployed> = {}): DeployedSettings => ({ schema: STATE_SCHEMA, cloud: "aws", eks: { ...EKS, ...edit } });
const zones = (list: string[], edit: Partial<Extract<EksDeployed["network"], { kind: "create" }>> = {}): Partial<EksDeployed> =>
    ({ network: { ...(EKS.network as Extract<EksDeployed["network"], { kind: "create" }>), zones: list, ...edit } });

/** The refused keys of a transition, and the single issue's text when there is one. */
function refused(from: DeployedSettings, to: DeployedSettings): { keys: string[]; text: string } {
    const { issues } = liveChanges(from, to);
    return { keys: issues.map((i) => i.key), text: issues.map((i) => `${i.key} = ${JSON.stringify(i.value)}: ${i.expected}`).join("\n") };
}

describe("liveChanges: a change to a running stack (deployed settings A, then config B)", () => {
    it("the same settings pass, on both clouds", () => {
        assert.deepStrictEqual(liveChanges(gke(), gke()), { issues: [], warnings: [] });
        assert.deepStrictEqual(liveChanges(eks(), eks()), { issues: [], warnings: [] });
    });

    it("another cloud is refused: every resource would be replaced", () => {
        const { keys, text } = refused(gke(), eks());
        assert.deepStrictEqual(keys, ["cloud"]);
        assert.match(text, /deployed on gcp.*new stack/);
    });

    describe("GKE", () => {
        it("privateNodes false -> true is refused for the masterCidr it brings (ForceNew), with both values and the way out (a new clusterName)", () => {
            const { keys, text } = refused(gke(), gke({ privateNodes: true, masterCidr: "172.16.0.0/28" }));
            assert.deepStrictEqual(keys, ["gke.privateNodes"]);
            // terraform-provider-google resource_container_cluster.go: enable_private_nodes is updated in place
            // (DesiredDefaultEnablePrivateNodes), master_ipv4_cidr_block is ForceNew.
            assert.match(text, /^gke\.privateNodes = true: changed from false on the running stack: the provider turns private nodes on in place, but .*gke\.masterCidr \(172\.16\.0\.0\/28\).*master_ipv4_cidr_block forces a new one/);
            assert.match(text, /deleted first under the same name/);
            assert.match(text, /new name in the same change/);
        });

        it("privateNodes true -> false is applied in place with a warning (the NAT goes); masterCidr changed on private nodes is refused", () => {
            const priv = { privateNodes: true, masterCidr: "172.16.0.0/28" };
            const off = liveChanges(gke(priv), gke());
            assert.deepStrictEqual(off.issues, []);
            assert.match(off.warnings.join("\n"), /^gke\.privateNodes: true -> false is applied in place .*Cloud NAT/);
            const moved = refused(gke(priv), gke({ ...priv, masterCidr: "172.16.0.16/28" }));
            assert.deepStrictEqual(moved.keys, ["gke.masterCidr"]);
            assert.match(moved.text, /master_ipv4_cidr_block forces a new one/);
        });

        it("a private cluster renamed keeps nothing of the old control plane range: the same masterCidr is refused, another passes", () => {
            const priv = { deletionProtection: false, privateNodes: true, masterCidr: "172.16.0.0/28" };
            const same = refused(gke(priv), gke({ ...priv, clusterName: "tf-serving-2" }));
            assert.deepStrictEqual(same.keys, ["gke.masterCidr"]);
            assert.match(same.text, /^gke\.masterCidr = "172\.16\.0\.0\/28": changed from "172\.16\.0\.0\/28" on the running stack: unchanged, but the new cluster "tf-serving-2" is created beside "tf-serving"/);
            assert.match(same.text, /e\.g\. "172\.16\.0\.16\/28"/);
            assert.deepStrictEqual(refused(gke(priv), gke({ ...priv, clusterName: "tf-serving-2", masterCidr: "172.16.0.16/28" })).keys, []);
            assert.deepStrictEqual(refused(gke({ deletionProtection: false }), gke({ ...priv, clusterName: "tf-serving-2" })).keys, [], "a public cluster has no range in the network");
        });

        it("subnetCidr: widening the block in place passes; another range is refused", () => {
            assert.deepStrictEqual(refused(gke(), gke({ subnetCidr: "10.0.0.0/19" })).keys, []);
            const { keys, text } = refused(gke(), gke({ subnetCidr: "10.1.0.0/20" }));
            assert.deepStrictEqual(keys, ["gke.subnetCidr"]);
            assert.match(text, /changed from "10\.0\.0\.0\/20".*only an expansion/);
            assert.match(text, /does not overlap the old one/);
            assert.ok(expands("10.0.16.0/20", "10.0.0.0/19"));
            assert.ok(!expands("10.0.0.0/19", "10.0.0.0/20"), "a smaller block is no expansion");
            assert.ok(!expands("10.0.0.0/20", "10.0.32.0/19"), "a larger block elsewhere is no expansion");
        });

        it("a new clusterName: refused while the running cluster is protected from deletion; with protection off, allowed with a warning, and then the fixed settings may change", () => {
            const renamed = { clusterName: "tf-serving-2", privateNodes: true, masterCidr: "172.16.0.0/28" };
            const { keys, text } = refused(gke(), gke(renamed));
            assert.deepStrictEqual(keys, ["gke.clusterName"]);
            assert.match(text, /deletion protection .* Set gke\.deletionProtection: false and run `pulumi up` once/);
            const unprotected = liveChanges(gke({ deletionProtection: false }), gke(renamed));
            assert.deepStrictEqual(unprotected.issues, []);
            assert.match(unprotected.warnings.join("\n"), /creates a new cluster.*address changes/);
        });

        it("project and region are refused; releaseChannel-like keys are not recorded, so never refused", () => {
            assert.deepStrictEqual(refused(gke(), gke({ region: "europe-west4" })).keys, ["gke.region"]);
            assert.deepStrictEqual(refused(gke(), gke({ project: "other-project" })).keys, ["gke.project"]);
            assert.deepStrictEqual(refused(gke(), gke({ deletionProtection: false })).keys, [], "deletion protection changes in place");
        });
    });

    describe("EKS", () => {
        it("kubernetesVersion: one minor up passes; two is refused with the next step; a downgrade is refused; unset keeps what runs", () => {
            assert.deepStrictEqual(refused(eks(), eks({ kubernetesVersion: "1.33" })).keys, []);
            const jump = refused(eks(), eks({ kubernetesVersion: "1.34" }));
            assert.deepStrictEqual(jump.keys, ["eks.kubernetesVersion"]);
            assert.match(jump.text, /= "1\.34": changed from "1\.32" .* one minor version at a time\. Set "1\.33"/);
            const down = refused(eks(), eks({ kubernetesVersion: "1.31" }));
            assert.deepStrictEqual(down.keys, ["eks.kubernetesVersion"]);
            assert.match(down.text, /never downgrades/);
            assert.deepStrictEqual(refused(eks(), eks({ kubernetesVersion: undefined })).keys, []);
        });

        it("zones: appending passes (slots) and says it replaces both node groups; removing or reordering is refused with the zones to keep", () => {
            const appended = liveChanges(eks(), eks(zones(["us-west-2a", "us-west-2b", "us-west-2c"])));
            assert.deepStrictEqual(appended.issues, []);
            // terraform-provider-aws internal/service/eks/node_group.go: subnet_ids is ForceNew.
            assert.match(appended.warnings.join("\n"), /^eks\.zones: appending us-west-2c replaces both node groups .*rescheduled once.*GPU quota\) must cover twice/);
            const removed = refused(eks(), eks(zones(["us-west-2a"])));
            assert.deepStrictEqual(removed.keys, ["eks.zones"]);
            assert.match(removed.text, /only subnets in the zones it was created with.*Keep \["us-west-2a","us-west-2b"\] first/);
            assert.deepStrictEqual(refused(eks(), eks(zones(["us-west-2b", "us-west-2a"]))).keys, ["eks.zones"]);
            assert.deepStrictEqual(refused(eks(), eks(zones(["us-west-2c", "us-west-2a", "us-west-2b"]))).keys, ["eks.zones"], "prepending moves every slot");
        });

        it("privateSubnetIds changed on existing subnets: in place on the cluster, with the node groups' replacement said", () => {
            const existing = (ids: string[]) => eks({ network: { kind: "existing", privateSubnetIds: ids, publicSubnetIds: [] } });
            const changed = liveChanges(existing(["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]), existing(["subnet-0aaaaaaaaaaaaaaaa", "subnet-0cccccccccccccccc"]));
            assert.deepStrictEqual(changed.issues, []);
            assert.match(changed.warnings.join("\n"), /^eks\.privateSubnetIds: .* replaces both node groups/);
        });

        it("zones: appending to a VPC carved by zone count (an earlier version's) is refused: every subnet would move", () => {
            const byCount = (list: string[]) => eks(zones(list, { subnetScheme: "byCount" }));
            const { keys, text } = refused(byCount(["us-west-2a", "us-west-2b"]), byCount(["us-west-2a", "us-west-2b", "us-west-2c"]));
            assert.deepStrictEqual(keys, ["eks.zones"]);
            assert.match(text, /earlier version for its zone count/);
        });

        it("vpcCidr change and a switch to existing subnets are refused: EKS never moves VPC", () => {
            const cidr = refused(eks(), eks(zones(EKS.network.kind === "create" ? EKS.network.zones : [], { cidr: "10.1.0.0/16" })));
            assert.deepStrictEqual(cidr.keys, ["eks.vpcCidr"]);
            assert.match(cidr.text, /changed from "10\.0\.0\.0\/16".*never moves a cluster to another VPC/);
            const existing = refused(eks(), eks({ network: { kind: "existing", privateSubnetIds: ["subnet-0aaaaaaaaaaaaaaa1", "subnet-0aaaaaaaaaaaaaaa2"], publicSubnetIds: [] } }));
            assert.deepStrictEqual(existing.keys, ["eks.privateSubnetIds"]);
        });

        it("a model removed or another repositoryPrefix: refused unless the repositories may go with their images (ECR refuses otherwise)", () => {
            const two = eks({ repositories: ["tf-serving/half-plus-two", "tf-serving/other"] });
            const { keys, text } = refused(two, eks());
            assert.deepStrictEqual(keys, ["eks.registry.forceDelete"]);
            assert.match(text, /delete the ECR repositories tf-serving\/other .* Set eks\.registry\.forceDelete: true and run `pulumi up` once before/);
            assert.deepStrictEqual(refused(eks({ repositories: ["tf-serving/half-plus-two", "tf-serving/other"], forceDelete: true }), eks()).keys, []);
            assert.deepStrictEqual(refused(eks(), eks({ repositories: ["team/half-plus-two"] })).keys, ["eks.registry.forceDelete"]);
            assert.deepStrictEqual(refused(eks(), two).keys, [], "a model added creates its repository");
        });

        it("a new clusterName follows deletion protection, as on GKE; region is refused", () => {
            assert.deepStrictEqual(refused(eks(), eks({ clusterName: "other" })).keys, ["eks.clusterName"]);
            assert.deepStrictEqual(refused(eks({ deletionProtection: false }), eks({ clusterName: "other" })).keys, []);
            assert.deepStrictEqual(refused(eks(), eks({ region: "eu-west-1" })).keys, ["eks.region"]);
        });
    });

    describe("what is recorded", () => {
        const config = readConfig(exampleConfig("aws-example"), "tf-serving", ROOT);
        assert.ok(config.cloud === "aws");

        it("endpoint loadBalancer <-> gateway passes with a warning: the load balancer is replaced, at a new address", () => {
            const toGateway = liveChanges(eks(), eks({ endpoint: "gateway" }));
            assert.deepStrictEqual(toGateway.issues, []);
            assert.strictEqual(toGateway.warnings.length, 1);
            assert.match(toGateway.warnings[0], /^endpoint: "loadBalancer" -> "gateway" replaces the models' load balancer: the Service's Network Load Balancer is deleted and an Application Load Balancer/);
            assert.match(toGateway.warnings[0], /new address \(clients must follow restUrl and grpcEndpoint, now https\)/);
            const back = liveChanges(eks({ endpoint: "gateway" }), eks());
            assert.match(back.warnings.join("\n"), /^endpoint: "gateway" -> "loadBalancer" .*the AWS Load Balancer Controller are deleted/);
            assert.deepStrictEqual(liveChanges(eks({ endpoint: "gateway" }), eks({ endpoint: "gateway" })).warnings, []);
        });

        it("the record says endpoint only for a Gateway (a record without it, as every earlier one, means the NLB)", () => {
            assert.ok(!("endpoint" in eksSettingsOf(config.eks, ["half-plus-two"], { kind: "new" })));
            assert.strictEqual(eksSettingsOf(config.eks, ["half-plus-two"], { kind: "new" }, "gateway").endpoint, "gateway");
        });

        it("a new stack gets slots; a stack of an earlier version keeps byCount; a record keeps its scheme and the cluster's zones", () => {
            assert.strictEqual(subnetSchemeFor({ kind: "new" }), "slots");
            assert.strictEqual(subnetSchemeFor({ kind: "unknown" }), "slots");
            assert.strictEqual(subnetSchemeFor({ kind: "unrecorded" }), "byCount");
            const recorded = eks(zones(["us-west-2a", "us-west-2b"], { subnetScheme: "byCount", clusterZones: ["us-west-2a"] }));
            const next = eksSettingsOf(config.eks, ["half-plus-two"], { kind: "recorded", settings: recorded });
            assert.deepStrictEqual(next.repositories, ["tf-serving/half-plus-two"]);
            assert.deepStrictEqual(next.network, {
                kind: "create", cidr: "10.0.0.0/16", zones: ["us-west-2a", "us-west-2b"], subnetScheme: "byCount", clusterZones: ["us-west-2a"],
            });
            assert.deepStrictEqual((eksSettingsOf(config.eks, ["half-plus-two"], { kind: "new" }).network as { clusterZones: string[] }).clusterZones, ["us-west-2a", "us-west-2b"]);
        });
    });
});
