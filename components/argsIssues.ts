/**
 * A component's cross-field checks, shared with the config layer: a pure resolver returns each
 * problem under the field it names, the component throws them all at once before it registers
 * anything, and the config layer records them under its own keys (`gke.masterCidr`), as
 * `modelServerSizing` does for sizing.
 */

/** A problem with a component's arguments. */
export interface ArgsIssue {
    /** The field, as the Args name it (`masterCidr`, `adminPrincipalArns[1]`). */
    field: string;
    value: unknown;
    /** What is wrong and how to fix it, after the field's name. */
    message: string;
}

/** The one error `component` `name` throws for `issues`, naming every field. */
export function argsError(component: string, name: string, issues: ArgsIssue[]): Error {
    return new Error(`${component} ${name}: ${issues.map((i) => `${i.field} ${i.message}`).join("; ")}`);
}
