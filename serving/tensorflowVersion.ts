/**
 * Which TensorFlow a TF Serving image runs, and whether a SavedModel was exported by a newer one.
 *
 * TensorFlow loads graphs written by older releases but gives newer ones no such promise (TensorFlow's
 * version guide, tensorflow/docs `site/en/guide/versions.md`, "Backward and partial forward compatibility":
 * forward compatibility is a three-week window at HEAD, not a release). A graph that uses an op or an attribute
 * added after the server's TensorFlow fails the load with "Op type not registered" or "NodeDef mentions attr
 * ... not in Op<...>" (tensorflow/core/framework/node_def_util.cc, ValidateNodeDef). Keras 3 users meet it
 * when they export with the newest TensorFlow before TF Serving has caught up (the report this project's issue 23
 * cites, keras-team/keras#21258).
 */
import { TF_SERVING_VERSION, imageTag } from "./images";

/** A TensorFlow release line: what decides which ops a graph may use (patch releases add none). */
export interface TensorflowLine { major: number; minor: number }

/**
 * TensorFlow's own version strings as `meta_info_def.tensorflow_version` records them ("2.20.0", "2.21.0-rc1",
 * tf-nightly's "2.21.0-dev20260105", "1.14.0"); undefined for an empty one or anything else.
 */
export function parseTensorflowVersion(text: string): TensorflowLine | undefined {
    const match = /^(\d+)\.(\d+)\.\d+(?:[-+.][0-9A-Za-z.+-]*)?$/.exec(text.trim());
    return match === null ? undefined : { major: Number(match[1]), minor: Number(match[2]) };
}

export function formatLine(line: TensorflowLine): string {
    return `${line.major}.${line.minor}`;
}

/** True when `graph` comes from a later release line than `server`. */
export function isNewerLine(graph: TensorflowLine, server: TensorflowLine): boolean {
    return graph.major !== server.major ? graph.major > server.major : graph.minor > server.minor;
}

/**
 * The TensorFlow a TF Serving release is built on: its own release line. Each release says so in
 * tensorflow/serving's RELEASE.md ("This release is based on TF version 2.19.1"), 2.20.0's WORKSPACE pins
 * `org_tensorflow` at 72fbba3d20f4616d7312b5e2b7f79daf6e82f2fa, TensorFlow's v2.20.0 tag, and the 2.21.0 client
 * (tensorflow-serving-api) requires tensorflow >= 2.21.0.
 */
export function servingTensorflow(servingVersion: string): TensorflowLine | undefined {
    return parseTensorflowVersion(servingVersion);
}

/** The TensorFlow the pinned release runs. */
export const PINNED_TENSORFLOW: TensorflowLine = servingTensorflow(TF_SERVING_VERSION)!;

/**
 * The TF Serving release a base image runs, from its tag: `tensorflow/serving:2.21.0-gpu` or a mirror's
 * `registry:5000/serving:2.21.0` give 2.21.0. Undefined when the tag does not name a release (`latest`,
 * `nightly`, a tag of one's own, a digest alone): what such an image runs cannot be told from its name.
 */
export function baseImageServingVersion(baseImage: string): string | undefined {
    const tag = imageTag(baseImage);
    return tag === undefined ? undefined : /^(\d+\.\d+\.\d+)(?:-|$)/.exec(tag)?.[1];
}
