/**
 * A component's cross-field checks, shared with the config layer: a pure resolver returns each
 * problem under the field it names, the component throws them all at once before it registers
 * anything (`argsError`, components/refusal.ts), and the config layer records them under its own
 * keys (`gke.masterCidr`), as `modelServerSizing` does for sizing. Pure: the registries' renderers
 * import it and load no Pulumi SDK.
 */

/** A problem with a component's arguments. */
export interface ArgsIssue {
    /** The field, as the Args name it (`masterCidr`, `adminPrincipalArns[1]`). */
    field: string;
    value: unknown;
    /** What is wrong and how to fix it, after the field's name. */
    message: string;
}

/** The one line that refuses `issues` of `component` `name`, naming every field. */
export function argsMessage(component: string, name: string, issues: ArgsIssue[]): string {
    return `${component} ${name}: ${issues.map((i) => `${i.field} ${i.message}`).join("; ")}`;
}

/**
 * The refusal a pure renderer throws (a Gateway controller's rules, which load no SDK); the
 * component that calls it rethrows it as its `argsError` (`refusing`, components/refusal.ts).
 */
export class ArgsRefusal extends Error {
    constructor(readonly component: string, readonly resourceName: string, readonly issues: ArgsIssue[]) {
        super(argsMessage(component, resourceName, issues));
    }
}
