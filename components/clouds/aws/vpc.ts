/**
 * The network of an EKS cluster: a VPC with a public and a private subnet in each zone, an internet
 * gateway, NAT for the private subnets, and the subnet tags Kubernetes uses to place load balancers
 * (`kubernetes.io/role/elb` public, `kubernetes.io/role/internal-elb` private).
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { formatIpv4Cidr, ipv4BlockProblem, parseIpv4Cidr } from "../../../contract/cidr";
import { argsError } from "../../refusal";
import type { ArgsIssue } from "../../argsIssues";
import { FieldKey, oneOfIssue, sameField, zoneIssues } from "../../clusterRules";

export const NAT_GATEWAY_MODES = ["single", "perZone"] as const;
export type NatGatewayMode = (typeof NAT_GATEWAY_MODES)[number];

/** Largest and smallest VPC AWS allows (also the smallest subnet). */
const MIN_VPC_PREFIX = 16;
const MAX_SUBNET_PREFIX = 28;

/**
 * How a VPC's range is carved into subnets:
 * - `slots` (every VPC this version creates): zone N of `eks.zones` always gets slot N, whatever the
 *   zone count. The VPC is cut in eight blocks; private slot N is block N (nodes and pods: the VPC
 *   CNI gives every pod a VPC address), public slot N is the Nth eighth of the last block (load
 *   balancers, NAT). Appending a zone adds two subnets and moves none.
 * - `byCount`: the layout of earlier versions, sized for the zone count (two zones: public /19;
 *   three: /20), kept for the VPCs they created: a subnet's CIDR cannot change in place, and its
 *   replacement is refused by EC2 (the new one overlaps the old) and by EKS (only subnets in the zones
 *   it was created with).
 */
export const SUBNET_SCHEMES = ["slots", "byCount"] as const;
export type SubnetScheme = (typeof SUBNET_SCHEMES)[number];

export interface SubnetLayout {
    private: string[];
    public: string[];
}

/**
 * Carves `vpcCidr` for `zones` zones with `scheme`. Returns a problem text instead when the CIDR is
 * not an aligned IPv4 block or is too small.
 */
export function subnetLayout(vpcCidr: string, zones: number, scheme: SubnetScheme = "slots"): SubnetLayout | string {
    const problem = ipv4BlockProblem(vpcCidr, MIN_VPC_PREFIX, MAX_SUBNET_PREFIX);
    if (problem !== undefined) {
        return problem;
    }
    const { base, prefix } = parseIpv4Cidr(vpcCidr)!;
    // slots: eight blocks (six private slots, one spare, one cut in eight public slots).
    const blockBits = scheme === "slots" ? 3 : Math.ceil(Math.log2(zones + 1));
    const publicBits = scheme === "slots" ? 3 : Math.ceil(Math.log2(zones));
    const publicPrefix = prefix + blockBits + publicBits;
    if (publicPrefix > MAX_SUBNET_PREFIX) {
        const largest = `/${MAX_SUBNET_PREFIX - blockBits - publicBits}`;
        return scheme === "slots"
            ? `is too small for a subnet slot per zone (public subnets would be /${publicPrefix}, AWS allows /${MAX_SUBNET_PREFIX} at most); use a ${largest} or larger such as "10.0.0.0/16"`
            : `is too small for ${zones} zones (public subnets would be /${publicPrefix}, AWS allows /${MAX_SUBNET_PREFIX} at most); use a ${largest} or larger such as "10.0.0.0/16"`;
    }
    const blockPrefix = prefix + blockBits;
    const blockSize = 2 ** (32 - blockPrefix);
    const lastBlock = base + (2 ** blockBits - 1) * blockSize;
    const publicSize = 2 ** (32 - publicPrefix);
    return {
        private: Array.from({ length: zones }, (_, i) => formatIpv4Cidr(base + i * blockSize, blockPrefix)),
        public: Array.from({ length: zones }, (_, i) => formatIpv4Cidr(lastBlock + i * publicSize, publicPrefix)),
    };
}

export interface EksVpcArgs {
    /** EKS cluster name, for the `kubernetes.io/cluster/<name>` subnet tag. */
    clusterName: string;
    /** VPC range, e.g. `10.0.0.0/16`. */
    cidr: string;
    /** Availability zones, one public and one private subnet each (EKS needs at least two). */
    zones: string[];
    /** One NAT gateway for all zones (cheaper) or one per zone (survives a zone outage). */
    natGateways: NatGatewayMode;
    /** How the range is carved (`subnetLayout`); default `slots`. `byCount` only for a VPC an earlier version created. */
    subnetScheme?: SubnetScheme;
}

/** How many availability zones a VPC made here spans: EKS needs two; the subnet slots hold six. */
export const EKS_ZONES = { min: 2, max: 6 } as const;
/** An EKS cluster name, which the subnets' `kubernetes.io/cluster/NAME` tag carries. */
export const EKS_CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A VPC's zones (two to six, of `region`; the first zone's region when none is given), NAT mode,
 * subnet scheme and a range its subnets fit in, each under `prefix` + field (pure). `EksCluster`'s
 * resolver checks its `network` with it.
 */
