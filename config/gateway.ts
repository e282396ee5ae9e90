/**
 * `endpoint: gateway`: the GatewayClass to use, the TLS certificate, and a ClusterIP Service behind
 * it. What every cluster shares is read here; what the cluster's Gateway controller decides (the
 * default class, which classes serve, where the certificate comes from, whether its load balancer
 * takes source ranges) is the cloud's `GatewaySection`, from its folder through the registry. On a
 * local or existing cluster (`GENERIC_GATEWAY_SECTION`) `gateway.className` names the cluster's class
 * and TLS is optional. The Gateway API has no source ranges, so the open endpoint must be deliberate
 * (`publicEndpoint`), unless the cloud's load balancer takes `loadBalancerSourceRanges`.
 */
import type { ServiceSettings } from "./settings";
import type { ConfigReader } from "./configReader";
import type { GatewayPlatformSettings } from "../components/clouds/gateways";
import { GATEWAY_CONTROLLERS } from "../serving/gateway";
import { MODEL_PLACEHOLDER, hostnameTemplateProblem, htpasswdProblem } from "../serving/gatewayAccess";

/** A cloud's Gateway controller, as the `gateway` keys meet it. */
export interface GatewaySection {
    /** Why `gateway` is required and what to write in it, when it is missing. */
    readonly required: string;
    /** Its own keys in `gateway`, beside `className` and `tlsSecretName`. */
    readonly ownKeys: readonly string[];
    /** The class without `gateway.className`; undefined: the key is required. */
    readonly defaultClass?: string;
    /** A class name for the message on a malformed one. */
    readonly classExample: string;
    /** Why `className` cannot serve a Gateway on the stack's cluster (the fix included), or undefined. */
    classProblem(className: string): string | undefined;
    /** Why the controller takes no certificate from a Secret (`tlsSecretName`), when it takes none. */
    readonly secretRefused?: string;
    /**
     * Reads its own keys (each problem recorded on `g` under its key), with the Secret named, into the
     * platform's settings, with what its Gateway takes from the rest of `service` (source ranges).
     */
    readSettings(g: ConfigReader, tlsSecretName: string | undefined, service: ServiceSettings, keySecret: boolean): GatewayPlatformSettings;
    /** The stack creates the GatewayClass `className` (its cluster has none but that one). */
    readonly createsClass: boolean;
    /** What `publicEndpoint` says when `loadBalancerSourceRanges` is empty: how to restrict, or open on purpose. */
    readonly openMessage: string;
    /**
     * The caller authentication types (`gateway.auth.type`) its controller implements here, each read
     * by `readSettings` from `gateway.auth`; empty: none, and the key is refused with `authRefused`.
     */
    readonly authTypes: readonly string[];
    /** Why `gateway.auth` is refused on this platform (what to use instead). */
    readonly authRefused?: string;
}

/**
 * Why a cluster of the user's own must name its Gateway controller for source ranges or caller
 * authentication: the Gateway API has neither, so each controller enforces them in its own objects,
 * and the class's name says nothing reliable about which controller serves it.
 */
const CONTROLLER_REQUIRED = "required with loadBalancerSourceRanges or gateway.auth on a cluster of your own: the Gateway API has neither, so the controller " +
    "enforces them in its own objects; `traefik` (Traefik v3 with its Kubernetes CRD provider on) is the one implemented here " +
    "(docs/guides/endpoint-security.md); with another controller, restrict callers in its own settings, remove those keys and set publicEndpoint true";

