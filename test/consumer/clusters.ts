/**
 * Another team's program that makes its own clusters with the packed library: a `GkeCluster` and an
 * `EksCluster` from their required fields alone, every other field left to the components' defaults.
 */
import { EksCluster } from "tf-serving/eks";
import { GkeCluster } from "tf-serving/gke";

const gke = new GkeCluster("gke", {
    project: "team-project",
    region: "us-central1",
    clusterName: "team",
    cpuPool: { machineType: "e2-standard-4", minNodes: 1, maxNodes: 3, diskSizeGb: 100, spot: false },
});

const eks = new EksCluster("eks", {
    region: "us-west-2",
    clusterName: "team",
    network: { kind: "create", cidr: "10.0.0.0/16", zones: ["us-west-2a", "us-west-2b"], natGateways: "single" },
    adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"],
    cpuNodeGroup: { instanceType: "m6i.xlarge", desiredNodes: 2, minNodes: 1, maxNodes: 4, diskSizeGb: 50, capacityType: "ON_DEMAND" },
});

export const gkeClusterName = gke.clusterName;
export const eksClusterName = eks.clusterName;
