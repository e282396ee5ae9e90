/**
 * The credential `tfs smoke`, `tfs deploy`'s smoke and `tfs doctor` send to an endpoint that asks its
 * callers for one (a Gateway with caller authentication): one `authorization` value, sent as the
 * HTTP header on every REST request and as metadata on every gRPC call. It is read from a file or an
 * environment variable, never from a flag's value (shell history and the process list would keep
 * it), and never printed: messages name where it came from, and `redact` takes it out of any text a
 * server sent back. Also here: what a refusal (HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED)
 * means and how to fix it, in the words smoke and doctor share.
 */

/** `bearer`: `authorization: Bearer TOKEN` (EKS JWT validation, GKE IAP). `basic`: `authorization: Basic base64(user:password)` (Traefik's basicAuth). */
export type CredentialKind = "bearer" | "basic";

/** Where each kind is read from (the file option, else the environment variable), what it holds, and its name in a sentence. */
export const CREDENTIAL_SOURCES: Readonly<Record<CredentialKind, { option: string; env: string; holds: string; the: string }>> = {
    bearer: { option: "--token-file", env: "TFS_TOKEN", holds: "a bearer token", the: "the bearer token" },
    basic: { option: "--basic-auth-file", env: "TFS_BASIC_AUTH", holds: "user:password", the: "the user:password" },
};

/** The docs section on sending credentials, cited by every message about them. */
export const CREDENTIALS_DOC = "docs/guides/endpoint-security.md#sending-credentials-with-tfs";

export interface EndpointCredential {
    kind: CredentialKind;
    /** The `authorization` value: `Bearer TOKEN` or `Basic base64(user:password)`. */
    authorization: string;
    /** Where it was read, for messages: `--token-file /run/token` or `TFS_TOKEN`. Never the value. */
    source: string;
    /** Every form of the secret that must never be printed (the token; user:password, its base64 and the password). */
    secrets: string[];
}

/** What may be said of a credential: its kind and where it came from (what a doctor's snapshot keeps). */
export type CredentialOrigin = Pick<EndpointCredential, "kind" | "source">;

/** A credential that cannot be used as given: a usage mistake, said before anything is sent. Never holds the secret. */
export class CredentialError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "CredentialError";
    }
}

/** The credential options as commander parses them. */
export interface CredentialFlags {
    tokenFile?: string;
    basicAuthFile?: string;
}

/**
 * The credential to send, from `--token-file` / `--basic-auth-file` or else `TFS_TOKEN` / `TFS_BASIC_AUTH`
 * (a file option wins over its own variable); undefined when none is given. Throws CredentialError
 * for two kinds at once (from any mix of options and variables), an unreadable, empty or
 * multi-line file, or a value of the wrong form.
 */
export function readCredential(
    flags: CredentialFlags,
    env: NodeJS.ProcessEnv,
    readFile: (file: string) => Buffer,
): EndpointCredential | undefined {
    /** A credential given: its kind, where (for messages), and its file or its variable's text. */
    type Given = { kind: CredentialKind; source: string; file?: string; text?: string };
    const given = (["bearer", "basic"] as const).flatMap((kind): Given[] => {
        const { option, env: variable } = CREDENTIAL_SOURCES[kind];
        const file = kind === "bearer" ? flags.tokenFile : flags.basicAuthFile;
        if (file !== undefined) {
            return [{ kind, source: `${option} ${file}`, file }];
        }
        const text = env[variable];
        return text === undefined ? [] : [{ kind, source: variable, text }];
    });
    if (given.length === 0) {
        return undefined;
    }
    if (given.length > 1) {
        throw new CredentialError(`two credentials given (${given.map((g) => g.source).join(" and ")}); an endpoint takes one: `
            + `keep ${CREDENTIAL_SOURCES.bearer.option}/${CREDENTIAL_SOURCES.bearer.env} for a bearer token or `
            + `${CREDENTIAL_SOURCES.basic.option}/${CREDENTIAL_SOURCES.basic.env} for user:password, and drop or unset the other (${CREDENTIALS_DOC})`);
    }
    const [{ kind, source, file, text }] = given;
    return parseCredential(kind, file === undefined ? (text as string) : readCredentialFile(file, source, readFile), source);
}

function readCredentialFile(file: string, source: string, readFile: (file: string) => Buffer): string {
    try {
        return readFile(file).toString("utf8");
    } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why: Record<string, string> = {
            EISDIR: "is a folder: pass the file that holds the credential",
            ENOENT: "does not exist (ENOENT): check the path",
            EACCES: "cannot be read by this user (EACCES): let the user running tfs read it, and nobody else",
        };
        throw new CredentialError(`${source} ${why[code ?? ""] ?? `cannot be read (${code ?? (err as Error).message})`} (${CREDENTIALS_DOC})`);
    }
}

/**
 * The credential of kind `kind` in `text` (a file's contents or a variable's value), read from
 * `source`. One line (a final newline is dropped); throws CredentialError naming `source` and the
 * form expected, never the text.
 */
