/**
 * The `gateway` keys on the cluster `stacks/gcp.ts` creates (`GatewaySection`, config/gateway.ts):
 * the GKE Gateway controller is its only one. The class defaults to the external managed Application
 * Load Balancer, and TLS is required (Google's load balancer speaks HTTP/2, so gRPC, to clients only
 * over TLS): a Certificate Manager map or a TLS Secret.
 */
import { closest } from "../../../contract/spelling";
import type { GatewaySection } from "../../../config/gateway";

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

export const GKE_GATEWAY_SECTION: GatewaySection = {
    required: "required with `endpoint: gateway` on gcp: the listener's certificate, `{certificateMap: NAME}` (Certificate Manager) or `{tlsSecretName: NAME}` (a kubernetes.io/tls Secret)",
    ownKeys: ["certificateMap"],
    defaultClass: GKE_DEFAULT_GATEWAY_CLASS,
    classExample: GKE_DEFAULT_GATEWAY_CLASS,
    classProblem: gkeClassProblem,
    readSettings(g, tlsSecretName, service) {
        if (service.sourceRanges.length > 0) {
            g.fail("className", "takes no loadBalancerSourceRanges on gcp yet: remove them");
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
        return { platform: "gke", certificateMap };
    },
    createsClass: false,
    openMessage: "with `endpoint: gateway` on gcp and no loadBalancerSourceRanges the load balancer is open to every address: " +
        "list the CIDRs allowed in loadBalancerSourceRanges, or set publicEndpoint true to say so on purpose",
    authTypes: [],
};
