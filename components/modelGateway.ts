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
import { GatewayInput, GenericGatewaySettings, gatewayHasTls, gatewayPort, renderGatewayObjects } from "./clouds/gateways";
import { modelNameProblem } from "../serving/modelConfig";
import { ENDPOINT_SECURITY_DOC, OFFLINE_SECRET, hostnameProblem, htpasswdProblem, sourceRangeIssues } from "../serving/gatewayAccess";
import { ArgsIssue } from "./argsIssues";
import { argsError, refusing } from "./refusal";

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
    /**
     * The callers' htpasswd lines (`user:HASH`, one per caller; `htpasswd -nbB USER 'PASSWORD'`), best a
     * Pulumi secret: written to the Secret `<model>-callers` (marked secret in the state) that the
     * routes' basicAuth Middleware reads, so every request needs `authorization: Basic ...`. Generic
     * platform with `controller: "traefik"` only.
     */
    basicAuthUsers?: pulumi.Input<string>;
} & (GatewayInput extends infer G ? G extends unknown ? Omit<G, "name" | "labels" | "canaryService"> : never : never);

export class ModelGateway extends pulumi.ComponentResource {
    /** The address the Gateway reports (`status.addresses[0]`): an IP or a hostname. */
    readonly externalAddress: pulumi.Output<string>;
    /** The address when it is an IP; empty for a hostname (AWS). */
    readonly externalIp: pulumi.Output<string>;
    readonly restUrl: pulumi.Output<string>;
    readonly grpcEndpoint: pulumi.Output<string>;
    /** The host gRPC clients name as their authority (`grpcHostname`); undefined: any. */
    readonly grpcAuthority?: string;
    /** The routes to the model's Service, in the order a canary moves them. */
    readonly routes: RouteRef[];
    /** The route resources, for what must wait until they carry the canary's backend. */
    readonly routeResources: k8s.apiextensions.CustomResource[];
    /** The model it routes to. */
    readonly model: string;
    /** The canary's Service its routes carry (`<model>-canary`), when made with `canary`; undefined otherwise. */
    readonly canaryService?: string;

