/**
 * An endpoint that refuses its caller (HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED): the
 * Gateway's caller authentication or its source ranges answered, not the model server. Pods can
 * all be Ready while every client is turned away; from outside it looks like a dead server.
 */
import { CREDENTIAL_SOURCES, refusalAdvice } from "../endpointCredential";
import { Finding, Rule, Severity } from "./findings";
import { EndpointAnswer } from "./snapshot";

/**
 * How serious a refusal is depends on what was sent: a credential refused is an error (it, or the
 * caller's address, is wrong); a 403 with none may be a range that leaves this caller out (a
 * warning: clients elsewhere may be inside); a 401 with none is the endpoint asking for a
 * credential, as configured (information: it names what clients must send).
 */
function severity(answer: EndpointAnswer): Severity {
    if (answer.credential !== undefined) {
        return "error";
    }
    return answer.refusal === "forbidden" ? "warning" : "info";
}

function summary(answer: EndpointAnswer): string {
    if (answer.refusal === "forbidden") {
        return `the ${answer.transport} endpoint refused this caller (${answer.answer}): a source range or a missing right, not a dead server`;
    }
    return answer.credential === undefined
        ? `the ${answer.transport} endpoint asks callers for a credential (${answer.answer}): authentication, not a dead server`
        : `the ${answer.transport} endpoint did not accept the credential from ${answer.credential.source} (${answer.answer})`;
}

export const endpointRefused: Rule = (snapshot) => (snapshot.endpoints ?? []).flatMap((answer): Finding[] => {
    if (answer.refusal === undefined) {
        return [];
    }
    const sent = answer.credential === undefined
        ? `no credential sent (neither ${CREDENTIAL_SOURCES.bearer.option}/${CREDENTIAL_SOURCES.bearer.env} nor ${CREDENTIAL_SOURCES.basic.option}/${CREDENTIAL_SOURCES.basic.env})`
        : `sent ${CREDENTIAL_SOURCES[answer.credential.kind].the} from ${answer.credential.source}`;
    const advice = refusalAdvice(answer.refusal, answer.credential, answer.challenge);
    return [{
        kind: "endpoint-refused",
        severity: severity(answer),
        object: `endpoint/${answer.call.slice(answer.call.indexOf(" ") + 1)}`,
        model: answer.model,
        summary: summary(answer),
        evidence: [
            `${answer.call}: ${answer.answer}`,
            ...(answer.challenge === undefined ? [] : [`WWW-Authenticate: ${answer.challenge} (the endpoint's challenge)`]),
            sent,
        ],
        fix: `${advice[0].toUpperCase()}${advice.slice(1)}.`,
    }];
});
