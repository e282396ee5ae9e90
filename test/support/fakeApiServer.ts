/**
 * A loopback stand-in for the few kube-apiserver endpoints `tfs doctor`'s collector reads (and the
 * local stack's image volume check: the version and the nodes; the canary's retire: one Deployment
 * read and deleted), and a kubeconfig that points at it: for the doctor's, the image volume check's
 * and the canary runner's tests.
 */
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as path from "path";
import { Event, Pod } from "../../ops/doctor/snapshot";
import { NAMESPACE } from "./doctorFixtures";

/**
 * A loopback stand-in for the few kube-apiserver endpoints the collector reads, answering with the
 * fixtures as JSON lists (and plain-text logs); it records every request.
 */
export class FakeApiServer {
    readonly requests: string[] = [];
    /** The Deployments deleted, by name. */
    readonly deleted: string[] = [];
    pods: Pod[] = [];
    events: Event[] = [];
    services: unknown[] = [];
    deployments: unknown[] = [];
    /** Undefined: listing autoscalers is forbidden. */
    hpas: unknown[] | undefined;
    logs: Record<string, string> = {};
    /** Undefined: listing nodes is forbidden, as for a user with rights in the namespace only. */
    nodes: unknown[] | undefined;
    namespaces = [NAMESPACE];
    /** What `GET /version` answers (the API server's version; the image volume check reads `gitVersion`). */
    version: Record<string, string> = { major: "1", minor: "35", gitVersion: "v1.35.0" };
    private server = http.createServer((req, res) => this.answer(req, res));

    async start(): Promise<string> {
        await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    }

    stop(): Promise<void> {
        this.server.closeAllConnections();
        return new Promise((resolve) => this.server.close(() => resolve()));
    }

    private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
        this.requests.push(req.url ?? "");
        const url = new URL(req.url ?? "/", "http://x");
        const json = (status: number, body: unknown) => {
            res.writeHead(status, { "content-type": "application/json" });
            res.end(JSON.stringify(body));
        };
        const list = (kind: string, items: unknown[]) => json(200, { kind, apiVersion: kind.startsWith("Deployment") || kind.startsWith("ReplicaSet") ? "apps/v1" : "v1", metadata: { resourceVersion: "1" }, items });
        let m: RegExpExecArray | null;
        if ((m = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(url.pathname))) {
            return this.namespaces.includes(m[1])
                ? json(200, { kind: "Namespace", apiVersion: "v1", metadata: { name: m[1] } })
                : json(404, { kind: "Status", apiVersion: "v1", status: "Failure", message: `namespaces "${m[1]}" not found`, reason: "NotFound", code: 404 });
        }
        if ((m = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)\/log$/.exec(url.pathname))) {
            const key = `${m[1]}/${url.searchParams.get("container")}${url.searchParams.get("previous") === "true" ? " previous" : ""}`;
            if (this.logs[key] === undefined) {
                return json(400, { kind: "Status", apiVersion: "v1", status: "Failure", message: `previous terminated container "tf-serving" in pod "${m[1]}" not found`, reason: "BadRequest", code: 400 });
            }
            res.writeHead(200, { "content-type": "text/plain" });
            res.end(this.logs[key]);
            return;
        }
        if (url.pathname === "/version") {
            return json(200, this.version);
        }
        if ((m = /^\/apis\/apps\/v1\/namespaces\/[^/]+\/deployments\/([^/]+)$/.exec(url.pathname))) {
            const name = m[1];
            const found = this.deployments.find((d) => (d as { metadata?: { name?: string } }).metadata?.name === name);
            if (found === undefined) {
                return json(404, { kind: "Status", apiVersion: "v1", status: "Failure", message: `deployments.apps "${name}" not found`, reason: "NotFound", code: 404 });
            }
            if (req.method === "DELETE") {
                this.deployments = this.deployments.filter((d) => d !== found);
                this.deleted.push(name);
                return json(200, { kind: "Status", apiVersion: "v1", status: "Success", code: 200 });
            }
            return json(200, found);
        }
        if (url.pathname === "/api/v1/nodes") {
            return this.nodes === undefined
                ? json(403, { kind: "Status", apiVersion: "v1", status: "Failure", message: "nodes is forbidden: User \"alice\" cannot list resource \"nodes\" in API group \"\" at the cluster scope", reason: "Forbidden", code: 403 })
                : list("NodeList", this.nodes);
        }
        switch (url.pathname.replace(/namespaces\/[^/]+\//, "namespaces/NS/")) {
            case "/api/v1/namespaces/NS/pods": return list("PodList", this.pods);
            case "/api/v1/namespaces/NS/services": return list("ServiceList", this.services);
            case "/api/v1/namespaces/NS/events": return list("EventList", this.events);
            case "/apis/apps/v1/namespaces/NS/deployments": return list("DeploymentList", this.deployments);
            case "/apis/apps/v1/namespaces/NS/replicasets": return list("ReplicaSetList", []);
            case "/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers": return this.hpas === undefined
                ? json(403, { kind: "Status", apiVersion: "v1", status: "Failure", message: "horizontalpodautoscalers.autoscaling is forbidden", reason: "Forbidden", code: 403 })
                : json(200, { kind: "HorizontalPodAutoscalerList", apiVersion: "autoscaling/v2", metadata: { resourceVersion: "1" }, items: this.hpas });
            default: return json(404, { kind: "Status", apiVersion: "v1", status: "Failure", message: "not found", code: 404 });
        }
    }
}

/** A kubeconfig file in `dir` whose one context talks to `server` with no credentials. */
export function fakeKubeconfig(dir: string, server: string): string {
    const file = path.join(dir, "kubeconfig");
    fs.writeFileSync(file, [
        "apiVersion: v1", "kind: Config", "current-context: fake",
        // client-node talks plain HTTP only with TLS verification off (there is no TLS to verify).
        "clusters:", `- name: fake`, `  cluster: {server: "${server}", insecure-skip-tls-verify: true}`,
        "users:", "- name: nobody", "  user: {}",
        "contexts:", "- name: fake", "  context: {cluster: fake, user: nobody}",
    ].join("\n"));
    return file;
}
