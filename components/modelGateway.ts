/**
 * ModelGateway: the L7 endpoint of one model (`endpoint: gateway`), a Gateway API Gateway of the
 * cluster's class with its routes to the model's Service (serving/gateway.ts renders them), and the
 * policies of the platform's load balancer for that Service (a cloud's controller, from its folder:
 * components/clouds/gateways.ts). Composed beside `ModelServer`, not
 * inside it: the routes decide where each request goes, so a canary's weights live here, on the
 * routes, while the server only runs pods.
 *
 * The Gateway objects were children of `ModelServer` before they were a component of their own;
 * each carries an alias to that former URN, so a live stack keeps them (no replacement, no outage).
 */
import * as net from "net";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { canaryName, modelServerLabels } from "../contract/labels";
import { GatewayApiObject, GatewayPolicy, gatewayEndpoints, plaintextGatewayWarning } from "../serving/gateway";
import { GatewayInput, gatewayHasTls, gatewayPort, renderGatewayObjects } from "./clouds/gateways";
import { modelNameProblem } from "../serving/modelConfig";

/** A route a canary release moves the weights of. */
export interface RouteRef {
    kind: "HTTPRoute" | "GRPCRoute";
    name: string;
}

/**
 * The Gateway's settings (`GatewayInput`, components/clouds/gateways.ts, whose fields say what each does;
 * `platform` decides which of the controller's own fields apply), for one model's Service.
 */
export type ModelGatewayArgs = {
    /** The model's name: the Gateway's, the routes' and their backend Service's (`ModelServer`'s Service). */
    model: string;
    /** The model server's namespace. */
    namespace: pulumi.Input<string>;
    /**
     * Routes that a canary release can shift: each carries the canary's Service (`<model>-canary`, made by
     * `ModelServer`'s `canary`) as a second backend at weight 0. Hand this gateway to that `canary`. Default false.
     */
    canary?: boolean;
} & (GatewayInput extends infer G ? G extends unknown ? Omit<G, "name" | "labels" | "canaryService"> : never : never);

export class ModelGateway extends pulumi.ComponentResource {
    /** The address the Gateway reports (`status.addresses[0]`): an IP or a hostname. */
    readonly externalAddress: pulumi.Output<string>;
    /** The address when it is an IP; empty for a hostname (AWS). */
    readonly externalIp: pulumi.Output<string>;
    readonly restUrl: pulumi.Output<string>;
    readonly grpcEndpoint: pulumi.Output<string>;
    /** The routes to the model's Service, in the order a canary moves them. */
    readonly routes: RouteRef[];
    /** The route resources, for what must wait until they carry the canary's backend. */
    readonly routeResources: k8s.apiextensions.CustomResource[];
    /** The model it routes to. */
    readonly model: string;
    /** The canary's Service its routes carry (`<model>-canary`), when made with `canary`; undefined otherwise. */
    readonly canaryService?: string;

    constructor(name: string, args: ModelGatewayArgs, opts?: pulumi.ComponentResourceOptions) {
        const problem = modelNameProblem(args.model);
        if (problem !== undefined) {
            throw new Error(`ModelGateway ${name}: ${problem}`);
        }
        super("tf-serving:index:ModelGateway", name, {}, opts);
        const { model, namespace, canary, ...settings } = args;
        this.model = model;
        this.canaryService = canary ? canaryName(model) : undefined;
        // `settings` keeps `args`' platform and its fields: the rest of a union loses the link for the compiler only.
        const objects = renderGatewayObjects({ ...settings, name: model, labels: modelServerLabels(model), canaryService: this.canaryService } as GatewayInput);
        const tls = gatewayHasTls(args);
        if (!tls) {
            pulumi.log.warn(plaintextGatewayWarning(args.model, args.className), this);
        }
        const inNamespace = (o: GatewayApiObject) => ({ ...o, metadata: { ...o.metadata, namespace } });
        // Until this component existed these were ModelServer's children, of the same names.
        const formerParent = pulumi.createUrn(name, "tf-serving:index:ModelServer", undefined);
        const child = (dependsOn: pulumi.Resource[] = []): pulumi.CustomResourceOptions => ({ parent: this, dependsOn, aliases: [{ parent: formerParent }] });
        const resource = (suffix: string, o: GatewayApiObject, options: pulumi.CustomResourceOptions) =>
            new k8s.apiextensions.CustomResource(`${name}-${suffix}`, inNamespace(o), options);

        const policy = (p: GatewayPolicy) => resource(p.suffix, p.object, p.canary ? { parent: this } : child());
        const before = (when: GatewayPolicy["before"]) => objects.policies.filter((p) => p.before === when).map(policy);
        const gatewayDeps = before("gateway");
        const routeDeps = before("routes");
        // status is listed (undefined) so that the engine returns it as an output.
        const gateway = new k8s.apiextensions.CustomResource(`${name}-gateway`, { ...inNamespace(objects.gateway), status: undefined }, child(gatewayDeps));
        this.routeResources = [resource("rest", objects.httpRoute, child([gateway, ...routeDeps]))];
        this.routes = [{ kind: "HTTPRoute", name: args.model }];
        if (objects.grpcRoute) {
            this.routeResources.push(resource("grpc", objects.grpcRoute, child([gateway, ...routeDeps])));
            this.routes.push({ kind: "GRPCRoute", name: args.model });
        }
        before(undefined);

        const status = (gateway as unknown as { status: pulumi.Output<{ addresses?: { value?: string }[] } | undefined> }).status;
        this.externalAddress = status.apply((s) => s?.addresses?.[0]?.value ?? "");
        this.externalIp = this.externalAddress.apply((a) => (net.isIP(a) ? a : ""));
        const port = gatewayPort(args);
        this.restUrl = this.externalAddress.apply((a) => gatewayEndpoints(a, tls, port).restUrl);
        this.grpcEndpoint = this.externalAddress.apply((a) => gatewayEndpoints(a, tls, port).grpcEndpoint);
        this.registerOutputs({ externalAddress: this.externalAddress, restUrl: this.restUrl, grpcEndpoint: this.grpcEndpoint });
    }
}