/** The Gateway controller a local or existing cluster runs: any conformant implementation (Traefik, Envoy Gateway). */
export const GENERIC_GATEWAY_SECTION: GatewaySection = {
    required: "required with `endpoint: gateway`: `{className: NAME}`, the cluster's GatewayClass (`kubectl get gatewayclass`)",
    ownKeys: ["controller", "grpcHostname", "auth"],
    classExample: "traefik",
    classProblem: () => undefined,
    readSettings: (g, _tls, service, keySecret) => {
        const controller = g.has("controller") ? g.oneOf("controller", GATEWAY_CONTROLLERS, "traefik") : undefined;
        if (controller === undefined && (service.sourceRanges.length > 0 || g.has("auth"))) {
            g.fail("controller", CONTROLLER_REQUIRED, undefined);
        }
        const grpcHostname = g.string("grpcHostname");
        const hostProblem = grpcHostname === undefined ? undefined : hostnameTemplateProblem(grpcHostname);
        if (hostProblem !== undefined) {
            g.fail("grpcHostname", `${hostProblem}; ${MODEL_PLACEHOLDER} stands for each model's name`);
        }
        const read = controller === undefined ? undefined : readGatewayAuth(g, GENERIC_GATEWAY_SECTION);
        if (read !== undefined) {
            read.auth.rejectUnknown(["type", "users"]);
            const users = read.auth.required("users", "the callers' htpasswd lines, a secret: `pulumi config set --secret --path 'gateway.auth.users' \"$(htpasswd -nbB alice 'PASSWORD')\"`");
            if (users !== "") {
                // The value is never shown: it holds the callers' hashes.
                const problem = keySecret ? htpasswdProblem(users) : "must be a secret, not plain configuration (the stack file would hold the callers' hashes in the clear): " +
                    "`pulumi config set --secret --path 'gateway.auth.users' \"$(htpasswd -nbB alice 'PASSWORD')\"`";
                if (problem !== undefined) {
                    read.auth.fail("users", problem, "[secret]");
                } else {
                    service.basicAuthUsers = users;
                }
            }
        }
        return {
            platform: "generic",
            ...(controller === undefined ? {} : { controller }),
            ...(grpcHostname === undefined || hostProblem !== undefined ? {} : { grpcHostname }),
        };
    },
    createsClass: false,
    openMessage: "with `endpoint: gateway` and no loadBalancerSourceRanges the Gateway is open to whoever reaches its address: " +
        "list the CIDRs allowed in loadBalancerSourceRanges, or set publicEndpoint true to say so on purpose",
    authTypes: ["basic"],
};

/**
 * `gateway.auth`'s reader and its `type` when the platform (`section`) implements it; undefined (and an
 * issue recorded on `g`) when it is unset or malformed, or the platform has no such type.
 */
export function readGatewayAuth(g: ConfigReader, section: GatewaySection): { auth: ConfigReader; type: string } | undefined {
    if (!g.has("auth")) {
        return undefined;
    }
    if (section.authTypes.length === 0) {
        g.fail("auth", section.authRefused ?? "caller authentication has no implementation on this platform here: remove the key, and restrict callers with loadBalancerSourceRanges");
        return undefined;
    }
    const auth = g.nested("auth");
    if (auth === undefined) {
        return undefined;
    }
    const type = auth.oneOf("type", section.authTypes, section.authTypes[0]);
    return { auth, type };
}

const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Reads `gateway` for the cluster's controller `section` into `service` (`endpoint: gateway`); every problem recorded on `r`. */
export function readGatewayEndpoint(r: ConfigReader, section: GatewaySection, service: ServiceSettings, keySecret = false): void {
    service.endpoint = "gateway";
    const g = r.nested("gateway");
    if (g === undefined) {
        r.fail("gateway", section.required, undefined);
        return;
    }
    g.rejectUnknown(["className", "tlsSecretName", ...section.ownKeys]);
    const className = section.defaultClass === undefined ? g.required("className", "the cluster's GatewayClass (`kubectl get gatewayclass`)")
        : g.string("className", section.defaultClass);
    const tlsSecretName = g.string("tlsSecretName");
    if (className !== "" && (!OBJECT_NAME.test(className) || className.length > 253)) {
        g.fail("className", `must be a Kubernetes object name (lowercase letters, digits, '-' and '.'), e.g. "${section.classExample}"`);
    } else {
        const problem = section.classProblem(className);
        if (problem !== undefined) {
            g.fail("className", problem);
        }
    }
    if (section.secretRefused !== undefined && tlsSecretName !== undefined) {
        g.fail("tlsSecretName", section.secretRefused);
    } else if (tlsSecretName !== undefined && (!OBJECT_NAME.test(tlsSecretName) || tlsSecretName.length > 253)) {
        g.fail("tlsSecretName", "must be the name of a kubernetes.io/tls Secret in the namespace, e.g. \"tf-serving-tls\"");
    }
    service.gateway = {
        className, tlsSecretName, ...section.readSettings(g, tlsSecretName, service, keySecret),
        // The stack's cluster has no GatewayClass but the one it creates, under whatever name is configured.
        ...(section.createsClass ? { createClass: true } : {}),
    };
    if (service.type !== "ClusterIP") {
        r.fail("serviceType", "with `endpoint: gateway` the model Service is ClusterIP behind the Gateway; remove serviceType");
    }
    // A list whose entries were all refused is not empty: those entries' messages say what to fix.
    if (!service.publicEndpoint && (r.listLength("loadBalancerSourceRanges") ?? 0) === 0) {
        r.fail("publicEndpoint", section.openMessage, undefined);
    }
}