export function vpcIssues(prefix: string, vpc: { cidr?: string; zones?: string[]; natGateways?: NatGatewayMode; subnetScheme?: SubnetScheme },
    region: string | undefined, key: FieldKey = sameField): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const push = (issue: ArgsIssue | undefined) => issue && issues.push(issue);
    const zones = Array.isArray(vpc.zones) ? vpc.zones : [];
    if (zones.length < EKS_ZONES.min || zones.length > EKS_ZONES.max) {
        push({ field: `${prefix}zones`, value: vpc.zones, message: `must list ${EKS_ZONES.min} to ${EKS_ZONES.max} availability zones (EKS requires two)` });
    }
    const zoneRegion = region ?? (typeof zones[0] === "string" ? zones[0].replace(/[a-z]$/, "") : "");
    issues.push(...zoneIssues(`${prefix}zones`, zones, zoneRegion, new RegExp(`^${escapeRegExp(zoneRegion)}[a-z]$`), `${zoneRegion || "us-west-2"}a`, key));
    push(oneOfIssue(`${prefix}natGateways`, vpc.natGateways, NAT_GATEWAY_MODES));
    const scheme = vpc.subnetScheme ?? "slots";
    push(oneOfIssue(`${prefix}subnetScheme`, scheme, SUBNET_SCHEMES));
    const layout = (SUBNET_SCHEMES as readonly string[]).includes(scheme) ? subnetLayout(vpc.cidr ?? "", Math.max(zones.length, EKS_ZONES.min), scheme) : undefined;
    if (typeof layout === "string") {
        push({ field: `${prefix}cidr`, value: vpc.cidr, message: layout });
    }
    return issues;
}

/** What is wrong with `EksVpc`'s arguments, each under its field (pure). */
export function eksVpcIssues(args: EksVpcArgs): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    if (typeof args.clusterName !== "string" || !EKS_CLUSTER_NAME.test(args.clusterName)) {
        issues.push({ field: "clusterName", value: args.clusterName, message: "must be 1-100 letters, digits, '-' and '_', starting with a letter or digit (the cluster's name, which the subnets' tags carry)" });
    }
    return [...issues, ...vpcIssues("", args, undefined)];
}

export class EksVpc extends pulumi.ComponentResource {
    readonly vpcId: pulumi.Output<string>;
    readonly privateSubnetIds: pulumi.Output<string>[];
    readonly publicSubnetIds: pulumi.Output<string>[];

    constructor(name: string, args: EksVpcArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = eksVpcIssues(args);
        if (issues.length > 0) {
            throw argsError("EksVpc", name, issues);
        }
        const layout = subnetLayout(args.cidr, args.zones.length, args.subnetScheme ?? "slots") as SubnetLayout;
        super("tf-serving:index:EksVpc", name, {}, opts);
        const clusterTag = { [`kubernetes.io/cluster/${args.clusterName}`]: "shared" };

        const vpc = new aws.ec2.Vpc(name, {
            cidrBlock: args.cidr,
            enableDnsHostnames: true,
            enableDnsSupport: true,
            tags: { Name: args.clusterName },
        }, { parent: this });
        const gateway = new aws.ec2.InternetGateway(name, { vpcId: vpc.id, tags: { Name: args.clusterName } }, { parent: this });

        const publicSubnets = args.zones.map((zone, i) => new aws.ec2.Subnet(`${name}-public-${zone}`, {
            vpcId: vpc.id,
            availabilityZone: zone,
            cidrBlock: layout.public[i],
            mapPublicIpOnLaunch: true,
            tags: { Name: `${args.clusterName}-public-${zone}`, "kubernetes.io/role/elb": "1", ...clusterTag },
        }, { parent: this }));
        const privateSubnets = args.zones.map((zone, i) => new aws.ec2.Subnet(`${name}-private-${zone}`, {
            vpcId: vpc.id,
            availabilityZone: zone,
            cidrBlock: layout.private[i],
            tags: { Name: `${args.clusterName}-private-${zone}`, "kubernetes.io/role/internal-elb": "1", ...clusterTag },
        }, { parent: this }));

        const publicRoutes = new aws.ec2.RouteTable(`${name}-public`, {
            vpcId: vpc.id,
            routes: [{ cidrBlock: "0.0.0.0/0", gatewayId: gateway.id }],
            tags: { Name: `${args.clusterName}-public` },
        }, { parent: this });
        publicSubnets.forEach((subnet, i) => new aws.ec2.RouteTableAssociation(`${name}-public-${args.zones[i]}`, {
            subnetId: subnet.id,
            routeTableId: publicRoutes.id,
        }, { parent: this }));

        const natZones = args.natGateways === "perZone" ? args.zones : [args.zones[0]];
        const natRoutes = natZones.map((zone, i) => {
            const ip = new aws.ec2.Eip(`${name}-nat-${zone}`, { domain: "vpc", tags: { Name: `${args.clusterName}-nat-${zone}` } }, { parent: this });
            const nat = new aws.ec2.NatGateway(`${name}-${zone}`, {
                allocationId: ip.id,
                subnetId: publicSubnets[i].id,
                tags: { Name: `${args.clusterName}-${zone}` },
            }, { parent: this, dependsOn: [gateway] });
            return new aws.ec2.RouteTable(`${name}-private-${zone}`, {
                vpcId: vpc.id,
                routes: [{ cidrBlock: "0.0.0.0/0", natGatewayId: nat.id }],
                tags: { Name: `${args.clusterName}-private-${zone}` },
            }, { parent: this });
        });
        privateSubnets.forEach((subnet, i) => new aws.ec2.RouteTableAssociation(`${name}-private-${args.zones[i]}`, {
            subnetId: subnet.id,
            routeTableId: natRoutes[args.natGateways === "perZone" ? i : 0].id,
        }, { parent: this }));

        this.vpcId = vpc.id;
        this.privateSubnetIds = privateSubnets.map((s) => s.id);
        this.publicSubnetIds = publicSubnets.map((s) => s.id);
        this.registerOutputs({ vpcId: this.vpcId, privateSubnetIds: this.privateSubnetIds, publicSubnetIds: this.publicSubnetIds });
    }
}
