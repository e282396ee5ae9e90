import * as assert from "assert";
import {
    CredentialError, EndpointCredential, authorizationHeaders, challengeScheme, parseCredential, readCredential, redact,
    refusalAdvice, refusalOfGrpc, refusalOfHttp,
} from "../../../ops/endpointCredential";
import { credentialLine, isLoopbackHost } from "../../../ops/smoke";

const TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJl";
const BASIC = "alice:s3cret:with-colon";
const BASIC_B64 = Buffer.from(BASIC).toString("base64");

/** A reader over an in-memory folder: ENOENT for anything else, EISDIR for `dir`. */
function files(contents: Record<string, string>): (file: string) => Buffer {
    return (file) => {
        if (file === "dir") {
            throw Object.assign(new Error("EISDIR: illegal operation on a directory"), { code: "EISDIR" });
        }
        if (!(file in contents)) {
            throw Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), { code: "ENOENT" });
        }
        return Buffer.from(contents[file]);
    };
}

/** The CredentialError's message; fails the test when `run` returns. */
function refusal(run: () => unknown): string {
    try {
        run();
    } catch (err) {
        assert.ok(err instanceof CredentialError, String(err));
        return err.message;
    }
    assert.fail("expected a CredentialError");
}

describe("the endpoint credential", () => {
    describe("parseCredential", () => {
        it("makes `Bearer TOKEN` of a token, and `Basic base64(user:password)` of user:password (the password may hold ':')", () => {
            const bearer = parseCredential("bearer", `${TOKEN}\n`, "--token-file t");
            assert.strictEqual(bearer.authorization, `Bearer ${TOKEN}`);
            assert.deepStrictEqual(bearer.secrets, [TOKEN]);
            const basic = parseCredential("basic", `${BASIC}\r\n`, "TFS_BASIC_AUTH");
            assert.strictEqual(basic.authorization, `Basic ${BASIC_B64}`);
            assert.strictEqual(Buffer.from(basic.authorization.slice(6), "base64").toString(), BASIC);
            assert.deepStrictEqual(basic.secrets, [BASIC, BASIC_B64, "s3cret:with-colon"]);
            assert.strictEqual(basic.source, "TFS_BASIC_AUTH");
        });

        const mistakes: { name: string; kind: "bearer" | "basic"; text: string; says: RegExp }[] = [
            { name: "an empty file", kind: "bearer", text: "", says: /is empty/ },
            { name: "a file of a newline", kind: "basic", text: "\n", says: /is empty/ },
            { name: "two lines", kind: "bearer", text: `${TOKEN}\nsecond`, says: /has more than one line/ },
            { name: "a blank line after the value", kind: "bearer", text: `${TOKEN}\n\n`, says: /has more than one line/ },
            { name: "spaces around the value", kind: "bearer", text: ` ${TOKEN}`, says: /has spaces around the value/ },
            { name: "the scheme written in", kind: "bearer", text: `Bearer ${TOKEN}`, says: /starts with "Bearer ": write the token alone/ },
            { name: "a space inside a token", kind: "bearer", text: "abc def-ghij", says: /holds a space/ },
            { name: "a control character", kind: "bearer", text: "abc\u0007defghij", says: /control or non-ASCII character/ },
            { name: "a non-ASCII character", kind: "basic", text: "alice:pässword", says: /control or non-ASCII character/ },
            { name: "Basic written in", kind: "basic", text: `Basic ${BASIC_B64}`, says: /starts with "Basic ": write user:password itself/ },
            { name: "no colon", kind: "basic", text: "alices3cret", says: /has no ':' between the user and the password/ },
            { name: "no user", kind: "basic", text: ":s3cret-password", says: /has no user before the ':'/ },
        ];
        for (const m of mistakes) {
            it(`refuses ${m.name} in one line that names the source and the form, never the value`, () => {
                const message = refusal(() => parseCredential(m.kind, m.text, "--token-file /run/secrets/token"));
                assert.match(message, m.says);
                assert.match(message, /^--token-file \/run\/secrets\/token /);
                assert.match(message, m.kind === "bearer" ? /it must hold a bearer token on one line/ : /it must hold user:password on one line/);
                assert.match(message, /docs\/guides\/endpoint-security\.md#sending-credentials-with-tfs/);
                assert.doesNotMatch(message, /\n/);
                for (const part of m.text.split(/[\s:]+/).filter((p) => p.length >= 6 && !/^(Bearer|Basic)$/.test(p))) {
                    assert.ok(!message.includes(part), `"${message}" holds "${part}"`);
                }
            });
        }
    });

    describe("readCredential (options, then the environment)", () => {
        const read = files({ token: `${TOKEN}\n`, basic: BASIC, empty: "", lines: "a\nb\n" });

        it("is undefined when neither an option nor a variable is given", () => {
            assert.strictEqual(readCredential({}, {}, read), undefined);
        });

        it("reads --token-file / --basic-auth-file, else TFS_TOKEN / TFS_BASIC_AUTH, naming the source", () => {
            assert.deepStrictEqual(
                [readCredential({ tokenFile: "token" }, {}, read), readCredential({}, { TFS_TOKEN: TOKEN }, read)].map((c) => [c?.authorization, c?.source]),
                [[`Bearer ${TOKEN}`, "--token-file token"], [`Bearer ${TOKEN}`, "TFS_TOKEN"]]);
            assert.deepStrictEqual(
                [readCredential({ basicAuthFile: "basic" }, {}, read), readCredential({}, { TFS_BASIC_AUTH: BASIC }, read)].map((c) => [c?.authorization, c?.source]),
                [[`Basic ${BASIC_B64}`, "--basic-auth-file basic"], [`Basic ${BASIC_B64}`, "TFS_BASIC_AUTH"]]);
        });

        it("lets a file option win over its own variable", () => {
            assert.strictEqual(readCredential({ tokenFile: "token" }, { TFS_TOKEN: "other-token" }, read)?.source, "--token-file token");
        });

        it("refuses two kinds at once, from options, variables or both, naming both sources", () => {
            for (const [flags, env, sources] of [
                [{ tokenFile: "token", basicAuthFile: "basic" }, {}, /--token-file token and --basic-auth-file basic/],
                [{}, { TFS_TOKEN: TOKEN, TFS_BASIC_AUTH: BASIC }, /TFS_TOKEN and TFS_BASIC_AUTH/],
                [{ tokenFile: "token" }, { TFS_BASIC_AUTH: BASIC }, /--token-file token and TFS_BASIC_AUTH/],
            ] as const) {
                const message = refusal(() => readCredential(flags, env, read));
                assert.match(message, /^two credentials given \(/);
                assert.match(message, sources);
                assert.match(message, /an endpoint takes one/);
                assert.ok(!message.includes(TOKEN) && !message.includes("s3cret"), message);
            }
        });

        it("refuses an empty or multi-line file, an empty variable, a missing file and a folder", () => {
            assert.match(refusal(() => readCredential({ tokenFile: "empty" }, {}, read)), /^--token-file empty is empty; it must hold a bearer token on one line/);
            assert.match(refusal(() => readCredential({ basicAuthFile: "lines" }, {}, read)), /^--basic-auth-file lines has more than one line/);
            assert.match(refusal(() => readCredential({}, { TFS_TOKEN: "" }, read)), /^TFS_TOKEN is empty/);
            assert.match(refusal(() => readCredential({ tokenFile: "nope" }, {}, read)), /^--token-file nope does not exist \(ENOENT\): check the path/);
            assert.match(refusal(() => readCredential({ tokenFile: "dir" }, {}, read)), /^--token-file dir is a folder: pass the file that holds the credential/);
        });
    });

    it("sends it as the authorization header, and nothing without one", () => {
        assert.deepStrictEqual(authorizationHeaders(parseCredential("bearer", TOKEN, "TFS_TOKEN")), { authorization: `Bearer ${TOKEN}` });
        assert.deepStrictEqual(authorizationHeaders(undefined), {});
    });

    it("is taken out of any text: the token, user:password, its base64 and the password alone", () => {
        const bearer = parseCredential("bearer", TOKEN, "TFS_TOKEN");
        assert.strictEqual(redact(`got Bearer ${TOKEN} twice: ${TOKEN}`, bearer), "got Bearer [redacted] twice: [redacted]");
        const basic = parseCredential("basic", BASIC, "TFS_BASIC_AUTH");
        assert.strictEqual(redact(`Basic ${BASIC_B64} / ${BASIC} / s3cret:with-colon`, basic), "Basic [redacted] / [redacted] / [redacted]");
        assert.strictEqual(redact("unchanged", undefined), "unchanged");
        // A password of three characters would blank every word that holds them.
        assert.strictEqual(redact("a bob's job", parseCredential("basic", "bob:job", "TFS_BASIC_AUTH")), "a bob's job");
    });

    it("says where it goes, never what it is, and warns of plain http off the machine", () => {
        const bearer = parseCredential("bearer", TOKEN, "TFS_TOKEN");
        assert.strictEqual(credentialLine(bearer, "http://127.0.0.1:8501"), "credential: Bearer token from TFS_TOKEN on every request");
        assert.match(credentialLine(bearer, "http://203.0.113.7:8501"), /over plain http: anyone on the path can read it; prefer https/);
        assert.doesNotMatch(credentialLine(bearer, "https://203.0.113.7"), /plain/);
        assert.ok(!credentialLine(bearer, "http://203.0.113.7").includes(TOKEN));
        assert.deepStrictEqual(["127.0.0.1", "127.1.2.3", "localhost", "[::1]", "::1", "10.0.0.1", "example.com"].map(isLoopbackHost),
            [true, true, true, true, true, false, false]);
    });
});

describe("a refusal by the endpoint", () => {
    const token: EndpointCredential = parseCredential("bearer", TOKEN, "--token-file /run/token");

    it("is HTTP 401 or 403, gRPC UNAUTHENTICATED (16) or PERMISSION_DENIED (7); nothing else", () => {
        assert.deepStrictEqual([401, 403, 404, 500, 200].map(refusalOfHttp), ["unauthenticated", "forbidden", undefined, undefined, undefined]);
        assert.deepStrictEqual(["UNAUTHENTICATED", "PERMISSION_DENIED", "UNAVAILABLE", "NOT_FOUND"].map(refusalOfGrpc),
            ["unauthenticated", "forbidden", undefined, undefined]);
    });

    it("reads a challenge's scheme only", () => {
        assert.strictEqual(challengeScheme("Basic realm=\"traefik\""), "Basic");
        assert.strictEqual(challengeScheme("bearer error=\"invalid_token\""), "Bearer");
        assert.strictEqual(challengeScheme(null), undefined);
    });

    it("without a credential: names both options and both variables", () => {
        const advice = refusalAdvice("unauthenticated", undefined, "Basic");
        assert.match(advice, /^the endpoint asks callers for a credential and none was sent \(it asks for Basic credentials\): /);
        for (const name of ["--token-file FILE", "TFS_TOKEN", "--basic-auth-file FILE", "TFS_BASIC_AUTH"]) {
            assert.ok(advice.includes(name), `${advice} names ${name}`);
        }
    });

    it("with one refused: names its source, and the other kind when the challenge asks for it", () => {
        assert.match(refusalAdvice("unauthenticated", token), /did not accept the bearer token from --token-file \/run\/token: check that --token-file \/run\/token holds the credential the endpoint expects \(a token not expired/);
        assert.match(refusalAdvice("unauthenticated", token, "Basic"), /it asks for Basic credentials and --token-file \/run\/token gives Bearer ones, so pass the other kind/);
        assert.ok(!refusalAdvice("unauthenticated", token).includes(TOKEN));
    });

    it("403: the caller's address outside loadBalancerSourceRanges, or a right the credential lacks", () => {
        assert.match(refusalAdvice("forbidden", undefined), /its address is outside the ranges the endpoint allows \(loadBalancerSourceRanges in the stack's config/);
        assert.match(refusalAdvice("forbidden", token), /or the credential from --token-file \/run\/token lacks a right the endpoint requires/);
    });
});