export function parseCredential(kind: CredentialKind, text: string, source: string): EndpointCredential {
    const { holds } = CREDENTIAL_SOURCES[kind];
    const value = text.replace(/\r?\n$/, "");
    const fail = (problem: string) => new CredentialError(`${source} ${problem}; it must hold ${holds} on one line (${CREDENTIALS_DOC})`);
    if (value.trim() === "") {
        throw fail("is empty");
    }
    if (/[\r\n]/.test(value)) {
        throw fail("has more than one line");
    }
    if (value !== value.trim()) {
        throw fail("has spaces around the value");
    }
    // A header value cannot carry control characters, and is Latin-1 at most: printable ASCII is what every server reads alike.
    if (/[^\x20-\x7e]/.test(value)) {
        throw fail("holds a control or non-ASCII character");
    }
    if (kind === "bearer") {
        if (/^bearer\s/i.test(value)) {
            throw fail("starts with \"Bearer \": write the token alone (tfs adds the scheme)");
        }
        if (/\s/.test(value)) {
            throw fail("holds a space (a bearer token has none)");
        }
        return { kind, authorization: `Bearer ${value}`, source, secrets: [value] };
    }
    if (/^basic\s/i.test(value)) {
        throw fail("starts with \"Basic \": write user:password itself (tfs encodes it)");
    }
    // As Go's Request.BasicAuth reads it (Traefik's basicAuth): the user ends at the first ':'.
    const colon = value.indexOf(":");
    if (colon < 0) {
        throw fail("has no ':' between the user and the password");
    }
    if (colon === 0) {
        throw fail("has no user before the ':'");
    }
    const encoded = Buffer.from(value, "utf8").toString("base64");
    return { kind, authorization: `Basic ${encoded}`, source, secrets: [value, encoded, value.slice(colon + 1)] };
}

/** The REST request's headers for `credential` (none without one). */
export function authorizationHeaders(credential: EndpointCredential | undefined): Record<string, string> {
    return credential === undefined ? {} : { authorization: credential.authorization };
}

/**
 * Short secrets are not searched for: a password of three characters would blank every word that
 * holds them, and is no secret worth the name.
 */
const SHORTEST_REDACTED = 4;

/** `text` with every form of the credential's secret replaced by `[redacted]`: for anything a server sent back. */
export function redact(text: string, credential: EndpointCredential | undefined): string {
    if (credential === undefined) {
        return text;
    }
    // Longest first, so a secret that holds another (user:password holds password) goes whole.
    const secrets = credential.secrets.filter((s) => s.length >= SHORTEST_REDACTED).sort((a, b) => b.length - a.length);
    return secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
}

/** What a refusal says: no (acceptable) credential, or a caller the endpoint will not serve. */
export type Refusal = "unauthenticated" | "forbidden";

/** HTTP 401 and 403 are refusals by the endpoint (a Gateway's authentication or source ranges): TF Serving answers neither. */
export function refusalOfHttp(status: number): Refusal | undefined {
    return status === 401 ? "unauthenticated" : status === 403 ? "forbidden" : undefined;
}

/**
 * gRPC's UNAUTHENTICATED (16) and PERMISSION_DENIED (7), by name as describeGrpcError gives them.
 * A proxy's HTTP 401/403 reaches a grpc-js client as these two (grpc-js `subchannel-call.js`,
 * mapHttpStatusCode; grpc/grpc `doc/http-grpc-status-mapping.md`).
 */
export function refusalOfGrpc(code: string): Refusal | undefined {
    return code === "UNAUTHENTICATED" ? "unauthenticated" : code === "PERMISSION_DENIED" ? "forbidden" : undefined;
}

/**
 * The scheme of a `WWW-Authenticate` challenge (`Basic`, `Bearer`), the one part of it worth
 * repeating; undefined for none.
 */
export function challengeScheme(header: string | null | undefined): string | undefined {
    const scheme = /^\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)/.exec(header ?? "")?.[1];
    return scheme === undefined ? undefined : scheme[0].toUpperCase() + scheme.slice(1).toLowerCase();
}

/** How to send each kind, for a message that asks for a credential. */
const HOW_TO_SEND = `pass ${CREDENTIAL_SOURCES.bearer.option} FILE or set ${CREDENTIAL_SOURCES.bearer.env} (a bearer token: EKS JWT validation, GKE IAP), `
    + `or ${CREDENTIAL_SOURCES.basic.option} FILE or set ${CREDENTIAL_SOURCES.basic.env} (user:password: Traefik's basicAuth)`;

/**
 * What a refusal means and its fix, as the end of a sentence such as "the endpoint refused the
 * call with HTTP 401: ...". Names the credential's source, never its value.
 */
export function refusalAdvice(refusal: Refusal, credential: CredentialOrigin | undefined, challenge?: string): string {
    const asked = challenge === undefined ? "" : ` (it asks for ${challenge} credentials)`;
    if (refusal === "unauthenticated") {
        if (credential === undefined) {
            return `the endpoint asks callers for a credential and none was sent${asked}: ${HOW_TO_SEND} (${CREDENTIALS_DOC})`;
        }
        const sent = credential.kind === "bearer" ? "Bearer" : "Basic";
        const mismatch = challenge !== undefined && challenge !== sent
            ? `: it asks for ${challenge} credentials and ${credential.source} gives ${sent} ones, so pass the other kind (${HOW_TO_SEND})`
            : `${asked}: check that ${credential.source} holds the credential the endpoint expects `
                + (credential.kind === "bearer" ? "(a token not expired, of the issuer and audience it validates)" : "(a user and password among the Gateway's users)");
        return `the endpoint did not accept ${CREDENTIAL_SOURCES[credential.kind].the} from ${credential.source}${mismatch} (${CREDENTIALS_DOC})`;
    }
    const credentialPart = credential === undefined
        ? "or it wants a credential and refuses rather than challenges (send one: see the doc)"
        : `or the credential from ${credential.source} lacks a right the endpoint requires (a JWT claim, IAP access)`;
    return "the endpoint refused this caller: its address is outside the ranges the endpoint allows (loadBalancerSourceRanges in the stack's config; "
        + `add the client's range, or call from inside one), ${credentialPart} (${CREDENTIALS_DOC})`;
}