    constructor(name: string, args: ModelGatewayArgs, opts?: pulumi.ComponentResourceOptions) {
        const program = programRoutes();
        const issues = modelGatewayIssues(args, program);
        if (issues.length > 0) {
            throw argsError("ModelGateway", name, issues);
        }
        const { model, namespace, canary, basicAuthUsers, ...settings } = args;
        const canaryService = canary ? canaryName(model) : undefined;
        // `settings` keeps `args`' platform and its fields: the rest of a union loses the link for the compiler only.
        const callers = basicAuthUsers === undefined ? undefined : callersSecretName(model);
        // Rendered before anything is registered: the platform's own checks refuse here.
        const objects = refusing("ModelGateway", name, "platform", () => renderGatewayObjects({
            ...settings, name: model, labels: modelServerLabels(model), canaryService, ...(callers === undefined ? {} : { basicAuthSecret: callers }),
        } as GatewayInput));
        super("tf-serving:index:ModelGateway", name, {}, opts);
        if (isGeneric(args)) {
            program.push({ className: args.className, grpcHostname: args.grpcHostname });
        }
        this.model = model;
        this.canaryService = canaryService;
        this.grpcAuthority = isGeneric(args) ? args.grpcHostname : undefined;
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

        // The callers' Secret: its one key is what Traefik's basicAuth reads (traefik
        // `pkg/provider/kubernetes/crd/kubernetes.go`, `loadAuthCredentials`: a Secret of exactly one element).
        const secret = basicAuthUsers === undefined || callers === undefined ? undefined : new k8s.core.v1.Secret(`${name}-callers`, {
            metadata: { name: callers, namespace, labels: modelServerLabels(model) },
            type: "Opaque",
            stringData: { users: pulumi.secret(pulumi.output(basicAuthUsers).apply((users) => checkedUsers(name, users))) },
        }, { parent: this, additionalSecretOutputs: ["data", "stringData"] });
        const policy = (p: GatewayPolicy) => resource(p.suffix, p.object, p.canary ? { parent: this } : { ...child(), ...(secret && p.suffix === "basic-auth" ? { dependsOn: [secret] } : {}) });
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

/** The Secret that holds a model's callers (`basicAuthUsers`). */
export function callersSecretName(model: string): string {
    return `${model}-callers`;
}

/** A generic Gateway's class and gRPC host, for the next one in the program to be told apart from. */
interface SharedAddressRoute { className: string; grpcHostname?: string }

/** The generic Gateways each program has made (by its stack resource): Traefik serves every Gateway of a class on one address. */
const routesByProgram = new WeakMap<object, SharedAddressRoute[]>();

/** This program's generic Gateways so far; a fresh list where the runtime has no stack resource (a test's mocks), so nothing is compared. */
function programRoutes(): SharedAddressRoute[] {
    const stack = pulumi.runtime.getStackResource();
    if (stack === undefined) {
        return [];
    }
    const routes = routesByProgram.get(stack) ?? [];
    routesByProgram.set(stack, routes);
    return routes;
}

function isGeneric(args: ModelGatewayArgs): args is ModelGatewayArgs & GenericGatewaySettings {
    return (args.platform ?? "generic") === "generic";
}

/**
 * Every problem with `args` under the field it names, before anything is registered: the model's
 * name, the source ranges, the callers and the gRPC host; `earlier` are the program's other generic
 * Gateways, whose GRPCRoutes this one must be told apart from.
 */
export function modelGatewayIssues(args: ModelGatewayArgs, earlier: readonly SharedAddressRoute[] = []): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const nameProblem = modelNameProblem(args.model);
    if (nameProblem !== undefined) {
        issues.push({ field: "model", value: args.model, message: nameProblem.replace(/^model name /, "") });
    }
    const ranges = args.sourceRanges ?? [];
    issues.push(...sourceRangeIssues(ranges));
    const generic = isGeneric(args) ? args : undefined;
    if (generic !== undefined && generic.controller === undefined && (ranges.length > 0 || args.basicAuthUsers !== undefined)) {
        issues.push({
            field: "controller", value: undefined,
            message: `is required with sourceRanges or basicAuthUsers on the generic platform: the Gateway API has neither, so the controller enforces them; "traefik" is the one implemented (${ENDPOINT_SECURITY_DOC})`,
        });
    }
    if (generic === undefined && args.basicAuthUsers !== undefined) {
        issues.push({ field: "basicAuthUsers", value: "[secret]", message: `applies to the generic platform with controller "traefik" only: on ${args.platform} use its own authentication (${ENDPOINT_SECURITY_DOC})` });
    }
    if (typeof args.basicAuthUsers === "string") {
        const problem = htpasswdProblem(args.basicAuthUsers);
        if (problem !== undefined) {
            issues.push({ field: "basicAuthUsers", value: "[secret]", message: problem });
        }
    }
    if (generic?.grpcHostname !== undefined) {
        const problem = hostnameProblem(generic.grpcHostname);
        if (problem !== undefined) {
            issues.push({ field: "grpcHostname", value: generic.grpcHostname, message: problem });
        }
    }
    if (generic !== undefined) {
        const clash = earlier.find((e) => e.className === generic.className && (e.grpcHostname === undefined || generic.grpcHostname === undefined || e.grpcHostname === generic.grpcHostname));
        if (clash !== undefined) {
            issues.push({
                field: "grpcHostname", value: generic.grpcHostname,
                message: `must differ from the other ModelGateway's of class ${generic.className} in this program${clash.grpcHostname === undefined ? " (which has none)" : ` ("${clash.grpcHostname}")`}: ` +
                    "their Gateways may share one address, and a gRPC request names its model only inside its body, so each GRPCRoute needs a host of its own " +
                    `that clients send as their authority (${ENDPOINT_SECURITY_DOC}#several-models)`,
            });
        }
    }
    return issues;
}

/** `users` once known (a secret's value), refused with the component's name when it is no list of callers. */
function checkedUsers(name: string, users: string): string {
    const problem = users === OFFLINE_SECRET ? undefined : htpasswdProblem(users);
    if (problem !== undefined) {
        throw argsError("ModelGateway", name, [{ field: "basicAuthUsers", value: "[secret]", message: problem }]);
    }
    return users;
}
