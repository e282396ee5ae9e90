/**
 * The Gateway controllers `ModelGateway` renders for, by `platform`: `generic` (any conformant
 * implementation, `serving/gateway.ts`) and each cloud's own, from its folder (`gcp/gateway.ts`,
 * `aws/gateway.ts`). Pure: nothing here loads a cloud's SDK, so `ModelGateway` imports it on any
 * stack. A cloud's clusters run the platform its `about.ts` names.
 */
import { GENERIC_GATEWAY, GatewayBase, GatewayObjects, GatewayRenderer, GenericGatewaySettings, withRouteAnnotations } from "../../serving/gateway";
import { EKS_GATEWAY, EksGatewaySettings } from "./aws/gateway";
import { GKE_GATEWAY, GkeGatewaySettings } from "./gcp/gateway";

export type { EksGatewaySettings } from "./aws/gateway";
export { JWT_CLAIM_FORMATS } from "./aws/gatewayChecks";
export type { EksJwtValidation, JwtClaim, JwtClaimFormat } from "./aws/gatewayChecks";
export type { GkeGatewaySettings, GkeIapSettings } from "./gcp/gateway";
export type { GenericGatewaySettings } from "../../serving/gateway";

/**
 * A Gateway's settings: those of every platform, and the Gateway controller's own, one shape per
 * `platform` (the compiler keeps each field to its platform). `generic` (the default): a listener per
 * serving port, an HTTPRoute and a GRPCRoute. `gke`: the shape the GKE Gateway controller serves.
 * `eks`: the generic shape as the AWS Load Balancer Controller serves it.
 */
export type GatewayInput = GatewayBase & (GenericGatewaySettings | GkeGatewaySettings | EksGatewaySettings);

/** The platform's own part of a `GatewayInput`: `platform` and the fields of that platform. */
export type GatewayPlatformSettings = GenericGatewaySettings | GkeGatewaySettings | EksGatewaySettings;

export type GatewayPlatform = NonNullable<GatewayPlatformSettings["platform"]>;

/** Every platform's renderer, by `platform`. */
const RENDERERS: { [P in GatewayPlatform]: GatewayRenderer<Extract<GatewayPlatformSettings, { platform?: P }>> } = {
    generic: GENERIC_GATEWAY,
    gke: GKE_GATEWAY,
    eks: EKS_GATEWAY,
};

/** The renderer of `settings`' platform (the union's link is lost on the lookup, for the compiler only). */
function rendererOf(settings: GatewayPlatformSettings): GatewayRenderer<GatewayPlatformSettings> {
    return RENDERERS[settings.platform ?? "generic"] as GatewayRenderer<GatewayPlatformSettings>;
}

/** The Gateway and its routes as Kubernetes objects (apiVersion, kind, metadata, spec), for `input`'s platform. */
export function renderGatewayObjects(input: GatewayInput): GatewayObjects {
    return withRouteAnnotations(rendererOf(input).render(input));
}

/** Whether the Gateway's listeners terminate TLS: a Secret, or the platform's own certificate. */
export function gatewayHasTls(input: GatewayPlatformSettings & { tlsSecretName?: string }): boolean {
    return rendererOf(input).hasTls(input);
}

/** The one port REST and gRPC share on the platform's load balancer; undefined: each keeps its own. */
export function gatewayPort(settings: GatewayPlatformSettings): number | undefined {
    return rendererOf(settings).port;
}
