/**
 * A digest of a staged build context: file paths, modes and bytes. It names the image tag, so the
 * tag changes exactly when the model (or the Dockerfile, but for the writer its first line names:
 * `digestedDockerfile`) does. The same context built by another
 * builder may still give another manifest digest under the same tag: registries therefore keep these
 * content tags movable (docs/concepts/model-image.md#tags-and-immutability), and pods run the registry's digest.
 */
import { Hash, createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { digestedDockerfile } from "./dockerfile";

export function contextDigest(dir: string): string {
    const hash = createHash("sha256");
    const walk = (rel: string) => {
        const entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true })
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const e of entries) {
            const relPath = rel ? `${rel}/${e.name}` : e.name;
            const full = path.join(dir, relPath);
            const mode = (fs.statSync(full).mode & 0o777).toString(8);
            if (e.isDirectory()) {
                hash.update(`d ${relPath} ${mode}\n`);
                walk(relPath);
            } else if (relPath === "Dockerfile") {
                const text = Buffer.from(digestedDockerfile(fs.readFileSync(full, "utf8")));
                hash.update(`f ${relPath} ${mode} ${text.length}\n`);
                hash.update(text);
            } else {
                hash.update(`f ${relPath} ${mode} ${fs.statSync(full).size}\n`);
                hashFile(hash, full);
            }
        }
    };
    walk("");
    return hash.digest("hex");
}

/** Streams a file into the hash in 1 MiB chunks: model variables can be larger than a Buffer. */
function hashFile(hash: Hash, file: string): void {
    const fd = fs.openSync(file, "r");
    const buf = Buffer.alloc(2 ** 20);
    try {
        for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) {
            hash.update(buf.subarray(0, n));
        }
    } finally {
        fs.closeSync(fd);
    }
}
