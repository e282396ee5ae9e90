import * as assert from "assert";
import { AlertRule, RuleGroup, alertRules } from "../../../observability/alerts";
import { collectorObjects } from "../../../components/clouds/collectors";
import { KubeObject, ruleFile } from "../../../observability/collectors";
import { selectorMatchers } from "../../support/promqlSelectors";
import { promtool, ruleFolder } from "../../support/promtool";
import { requestRateRecording } from "../../../observability/requestRate";

/* What GKE's Managed Service for Prometheus admits, stated from its source
 * (GoogleCloudPlatform/prometheus-engine; the stand-in CRD of the loopback environment has no webhook
 * and no CEL rules, so only these tests hold the rendered objects to them):
 *
 * - Rules, webhook: pkg/operator/apis/monitoring/v1/rules_types.go `Rules.ValidateCreate` calls
 *   rules_config.go `RuleGroupsConfig("", "", "")`, which parses `for` and `interval` as Prometheus
 *   durations (`fromAPIRules`), parses each expression and adds `namespace="<the Rules' namespace>"`
 *   and empty project_id, location, cluster to every selector (`scope`, `setSelector`: a matcher on
 *   one of them that is not `=` that value is a "conflicting label matcher"), then sets the same
 *   labels on the rule (`setLabel`: any of them already in the rule's labels is refused, "label
 *   already set on rule"; its test TestGenerateRules "namespace label" expects the error).
 *   The label names are prometheus/google/export's KeyProjectID, KeyLocation, KeyCluster,
 *   KeyNamespace, spelled out in the same test's expected output.
 * - Rules, CRD (charts/operator/crds/monitoring.googleapis.com_rules.yaml): each rule sets exactly
 *   one of record and alert, annotations only on alerts, at least one rule per group, `for` and
 *   `interval` of format duration.
 * - PodMonitoring, CRD (monitoring.googleapis.com_podmonitorings.yaml): at most 10 endpoints, each
 *   with `port` (not 0) and `interval` (durations); `targetLabels.metadata` only
 *   container, node, pod, top_level_controller_name, top_level_controller_type, and `container` is
 *   populated only when the port is named. */

const MODEL = { name: "half-plus-two", namespace: "serving" };
const SCOPE_LABELS = ["project_id", "location", "cluster", "namespace"];
/** Prometheus' duration (prometheus/common model.ParseDuration), which also fits the CRD's format. */
const PROMETHEUS_DURATION = /^(?:[0-9]+y)?(?:[0-9]+w)?(?:[0-9]+d)?(?:[0-9]+h)?(?:[0-9]+m)?(?:[0-9]+s)?(?:[0-9]+ms)?$/;
const METADATA_LABELS = ["container", "node", "pod", "top_level_controller_name", "top_level_controller_type"];

type NamespacedObject = KubeObject & { metadata: { namespace: string } };

function inNamespace(o: KubeObject): NamespacedObject {
    return { ...o, metadata: { ...o.metadata, namespace: MODEL.namespace } };
}

function durationProblem(at: string, value: string | undefined): string[] {
    return value === undefined || (value !== "" && PROMETHEUS_DURATION.test(value)) ? [] : [`${at}: "${value}" is not a Prometheus duration`];
}

/** What GMP's webhook and CRD refuse in a `Rules`, each with its path. */
function rulesAdmissionProblems(rules: NamespacedObject): string[] {
    const problems: string[] = [];
    const groups = (rules.spec as { groups: RuleGroup[] }).groups;
    groups.forEach((g, gi) => {
        const at = `spec.groups[${gi}]`;
        if (g.rules.length === 0) {
            problems.push(`${at}.rules: at least one rule`);
        }
        problems.push(...durationProblem(`${at}.interval`, g.interval));
        g.rules.forEach((r: AlertRule & { record?: string }, ri) => {
            const ruleAt = `${at}.rules[${ri}]`;
            if ((r.alert === undefined) === (r.record === undefined)) {
                problems.push(`${ruleAt}: exactly one of record and alert`);
            }
            if (r.annotations !== undefined && r.alert === undefined) {
                problems.push(`${ruleAt}.annotations: only on alerting rules`);
            }
            problems.push(...durationProblem(`${ruleAt}.for`, r.for));
            for (const name of SCOPE_LABELS) {
                if (r.labels !== undefined && name in r.labels) {
                    problems.push(`${ruleAt}.labels.${name}: label already set on rule`);
                }
            }
            for (const matchers of selectorMatchers(r.expr)) {
                for (const m of matchers.filter((x) => SCOPE_LABELS.includes(x.name))) {
                    const allowed = m.name === "namespace" ? rules.metadata.namespace : "";
                    if (m.op !== "=" || m.value !== allowed) {
                        problems.push(`${ruleAt}.expr: conflicting label matcher ${m.name}${m.op}"${m.value}"`);
                    }
                }
            }
        });
    });
    return problems;
}

