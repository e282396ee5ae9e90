/**
 * The endpoint credential options that `tfs smoke`, `tfs deploy` and `tfs doctor` share: a file
 * option per kind, or its environment variable; never a flag that takes the secret itself.
 */
import * as fs from "fs";
import { Command } from "commander";
import { CREDENTIAL_SOURCES, CredentialError, CredentialFlags, EndpointCredential, readCredential } from "../ops/endpointCredential";
import { UserError } from "./errors";

/** Adds `--token-file FILE` and `--basic-auth-file FILE` to `command`. */
export function withCredentialOptions(command: Command): Command {
    const { bearer, basic } = CREDENTIAL_SOURCES;
    return command
        .option(`${bearer.option} <file>`, `send "authorization: Bearer TOKEN" with the token in this file (one line; default: the ${bearer.env} environment variable)`)
        .option(`${basic.option} <file>`, `send "authorization: Basic ..." with user:password from this file (one line; default: the ${basic.env} environment variable)`);
}

/**
 * The credential the flags and the environment give, or undefined; a UserError with `usageExit`
 * (the command's code for bad usage) for one that cannot be sent. Read before anything is sent.
 */
export function credentialOption(flags: CredentialFlags, usageExit: number, env: NodeJS.ProcessEnv = process.env): EndpointCredential | undefined {
    try {
        return readCredential(flags, env, (file) => fs.readFileSync(file));
    } catch (err) {
        if (err instanceof CredentialError) {
            throw new UserError(err.message, usageExit);
        }
        throw err;
    }
}
