/** Registry lookups of a model image: after the push (never in its preview), and before it (is the tag held already?). */
import type * as docker from "@pulumi/docker";
import * as pulumi from "@pulumi/pulumi";

/**
 * The Image's name, known only once the registry holds it. The name alone is not enough: in a
 * preview of a changed model the Docker provider reports the new `imageName` as known and the Image
 * keeps its id, so the SDK would run a lookup through it at once and ask the registry for a tag not
 * pushed yet (a 404 that fails the whole preview). The provider reports no `repoDigest` before it
 * pushes, so the SDK leaves it unknown in that preview; an unchanged Image keeps the one in its
 * state, and its lookup runs (and previews no change).
 */
export function pushedImageName(image: docker.Image): pulumi.Output<string> {
    return pulumi.all([image.imageName, image.repoDigest]).apply(([name]) => name);
}

/**
 * The digest a registry answers for `what`, or undefined when the lookup fails: a tag not pushed,
 * a repository not created yet, a registry that cannot be asked. Every such case pushes the image,
 * as before this probe existed; the lookup after the push reports a real failure.
 */
export async function heldDigest(what: string, lookup: () => Promise<string>): Promise<string | undefined> {
    try {
        return await lookup();
    } catch (err) {
        pulumi.log.debug(`${what}: not in the registry (${err instanceof Error ? err.message : String(err)}); it will be pushed`);
        return undefined;
    }
}
