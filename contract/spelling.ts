/** Edit distance and "did you mean" for names a user types: config keys, server flags. */

/** Levenshtein distance: insertions, deletions and substitutions each count one. */
export function editDistance(a: string, b: string): number {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
        const next = [i];
        for (let j = 1; j <= b.length; j++) {
            next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        }
        row = next;
    }
    return row[b.length];
}

/** The candidate nearest to `name` within `maxDistance` edits, the first of equals; undefined if none is that near. */
export function closest(name: string, candidates: Iterable<string>, maxDistance: number): string | undefined {
    let best: { candidate: string; distance: number } | undefined;
    for (const candidate of candidates) {
        const distance = editDistance(name, candidate);
        if (distance <= maxDistance && (best === undefined || distance < best.distance)) {
            best = { candidate, distance };
        }
    }
    return best?.candidate;
}
