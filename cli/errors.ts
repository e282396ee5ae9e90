/**
 * A mistake the user can fix (a wrong path, a bad flag, a model TF Serving could not load).
 * The CLI prints its message without a stack trace and exits with `exitCode`.
 */
export class UserError extends Error {
    constructor(message: string, readonly exitCode = 1) {
        super(message);
        this.name = "UserError";
    }
}
