/**
 * Who may call a model behind a Gateway: the rules of the generic platform's source ranges, caller
 * credentials and gRPC host, shared by `ModelGateway` (its resolver) and the stack's `gateway` keys,
 * so a library user gets every check a stack user gets. Pure.
 */
import { cidrProblem } from "../contract/cidr";
import type { ArgsIssue } from "../components/argsIssues";

/** Where a model's endpoint security is explained, for messages. */
export const ENDPOINT_SECURITY_DOC = "docs/guides/endpoint-security.md";

/** The placeholder `tfs plan` puts where the stack file holds an encrypted value it cannot decrypt offline. */
export const OFFLINE_SECRET = "[secret]";

/** The template's place for the model's name in `gateway.grpcHostname`. */
export const MODEL_PLACEHOLDER = "{model}";

/** A Gateway API Hostname (gateway-api `apis/v1/shared_types.go`, `Hostname`): a DNS name, an optional leading `*.` wildcard, no IP, no port. */
const HOSTNAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `host` cannot be a route's hostname, or undefined. */
export function hostnameProblem(host: string): string | undefined {
    if (host.length > 253 || !HOSTNAME.test(host) || /^[0-9.]+$/.test(host)) {
        return "must be a DNS name the gRPC clients use (lowercase letters, digits, '-' and '.', no IP address, no port), e.g. \"half-plus-two.models.example.com\"";
    }
    return undefined;
}

/** `template`'s host for `model`: `{model}` replaced by the model's name. */
export function grpcHostnameFor(template: string, model: string): string {
    return template.split(MODEL_PLACEHOLDER).join(model);
}

/** Why `template` (`gateway.grpcHostname`) is not a host once a model's name fills `{model}`, or undefined. */
export function hostnameTemplateProblem(template: string): string | undefined {
    return hostnameProblem(grpcHostnameFor(template, "m"));
}

/**
 * An htpasswd line: `user:HASH`, the hash one Traefik's basicAuth checks (bcrypt `$2a$`/`$2b$`/`$2y$`,
 * Apache MD5 `$apr1$`, SHA1 `{SHA}`; traefik `pkg/middlewares/auth/basic_auth.go` through goauth's
 * htpasswd). A plain password after the colon is what this refuses.
 */
const HTPASSWD_LINE = /^[^:\s]+:(\$2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}|\$apr1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}|\{SHA\}[A-Za-z0-9+/]{27}=)$/;

/** At most this many callers in one Secret: a basicAuth list is read on every request. */
export const MAX_BASIC_AUTH_USERS = 100;

/** Why `users` (htpasswd lines, one per caller) cannot be the callers' list, or undefined. Never quotes a line: it holds a hash. */
export function htpasswdProblem(users: string): string | undefined {
    if (users === OFFLINE_SECRET) {
        return undefined;
    }
    const lines = users.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
    if (lines.length === 0) {
        return "holds no caller: write one htpasswd line per caller, e.g. the output of `htpasswd -nbB alice 'PASSWORD'`";
    }
    if (lines.length > MAX_BASIC_AUTH_USERS) {
        return `holds ${lines.length} callers, more than ${MAX_BASIC_AUTH_USERS}: give programs a shared credential per team, or use a token issuer`;
    }
    const bad = lines.findIndex((l) => !HTPASSWD_LINE.test(l));
    if (bad >= 0) {
        return `line ${bad + 1} is not \`user:HASH\` with a bcrypt, MD5 ($apr1$) or SHA1 ({SHA}) hash (a plain password is refused: the Secret would hold it): ` +
            "make each line with `htpasswd -nbB USER 'PASSWORD'`";
    }
    const names = lines.map((l) => l.slice(0, l.indexOf(":")));
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) {
        return `names the caller "${twice}" twice: keep one line per caller`;
    }
    return undefined;
}

/** Why `ranges` cannot be a Gateway's source ranges, each under its index. */
export function sourceRangeIssues(ranges: readonly string[], field = "sourceRanges"): ArgsIssue[] {
    return ranges.flatMap((range, i) => {
        const problem = typeof range === "string" ? cidrProblem(range) : "must be a CIDR string";
        return problem === undefined ? [] : [{ field: `${field}[${i}]`, value: range, message: problem }];
    });
}
