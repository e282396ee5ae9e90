/**
 * The loopback environment's Prometheus (scripts/e2e-env start: `TFS_E2E_PROMETHEUS_URL`, rule files
 * in `TFS_E2E_PROMETHEUS_RULES`), for the end-to-end tests: load a rule group, query, read alerts.
 */
import * as fs from "fs";
import * as path from "path";
import { RuleGroup } from "../../observability/alerts";
import { ruleFile } from "../../observability/collectors";
import { env } from "./e2eProject";

export interface PromSeries {
    metric: Record<string, string>;
    value: [number, string];
}

export interface PromAlert {
    labels: Record<string, string>;
    annotations: Record<string, string>;
    state: "pending" | "firing";
    activeAt: string;
    value: string;
}

async function api<T>(pathAndQuery: string, init?: RequestInit): Promise<T> {
    const res = await fetch(`${env("TFS_E2E_PROMETHEUS_URL")}${pathAndQuery}`, init);
    const body = await res.json() as { status: string; data: T; error?: string };
    if (body.status !== "success") {
        throw new Error(`Prometheus ${pathAndQuery}: ${body.error ?? res.status}`);
    }
    return body.data;
}

/** Writes the group as a rule file Prometheus loads, reloads it and waits until the group is listed. */
export async function loadRules(group: RuleGroup): Promise<() => Promise<void>> {
    const file = path.join(env("TFS_E2E_PROMETHEUS_RULES"), `${group.name}.yaml`);
    fs.writeFileSync(file, ruleFile([group]));
    const reload = async () => {
        const res = await fetch(`${env("TFS_E2E_PROMETHEUS_URL")}/-/reload`, { method: "POST" });
        if (!res.ok) {
            throw new Error(`Prometheus reload: ${res.status} ${await res.text()}`);
        }
    };
    await reload();
    const listed = await api<{ groups: { name: string }[] }>("/api/v1/rules");
    if (!listed.groups.some((g) => g.name === group.name)) {
        throw new Error(`Prometheus did not load ${file} (see $TFS_E2E_STATE/logs/prometheus.log)`);
    }
    return async () => {
        fs.rmSync(file, { force: true });
        await reload();
    };
}

export function query(expr: string): Promise<PromSeries[]> {
    return api<{ result: PromSeries[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`).then((d) => d.result);
}

/** The alerts pending or firing now, of the model's namespace. */
export async function alertsOf(namespace: string): Promise<PromAlert[]> {
    return (await api<{ alerts: PromAlert[] }>("/api/v1/alerts")).alerts.filter((a) => a.labels.namespace === namespace);
}

/** Waits until `alertname` fires for `namespace` (and `match`), at most `seconds`; every 5 s. */
export async function firing(alertname: string, namespace: string, seconds: number, match: (a: PromAlert) => boolean = () => true): Promise<PromAlert> {
    const deadline = Date.now() + seconds * 1000;
    let seen: PromAlert[] = [];
    while (Date.now() < deadline) {
        seen = await alertsOf(namespace);
        const found = seen.find((a) => a.labels.alertname === alertname && a.state === "firing" && match(a));
        if (found) {
            return found;
        }
        await new Promise((r) => setTimeout(r, 5000));
    }
    throw new Error(`${alertname} did not fire within ${seconds} s; alerts of ${namespace}: ${JSON.stringify(seen, null, 2)}`);
}

/** Waits until no alert of `namespace` is pending or firing, at most `seconds`. */
export async function quiet(namespace: string, seconds: number): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    let seen: PromAlert[] = [];
    while (Date.now() < deadline) {
        seen = await alertsOf(namespace);
        if (seen.length === 0) {
            return;
        }
        await new Promise((r) => setTimeout(r, 5000));
    }
    throw new Error(`alerts still active after ${seconds} s: ${JSON.stringify(seen, null, 2)}`);
}

/**
 * Waits until Prometheus has evaluated the rule group `times` more times after `since` (its
 * `lastEvaluation`), at most `seconds`: an alert whose expression held over that data would be
 * pending by then. A wait on the evaluator's state, not on a fixed window.
 */
export async function evaluated(group: string, since: number, times: number, seconds: number): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    let last = since;
    let seen = 0;
    while (Date.now() < deadline) {
        const listed = await api<{ groups: { name: string; lastEvaluation: string }[] }>("/api/v1/rules");
        const at = Date.parse(listed.groups.find((g) => g.name === group)?.lastEvaluation ?? "");
        if (at > last) {
            last = at;
            if (++seen >= times) {
                return;
            }
        }
        await new Promise((r) => setTimeout(r, 2000));
    }
    throw new Error(`rule group ${group} was evaluated ${seen} of ${times} times after ${new Date(since).toISOString()} within ${seconds} s`);
}
