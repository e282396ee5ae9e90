/**
 * `ModelGateway` for every Pulumi language: the library's `ModelGateway` (components/modelGateway.ts)
 * with the platform as a named enum and the routes as their names (the library's `RouteRef.kind` is
 * a literal union the schema cannot carry).
 */
import * as pulumi from "@pulumi/pulumi";
import * as library from "../lib/modelServer";
import { GatewayController, GatewayPlatform } from "./enums";
import { GATEWAY_CONTROLLERS } from "../serving/gateway";
import { oneOf } from "./values";

const PLATFORMS: readonly library.GatewayPlatform[] = ["generic", "gke", "eks"];

export interface ModelGatewayArgs {
    /** The model's name: the Gateway's, the routes' and their backend Service's (a `ModelServer`'s Service). */
    modelName: string;
    /** The model server's namespace. */
    namespace: pulumi.Input<string>;
    /** The cluster's GatewayClass. */
    className: string;
    /** A `kubernetes.io/tls` Secret in the namespace the listeners terminate TLS with. Default: plaintext (h2c for gRPC). */
    tlsSecretName?: string;
    /** The controller's shape. Default `generic`. */
    platform?: GatewayPlatform;
    /** GKE only: a Certificate Manager certificate map instead of a Secret. */
    certificateMap?: string;
    /** EKS only (required there): the ACM certificate the HTTPS listeners present. */
    certificateArn?: string;
    /**
     * The CIDRs allowed to call the model; default any address. EKS: the ALB's security group; generic:
     * a Traefik `ipAllowList` Middleware (needs `controller`). See docs/guides/endpoint-security.md.
     */
    sourceRanges?: string[];
    /** Generic only: the controller that serves `className`, needed for `sourceRanges` and `basicAuthUsers`. */
    controller?: GatewayController;
    /** Generic only: the host gRPC clients name for this model (required when another model's Gateway shares the class). */
    grpcHostname?: string;
    /** Generic with `controller` traefik only: the callers' htpasswd lines (a secret), so every call needs `authorization: Basic ...`. */
    basicAuthUsers?: pulumi.Input<string>;
    /** EKS only: seconds a target group keeps a removed pod draining. Default the ALB's 300. */
    drainSeconds?: number;
    /** EKS only: the account's quota of inbound rules per security group, when raised above AWS's default 60. */
    securityGroupRuleQuota?: number;
    /** EKS only: the issuer whose JSON Web Tokens the ALB requires on every call (`iss`, an https URL); with `jwksEndpoint`. */
    jwtIssuer?: string;
    /** EKS only: the https URL of that issuer's JSON Web Key Set. */
    jwtJwksEndpoint?: string;
    /** GKE only: the Cloud Armor policy that enforces `sourceRanges` (required with them). */
    securityPolicy?: string;
    /** GKE only: the OAuth 2.0 client ID Identity-Aware Proxy checks callers' ID tokens against; with `iapOauthSecretName`. */
    iapClientId?: string;
    /** GKE only: the Secret in the namespace holding that client's secret under the key `key`. */
    iapOauthSecretName?: string;
    /** Routes a canary can shift: each rule carries the canary's Service (`<model>-canary`) as a second backend at weight 0. Default false. */
    canary?: boolean;
}

/** The library's arguments for these. */
export function toModelGatewayArgs(name: string, args: ModelGatewayArgs): library.ModelGatewayArgs {
    const common = {
        model: args.modelName,
        namespace: args.namespace,
        className: args.className,
        tlsSecretName: args.tlsSecretName,
        canary: args.canary,
    };
    const platform = args.platform === undefined ? undefined : oneOf(args.platform, PLATFORMS, `ModelGateway "${name}" platform`);
    switch (platform) {
        case "gke":
            return {
                ...common, platform, certificateMap: args.certificateMap, sourceRanges: args.sourceRanges, securityPolicy: args.securityPolicy,
                ...(args.iapClientId === undefined && args.iapOauthSecretName === undefined ? {} : {
                    iap: { clientID: args.iapClientId ?? "", oauth2ClientSecretName: args.iapOauthSecretName ?? "" },
                }),
            };
        case "eks":
            if (args.certificateArn === undefined) {
                throw new pulumi.RunError(`ModelGateway "${name}": certificateArn is required with platform eks (the ALB's HTTPS listeners present it; see docs/guides/other-languages.md#arguments)`);
            }
            return {
                ...common, platform, certificateArn: args.certificateArn, sourceRanges: args.sourceRanges, drainSeconds: args.drainSeconds,
                securityGroupRuleQuota: args.securityGroupRuleQuota,
                ...(args.jwtIssuer === undefined && args.jwtJwksEndpoint === undefined ? {} : {
                    auth: { type: "jwt" as const, issuer: args.jwtIssuer ?? "", jwksEndpoint: args.jwtJwksEndpoint ?? "" },
                }),
            };
        default:
            return {
                ...common, platform, sourceRanges: args.sourceRanges, grpcHostname: args.grpcHostname, basicAuthUsers: args.basicAuthUsers,
                controller: args.controller === undefined ? undefined : oneOf(args.controller, GATEWAY_CONTROLLERS, `ModelGateway "${name}" controller`),
            };
    }
}

/** A Gateway API Gateway with an HTTPRoute and a GRPCRoute to a model server's Service: per-request balancing. */
export class ModelGateway extends pulumi.ComponentResource {
    /** `http(s)://ADDRESS`: the REST endpoint. */
    readonly restUrl: pulumi.Output<string>;
    /** `ADDRESS:PORT`: the gRPC endpoint. */
    readonly grpcEndpoint: pulumi.Output<string>;
    /** The Gateway's address (IP or host name). */
    readonly externalAddress: pulumi.Output<string>;
    /** The HTTPRoute's name. */
    readonly httpRouteName: pulumi.Output<string>;
    /** The GRPCRoute's name. */
    readonly grpcRouteName: pulumi.Output<string>;

    constructor(name: string, args: ModelGatewayArgs, opts?: pulumi.ComponentResourceOptions) {
        // Mapped before anything is registered: a refused argument registers nothing.
        const libraryArgs = toModelGatewayArgs(name, args);
        super("tf-serving:index:ModelGateway", name, {}, opts);
        const gateway = new library.ModelGateway(name, libraryArgs, { parent: this });
        const route = (kind: library.RouteRef["kind"]) => pulumi.output(gateway.routes.find((r) => r.kind === kind)?.name ?? "");
        this.restUrl = gateway.restUrl;
        this.grpcEndpoint = gateway.grpcEndpoint;
        this.externalAddress = gateway.externalAddress;
        this.httpRouteName = route("HTTPRoute");
        this.grpcRouteName = route("GRPCRoute");
        this.registerOutputs({
            restUrl: this.restUrl, grpcEndpoint: this.grpcEndpoint, externalAddress: this.externalAddress,
            httpRouteName: this.httpRouteName, grpcRouteName: this.grpcRouteName,
        });
    }
}
