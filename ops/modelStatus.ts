/**
 * Pure reading of `GET /v1/models/NAME`: TF Serving answers 200 in every state, so readiness is
 * in the body's `model_version_status[].state`, not in the HTTP status.
 */

/** One entry of `model_version_status`. */
export interface VersionStatus {
    version: string;
    /** UNKNOWN, START, LOADING, AVAILABLE, UNLOADING or END. */
    state: string;
    /** "OK" unless loading or serving the version failed. */
    errorCode: string;
    errorMessage: string;
}

/** Whether the model can answer, and why not. */
export interface Readiness {
    ready: boolean;
    /** Versions in AVAILABLE. */
    available: string[];
    /** Versions on their way in (UNKNOWN, START, LOADING): the model is not ready while any exists. */
    pending: VersionStatus[];
    /** Versions that ended with an error (a failed load): reported, but they do not block readiness. */
    failed: VersionStatus[];
    /** One line for progress output, e.g. "version 124 LOADING, version 123 AVAILABLE". */
    summary: string;
}

const PENDING_STATES = new Set(["UNKNOWN", "START", "LOADING"]);

/** Reads the JSON of `GET /v1/models/NAME`; throws if it is not a GetModelStatusResponse. */
export function parseModelStatus(json: unknown): VersionStatus[] {
    const list = (json as { model_version_status?: unknown } | null)?.model_version_status;
    if (!Array.isArray(list)) {
        throw new Error("model status answer has no model_version_status list");
    }
    return list.map((entry) => {
        const e = (entry ?? {}) as Record<string, unknown>;
        const status = (e.status ?? {}) as Record<string, unknown>;
        return {
            version: String(e.version ?? "?"),
            state: String(e.state ?? "UNKNOWN"),
            errorCode: String(status.error_code ?? "OK"),
            errorMessage: String(status.error_message ?? ""),
        };
    });
}

/**
 * Ready means at least one version is AVAILABLE and none is still loading. Versions in UNLOADING
 * or END are leaving or gone (an older version after a rollout), so they neither help nor block.
 */
export function assessReadiness(versions: VersionStatus[]): Readiness {
    const available = versions.filter((v) => v.state === "AVAILABLE").map((v) => v.version);
    const pending = versions.filter((v) => PENDING_STATES.has(v.state));
    const failed = versions.filter((v) => v.state === "END" && v.errorCode !== "OK");
    const summary = versions.length === 0
        ? "no versions"
        : versions.map(describeVersion).join(", ");
    return { ready: available.length > 0 && pending.length === 0, available, pending, failed, summary };
}

function describeVersion(v: VersionStatus): string {
    const error = v.errorCode !== "OK" ? ` (${v.errorCode}: ${v.errorMessage})` : "";
    return `version ${v.version} ${v.state}${error}`;
}
