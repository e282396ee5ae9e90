/**
 * The `gateway` keys on the cluster `stacks/gcp.ts` creates (`GatewaySection`, config/gateway.ts):
 * the GKE Gateway controller is its only one. The class defaults to the external managed Application
 * Load Balancer, and TLS is required (Google's load balancer speaks HTTP/2, so gRPC, to clients only
 * over TLS): a Certificate Manager map or a TLS Secret.
 */
import { closest } from "../../../contract/spelling";
import { readGatewayAuth } from "../../../config/gateway";
import type { GatewaySection } from "../../../config/gateway";
import type { ConfigReader } from "../../../config/configReader";
import { sourceRangesProblem } from "./cloudArmor";
import { GkeIapSettings, oauthClientIdProblem, oauthSecretNameProblem } from "./gateway";

/** GKE's external managed Application Load Balancer (global), the class a GKE Gateway gets by default. */
export const GKE_DEFAULT_GATEWAY_CLASS = "gke-l7-global-external-managed";

/**
 * The GatewayClasses of the GKE Gateway controller a single cluster serves (GKE's "GatewayClass
 * capabilities" page): the global external Application Load Balancer, managed and classic.
 */
const GKE_SINGLE_CLUSTER_CLASSES = [GKE_DEFAULT_GATEWAY_CLASS, "gke-l7-gxlb"];
/** GKE classes whose load balancer needs a proxy-only subnet in the region (purpose REGIONAL_MANAGED_PROXY), which this stack does not create. */
const GKE_REGIONAL_CLASSES = ["gke-l7-regional-external-managed", "gke-l7-rilb"];

/** A Certificate Manager resource id: lowercase letter first, then letters, digits, '-' (at most 63). */
const CERTIFICATE_MAP_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Why `className` cannot serve a Gateway on the cluster the stack makes, or undefined: only the GKE
 * controller runs there; its regional classes need a proxy-only subnet, its `-mc` classes a fleet.
 */
function gkeClassProblem(className: string): string | undefined {
    if (GKE_REGIONAL_CLASSES.includes(className)) {
        return `needs a proxy-only subnet (purpose REGIONAL_MANAGED_PROXY) in the region, which this stack does not create: use "${GKE_DEFAULT_GATEWAY_CLASS}" (global, needs none), or remove the key`;
    }
    if (!GKE_SINGLE_CLUSTER_CLASSES.includes(className)) {
        const near = closest(className, [...GKE_SINGLE_CLUSTER_CLASSES, ...GKE_REGIONAL_CLASSES], 3);
        return `is not a GatewayClass of the GKE Gateway controller for one cluster, the only Gateway controller on the cluster this stack creates${near ? ` (did you mean "${near}"?)` : ""}: ` +
            `use ${GKE_SINGLE_CLUSTER_CLASSES.map((c) => `"${c}"`).join(" or ")}, or remove the key for "${GKE_DEFAULT_GATEWAY_CLASS}"`;
    }
    return undefined;
}

/** What a secret's value shows in a message: nothing. */
const NOT_SHOWN = "(not shown)";

/**
 * `gateway.auth` with `type: iap` (docs/development/decisions/0008-gke-callers-through-iap.md): the
 * OAuth client's ID and the Secret holding its secret, `{type: iap, clientID: ID, oauth2ClientSecret: {name: SECRET}}`,
 * the `GCPBackendPolicy`'s own field names. A secret written into the config itself is refused, and
 * never repeated in the message.
 */
