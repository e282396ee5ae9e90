/**
 * What a facade `ModelImage` left at the stack's last update, read by the component itself. A
 * TypeScript program passes the library's `previousImage` from its stack records
 * (stacks/stateRecords.ts); a YAML or Python program has no such records to pass (the argument is a
 * record the schema cannot carry), so the facade reads the stack's latest checkpoint (the engine's
 * builtin the program uses too, components/previousOutputs.ts) and takes the Image it registered there:
 * an unchanged model then keeps the push decision of its last update, and previews no change.
 */
import { imageTag } from "../serving/images";
import type { PreviousImage } from "../serving/pushDecision";
import type { CheckpointResource } from "../components/previousOutputs";

const MODEL_IMAGE = "tf-serving:index:ModelImage";
const DOCKER_IMAGE = "docker:index/image:Image";

/** Whether `urn` names `name`, of a type chain (its own type last) ending with `types`. */
export function urnEndsWith(urn: string, types: readonly string[], name: string): boolean {
    const [, , chain, ...rest] = urn.split("::");
    if (chain === undefined || rest.join("::") !== name) {
        return false;
    }
    const own = chain.split("$");
    return own.length >= types.length && own.slice(own.length - types.length).every((t, i) => t === types[i]);
}

/**
 * The facade `ModelImage` named `name` (its own resource, of the facade's type, wherever it is
 * parented) holds the library's component of the same name and type, which holds the `docker.Image`
 * of that name; a name is unique per type in a stack. Undefined before its first update.
 */
export function facadePreviousImage(resources: Record<string, CheckpointResource>, name: string): PreviousImage | undefined {
    const find = (types: readonly string[]) => Object.entries(resources).find(([urn]) => urnEndsWith(urn, types, name))?.[1];
    const image = find([MODEL_IMAGE, MODEL_IMAGE, DOCKER_IMAGE]);
    const imageName = image?.outputs.imageName;
    const tag = typeof imageName === "string" ? imageTag(imageName) : undefined;
    if (image === undefined || tag === undefined) {
        return undefined;
    }
    const imageRef = find([MODEL_IMAGE, MODEL_IMAGE])?.outputs.imageRef;
    const deployedDigest = typeof imageRef === "string" ? /@(sha256:[0-9a-f]{64})$/.exec(imageRef)?.[1] : undefined;
    return { checkpoint: { tag, pushed: image.outputs.skipPush !== true }, deployedDigest };
}
