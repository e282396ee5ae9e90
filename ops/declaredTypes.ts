/**
 * Pulumi.yaml's typed config declarations (`replicas: {type: integer}`), checked against a stack's
 * values as the engine checks them before the program runs: `validateStackConfigValue` in pulumi/pulumi
 * pkg/workspace/config.go calls `ValidateConfigValue` (sdk/go/common/workspace/project.go) on the value
 * the program would receive, its text for a scalar and the parsed JSON for a list or mapping. A value
 * that fails stops `pulumi preview` with "Stack 'NAME' with configuration key 'KEY' must be of type
 * 'TYPE'" (measured with Pulumi 3.277.0: `replicas: True` and `gpu: yes` stop there; `replicas: 0x2`
 * reaches the program as "2").
 */

/** A Pulumi.yaml config declaration's type, or an array's items type. */
export interface DeclaredType {
    type?: string;
    items?: DeclaredType;
}

/**
 * `ValidateConfigValue`: a string is any text; an integer is a whole JSON number or text `strconv.Atoi`
 * takes (an optional sign and decimal digits, within 64 bits); a boolean is `true`/`false` or the text "true"/"false";
 * an object a mapping; an array a list whose every item is of the items type (an array without
 * `items` takes nothing).
 */
export function matchesDeclaredType(declared: DeclaredType, value: unknown): boolean {
    switch (declared.type) {
        case "string":
            return typeof value === "string";
        case "integer":
            return (typeof value === "number" && Number.isInteger(value))
                || (typeof value === "string" && /^[+-]?[0-9]+$/.test(value) && BigInt(value) >= -(2n ** 63n) && BigInt(value) < 2n ** 63n);
        case "boolean":
            return typeof value === "boolean" || value === "true" || value === "false";
        case "object":
            return value !== null && typeof value === "object" && !Array.isArray(value);
        default:
            return Array.isArray(value) && declared.items !== undefined && value.every((item) => matchesDeclaredType(declared.items as DeclaredType, item));
    }
}

/** The type's name as the engine's message writes it (`InferFullTypeName`): `integer`, `array<string>`. */
export function declaredTypeName(declared: DeclaredType): string {
    return declared.items !== undefined ? `array<${declaredTypeName(declared.items)}>` : declared.type ?? "";
}

const FIX: Record<string, string> = {
    string: "write the text as a scalar (quote it to keep it as written)",
    integer: "write a whole number such as 2",
    boolean: "write true or false",
    object: "write a mapping of key: value lines",
};

/**
 * Why the engine would refuse `value` (as the program would receive it: text for a scalar, parsed
 * JSON for a list or mapping) for `key` of `stack`, or undefined.
 */
export function declaredTypeProblem(stack: string, key: string, declared: DeclaredType | undefined, value: unknown): string | undefined {
    if (declared?.type === undefined || matchesDeclaredType(declared, value)) {
        return undefined;
    }
    const name = declaredTypeName(declared);
    const items = declared.items;
    const list = Array.isArray(value) ? (value as unknown[]) : [];
    const bad = items === undefined ? -1 : list.findIndex((item) => !matchesDeclaredType(items, item));
    const fix = FIX[declared.type] ?? (items === undefined ? "write a list"
        : `${bad >= 0 ? `item [${bad}] (${JSON.stringify(list[bad])}) is not of type ${declaredTypeName(items)}: ` : ""}`
            + `write a list of ${declaredTypeName(items)} items, e.g. ${items.type === "integer" ? "[1, 2]" : items.type === "boolean" ? "[true, false]" : "[a, b]"}`);
    return `Pulumi.yaml declares ${key} of type ${name}, so \`pulumi preview\` refuses this value before the program runs `
        + `("Stack '${stack}' with configuration key '${key}' must be of type '${name}'"): ${fix}`;
}