function readIap(g: ConfigReader): GkeIapSettings | undefined {
    const read = readGatewayAuth(g, GKE_GATEWAY_SECTION);
    if (read === undefined) {
        return undefined;
    }
    const { auth } = read;
    const written = g.object("auth") ?? {};
    // Not `rejectUnknown`: it repeats the value, and a key of its own is where a secret would be pasted.
    const known = ["type", "clientID", "oauth2ClientSecret"];
    for (const key of Object.keys(written).filter((k) => !known.includes(k))) {
        const near = closest(key, known, 3);
        auth.fail(key, `unknown key${near === undefined ? "" : ` (did you mean '${auth.key(near)}'?)`}: known keys are ${known.join(", ")}`, NOT_SHOWN);
    }
    const clientID = auth.required("clientID", "the OAuth 2.0 client's ID, `NUMBER-ID.apps.googleusercontent.com`, whose ID tokens callers send (docs/guides/endpoint-security.md#gke)");
    const idProblem = clientID === "" ? undefined : oauthClientIdProblem(clientID);
    if (idProblem !== undefined) {
        auth.fail("clientID", idProblem);
    }
    const secretKey = "oauth2ClientSecret";
    const secret = written[secretKey];
    const ref = typeof secret === "object" && secret !== null && !Array.isArray(secret) ? secret as Record<string, unknown> : undefined;
    const name = ref !== undefined && Object.keys(ref).every((k) => k === "name") && typeof ref.name === "string" ? ref.name.trim() : undefined;
    if (secret === undefined || secret === null || secret === "") {
        auth.fail(secretKey, "required: `{name: SECRET}`, a Secret in the namespace that holds the OAuth client's secret under the key `key` " +
            "(`kubectl create secret generic iap-oauth --from-file=key=FILE`; docs/guides/endpoint-security.md#gke)", undefined);
    } else if (name === undefined) {
        auth.fail(secretKey, "must be `{name: SECRET}`, the name of a Secret in the namespace that holds the OAuth client's secret under the key `key`, " +
            "never the secret itself: config values land in the stack file and in state in plain text " +
            "(`kubectl create secret generic iap-oauth --from-file=key=FILE`; docs/guides/endpoint-security.md#gke)", NOT_SHOWN);
    } else {
        const problem = oauthSecretNameProblem(name);
        if (problem !== undefined) {
            auth.fail(`${secretKey}.name`, problem, NOT_SHOWN);
        }
    }
    return { clientID, oauth2ClientSecretName: name ?? "" };
}

export const GKE_GATEWAY_SECTION: GatewaySection = {
    required: "required with `endpoint: gateway` on gcp: the listener's certificate, `{certificateMap: NAME}` (Certificate Manager) or `{tlsSecretName: NAME}` (a kubernetes.io/tls Secret)",
    ownKeys: ["certificateMap", "auth"],
    defaultClass: GKE_DEFAULT_GATEWAY_CLASS,
    classExample: GKE_DEFAULT_GATEWAY_CLASS,
    classProblem: gkeClassProblem,
    readSettings(g, tlsSecretName, service) {
        const rangesProblem = sourceRangesProblem(service.sourceRanges);
        if (rangesProblem !== undefined) {
            g.issues.push({ key: "loadBalancerSourceRanges", value: `${service.sourceRanges.length} ranges`, expected: rangesProblem });
        }
        const certificateMap = g.string("certificateMap");
        if (certificateMap !== undefined && !CERTIFICATE_MAP_NAME.test(certificateMap)) {
            g.fail("certificateMap", "must be a Certificate Manager certificate map's name in the project (lowercase letter first, then lowercase letters, digits and '-', at most 63), e.g. \"tf-serving\"");
        }
        if (tlsSecretName === undefined && certificateMap === undefined) {
            g.fail("certificateMap", "required on gcp (or tlsSecretName): Google's load balancer serves HTTP/2, so gRPC, to clients only over TLS; " +
                "name a Certificate Manager certificate map (`gcloud certificate-manager maps list`) or a kubernetes.io/tls Secret in the namespace", undefined);
        }
        if (tlsSecretName !== undefined && certificateMap !== undefined) {
            g.fail("certificateMap", "name one certificate source: certificateMap or tlsSecretName, not both");
        }
        const iap = readIap(g);
        return { platform: "gke", certificateMap, ...(iap === undefined ? {} : { iap }) };
    },
    createsClass: false,
    openMessage: "with `endpoint: gateway` on gcp and no loadBalancerSourceRanges the load balancer is open to every address: " +
        "list the CIDRs allowed in loadBalancerSourceRanges (a Cloud Armor policy), or set publicEndpoint true to say so on purpose",
    authTypes: ["iap"],
};
