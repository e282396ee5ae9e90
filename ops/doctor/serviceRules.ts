/** A LoadBalancer Service that never got an address from the cloud (or from no controller at all). */
import { Finding, Rule, describeEvent, duration, secondsSince } from "./findings";
import { eventsFor, modelOf } from "./snapshot";

const LB_EVENT = /LoadBalancer|FailedBuildModel|FailedDeployModel/;

export const loadBalancerPending: Rule = (snapshot, context) => snapshot.services.flatMap((svc): Finding[] => {
    const ingress = svc.status?.loadBalancer?.ingress ?? [];
    if (svc.spec?.type !== "LoadBalancer" || ingress.some((i) => i.ip || i.hostname)) {
        return [];
    }
    const name = svc.metadata?.name ?? "(unnamed)";
    const age = secondsSince(svc.metadata?.creationTimestamp, context);
    // Only the load balancer controllers' events (the cloud's service controller, AWS Load Balancer Controller).
    const events = eventsFor(snapshot.events, "Service", svc.metadata).filter((e) => LB_EVENT.test(e.reason ?? ""));
    const failures = events.filter((e) => e.type === "Warning" || /Failed/.test(e.reason ?? ""));
    const overdue = age === undefined || age >= context.loadBalancerGraceSeconds;
    if (failures.length === 0 && !overdue) {
        return [{
            kind: "load-balancer-pending",
            severity: "warning",
            object: `service/${name}`,
            model: modelOf(svc),
            summary: `the load balancer is still being provisioned (${duration(age ?? 0)} old, no address yet)`,
            evidence: [`service/${name} type LoadBalancer created ${svc.metadata?.creationTimestamp}: status.loadBalancer.ingress is empty`,
                ...events.slice(0, 2).map(describeEvent)],
            fix: `Cloud load balancers take a minute or more; run tfs doctor again after ${duration(context.loadBalancerGraceSeconds)}.`,
        }];
    }
    const evidence = [
        `service/${name} type LoadBalancer created ${svc.metadata?.creationTimestamp ?? "?"}`
            + `${age !== undefined ? ` (${duration(age)} ago)` : ""}: status.loadBalancer.ingress is empty`,
        ...failures.slice(0, 3).map(describeEvent),
    ];
    const lbClass = svc.spec?.loadBalancerClass;
    if (lbClass) {
        evidence.push(`spec.loadBalancerClass ${lbClass}: only that class's controller provisions it`);
    }
    if (events.length === 0) {
        evidence.push(`no load balancer events about service/${name}: no controller acted on it`);
    }
    return [{
        kind: "load-balancer-pending",
        severity: "error",
        object: `service/${name}`,
        model: modelOf(svc),
        summary: `the LoadBalancer Service has no address after ${age !== undefined ? duration(age) : "an unknown time"}`,
        evidence,
        fix: failures.length > 0
            ? "The cloud controller failed to create the load balancer: read its message above (GKE: forwarding rule or "
                + "address quota, source ranges; EKS: public subnets tagged kubernetes.io/role/elb, or the AWS Load Balancer Controller)."
            : lbClass
                ? `No controller serves loadBalancerClass ${lbClass}: install it, or remove the class so the cluster's default controller provisions it.`
                : "Nothing provisions load balancers in this cluster (kind, minikube and bare metal have no cloud controller): install "
                    + "one (MetalLB, cloud-provider-kind, minikube tunnel) or set serviceType NodePort or ClusterIP in the stack config.",
    }];
});