/** What GMP's CRD refuses in a `PodMonitoring`, or its scrape would not label as the rules read. */
function podMonitoringProblems(pm: NamespacedObject): string[] {
    const spec = pm.spec as { endpoints: { port?: string | number; interval?: string; timeout?: string }[]; targetLabels?: { metadata?: string[] } };
    const problems: string[] = spec.endpoints.length > 10 ? ["spec.endpoints: at most 10"] : [];
    spec.endpoints.forEach((e, i) => {
        if (e.port === undefined || e.port === 0 || e.port === "") {
            problems.push(`spec.endpoints[${i}].port: required`);
        }
        if (e.interval === undefined) {
            problems.push(`spec.endpoints[${i}].interval: required`);
        }
        problems.push(...durationProblem(`spec.endpoints[${i}].interval`, e.interval));
        problems.push(...durationProblem(`spec.endpoints[${i}].timeout`, e.timeout));
        const metadata = spec.targetLabels?.metadata ?? [];
        if (metadata.includes("container") && typeof e.port !== "string") {
            problems.push(`spec.endpoints[${i}].port: the container label is populated only for a named port`);
        }
    });
    for (const label of spec.targetLabels?.metadata ?? []) {
        if (!METADATA_LABELS.includes(label)) {
            problems.push(`spec.targetLabels.metadata: "${label}" is not one of ${METADATA_LABELS.join(", ")}`);
        }
    }
    return problems;
}

function gkeObjects(group: RuleGroup = alertRules(MODEL), recordRequestRate = false): { podMonitoring: NamespacedObject; rules: NamespacedObject } {
    const recording = recordRequestRate ? requestRateRecording(MODEL) : undefined;
    const [podMonitoring, rules] = collectorObjects("gke", MODEL.name, group, { labels: {} }, recording).map(inNamespace);
    assert.strictEqual(podMonitoring.kind, "PodMonitoring");
    assert.strictEqual(rules.kind, "Rules");
    return { podMonitoring, rules };
}

describe("the gke collector's objects, as GMP admits them (prometheus-engine's webhook and CRDs)", () => {
    it("Rules: no rule sets a label GMP sets itself, and every namespace matcher is the Rules' own namespace", () => {
        assert.deepStrictEqual(rulesAdmissionProblems(gkeObjects().rules), []);
    });

    it("Rules: GMP's scoping leaves every alert its namespace label (it adds the Rules' namespace itself)", () => {
        const { rules } = gkeObjects();
        for (const r of (rules.spec as { groups: RuleGroup[] }).groups[0].rules) {
            assert.strictEqual(r.labels.namespace, undefined, r.alert);
            assert.strictEqual(r.labels.model, MODEL.name, r.alert);
            assert.ok(r.labels.severity, r.alert);
        }
    });

    it("Rules: every expression parses (GMP runs Prometheus' parser on each; promtool is that parser)", () => {
        const { rules } = gkeObjects();
        const dir = ruleFolder({ "gmp.yaml": ruleFile((rules.spec as { groups: RuleGroup[] }).groups) });
        const run = promtool(dir, ["check", "rules", "gmp.yaml"]);
        assert.strictEqual(run.status, 0, run.output);
    });

    it("the check refuses what GMP's webhook refuses: a namespace label, a matcher on another namespace, a regex on it, a cluster matcher", () => {
        const group = alertRules(MODEL);
        const [first] = gkeObjects(group).rules.spec!.groups as RuleGroup[];
        const bad = (r: Partial<AlertRule>) => inNamespace({ ...gkeObjects().rules, spec: { groups: [{ ...first, rules: [{ ...first.rules[0], ...r }] }] } });
        assert.deepStrictEqual(rulesAdmissionProblems(bad({ labels: { ...first.rules[0].labels, namespace: "serving" } })),
            ["spec.groups[0].rules[0].labels.namespace: label already set on rule"]);
        assert.deepStrictEqual(rulesAdmissionProblems(bad({ expr: `up{namespace="other"} == 0` })),
            ["spec.groups[0].rules[0].expr: conflicting label matcher namespace=\"other\""]);
        assert.deepStrictEqual(rulesAdmissionProblems(bad({ expr: `up{namespace=~"serving|other", pod="p"} == 0` })),
            ["spec.groups[0].rules[0].expr: conflicting label matcher namespace=~\"serving|other\""]);
        assert.deepStrictEqual(rulesAdmissionProblems(bad({ expr: `sum(rate(x{cluster="c1"}[5m])) / sum(rate(x{}[5m]))`, for: "5 minutes" })), [
            "spec.groups[0].rules[0].for: \"5 minutes\" is not a Prometheus duration",
            "spec.groups[0].rules[0].expr: conflicting label matcher cluster=\"c1\"",
        ]);
    });

    it("Rules with the request-rate recording (a request-rate HPA on GKE): admitted, and the expression parses", () => {
        const { rules } = gkeObjects(alertRules(MODEL), true);
        const groups = (rules.spec as { groups: { name: string; rules: { record?: string; expr: string }[] }[] }).groups;
        assert.deepStrictEqual(groups.map((g) => g.name), ["tf-serving.serving.half-plus-two", "tf-serving.serving.half-plus-two.request-rate"]);
        assert.deepStrictEqual(rulesAdmissionProblems(rules), []);
        const dir = ruleFolder({ "gmp.yaml": ruleFile(groups as RuleGroup[]) });
        const run = promtool(dir, ["check", "rules", "gmp.yaml"]);
        assert.strictEqual(run.status, 0, run.output);
    });

    it("PodMonitoring: fits GMP's CRD rules, with a named port so the container label the rules read is set", () => {
        const { podMonitoring } = gkeObjects();
        assert.deepStrictEqual(podMonitoringProblems(podMonitoring), []);
        const numbered = inNamespace({ ...podMonitoring, spec: { ...podMonitoring.spec, endpoints: [{ port: 8501, interval: "30s", timeout: "1 minute" }] } });
        assert.deepStrictEqual(podMonitoringProblems(numbered), [
            "spec.endpoints[0].timeout: \"1 minute\" is not a Prometheus duration",
            "spec.endpoints[0].port: the container label is populated only for a named port",
        ]);
    });
});
