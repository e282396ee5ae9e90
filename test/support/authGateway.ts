/**
 * A loopback stand-in for a Gateway with caller authentication or source ranges in front of TF
 * Serving's REST port, for the tests of the credential `tfs smoke` and `tfs doctor` send. It answers
 * as Traefik's middlewares do (traefik/traefik `pkg/middlewares/auth/basic_auth.go`: a request
 * without the right `authorization` gets 401 with a `WWW-Authenticate` challenge; `pkg/middlewares/ipallowlist/ip_allowlist.go`:
 * a caller outside the ranges gets 403 whatever it sends), and passes every other request through,
 * headers included, to the server behind it.
 */
import * as http from "http";
import { AddressInfo } from "net";

/** What the gateway lets through: the one `authorization` value it accepts, or nobody (a range that leaves the caller out). */
export type GatewayRule =
    | { kind: "require"; authorization: string; challenge: "Basic" | "Bearer" }
    | { kind: "forbid" };

export interface GatewayOptions {
    /**
     * Answers every `:predict` it lets through with HTTP 502 and a body that repeats the
     * `authorization` header it got: a careless proxy's error page, which `tfs` must not print.
     */
    echoOnPredict?: boolean;
}

export class AuthGateway {
    /** The `authorization` header of every request, in order (undefined: none sent). */
    readonly seen: (string | undefined)[] = [];
    private readonly server: http.Server;

    constructor(private readonly upstream: string, public rule: GatewayRule, private readonly options: GatewayOptions = {}) {
        this.server = http.createServer((req, res) => this.answer(req, res));
    }

    /** Listens on 127.0.0.1; resolves to its base URL. */
    async listen(): Promise<string> {
        await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    }

    close(): Promise<void> {
        this.server.closeAllConnections();
        return new Promise((resolve) => this.server.close(() => resolve()));
    }

    private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
        const authorization = req.headers.authorization;
        this.seen.push(authorization);
        if (this.rule.kind === "forbid") {
            res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
            res.end("Forbidden");
            return;
        }
        if (authorization !== this.rule.authorization) {
            res.writeHead(401, { "content-type": "text/plain", "www-authenticate": `${this.rule.challenge} realm="tfs-test"` });
            res.end("401 Unauthorized\n");
            return;
        }
        if (this.options.echoOnPredict && req.url?.endsWith(":predict")) {
            res.writeHead(502, { "content-type": "text/plain" });
            res.end(`upstream failed for a request with authorization: ${authorization}`);
            return;
        }
        const target = new URL(req.url ?? "/", this.upstream);
        const forwarded = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
        });
        forwarded.on("error", () => {
            res.writeHead(502);
            res.end("Bad Gateway");
        });
        req.pipe(forwarded);
    }
}
