/**
 * EKS's version lifecycle as the EKS user guide states it (awsdocs/amazon-eks-user-guide
 * latest/ug/versioning/kubernetes-versions.adoc, "Amazon EKS Kubernetes release calendar": 1.32 to 1.35 with
 * their days; 14 months of standard support, then 12 of extended support, then no new cluster and an automatic
 * control-plane upgrade) and its release notes ("Kubernetes version 1.36", 2026-06-02).
 */
import * as assert from "assert";
import {
    EKS_KUBERNETES_VERSIONS, LIST_DATE, eksKubernetesVersionProblem, eksKubernetesVersionWarning, eksStandardVersionsOn, eksVersionsOn, utcDay,
} from "../../../../../components/clouds/aws/kubernetesVersions";

const TODAY = "2026-12-04";

describe("components/clouds/aws/kubernetesVersions", () => {
    it("lists consecutive minors, each with 12 months of extended support after its standard support, none ended by the list's date", () => {
        const minors = EKS_KUBERNETES_VERSIONS.map((v) => Number(v.version.split(".")[1]));
        minors.forEach((minor, i) => i > 0 && assert.strictEqual(minor, minors[i - 1] + 1, `${minor} follows ${minors[i - 1]}`));
        for (const v of EKS_KUBERNETES_VERSIONS) {
            const [year, rest] = [Number(v.standardSupportEnds.slice(0, 4)), v.standardSupportEnds.slice(4)];
            assert.strictEqual(v.extendedSupportEnds, `${year + 1}${rest}`, v.version);
            assert.ok(v.extendedSupportEnds > LIST_DATE, `${v.version}'s extended support ended before ${LIST_DATE}: drop it`);
        }
    });

    it("the calendar's days (EKS user guide, release calendar)", () => {
        const days = Object.fromEntries(EKS_KUBERNETES_VERSIONS.map((v) => [v.version, [v.standardSupportEnds, v.extendedSupportEnds]]));
        assert.deepStrictEqual(days["1.32"], ["2026-03-23", "2027-03-23"]);
        assert.deepStrictEqual(days["1.33"], ["2026-07-29", "2027-07-29"]);
        assert.deepStrictEqual(days["1.34"], ["2026-12-02", "2027-12-02"]);
        assert.deepStrictEqual(days["1.35"], ["2027-03-27", "2028-03-27"]);
        assert.ok(days["1.36"][0] > "2027-07-01", "1.36 came to EKS in June 2026: 14 months of standard support");
    });

    it("on 2026-12-04 EKS creates clusters on 1.32 to 1.36; 1.35 and 1.36 are in standard support", () => {
        assert.deepStrictEqual(eksVersionsOn(TODAY).map((v) => v.version), ["1.32", "1.33", "1.34", "1.35", "1.36"]);
        assert.deepStrictEqual(eksStandardVersionsOn(TODAY).map((v) => v.version), ["1.35", "1.36"]);
        for (const version of ["1.32", "1.33", "1.34", "1.35", "1.36"]) {
            assert.strictEqual(eksKubernetesVersionProblem(version, TODAY), undefined, version);
        }
    });

    it("refuses a version EKS does not offer, naming the ones it does", () => {
        for (const version of ["1.31", "1.99"]) {
            const problem = eksKubernetesVersionProblem(version, TODAY)!;
            assert.match(problem, /^is not a version EKS creates clusters on; use one of "1\.32", "1\.33", "1\.34", "1\.35", "1\.36" \(EKS's supported versions on 2026-12-04, /);
            assert.match(problem, /kubernetes-versions\.html/);
            assert.match(problem, /see docs\/getting-started\/eks\.md#kubernetes-version\)$/);
        }
    });

    it("refuses a listed version once its extended support has ended, by the day of the preview", () => {
        assert.strictEqual(eksKubernetesVersionProblem("1.32", "2027-03-22"), undefined);
        const problem = eksKubernetesVersionProblem("1.32", "2027-03-23")!;
        assert.match(problem, /^reached the end of EKS extended support on 2027-03-23: EKS creates no cluster on it and upgrades/);
        assert.match(problem, /use one of "1\.33", "1\.34", "1\.35", "1\.36" \(EKS's supported versions on 2027-03-23/);
    });

    it("warns while a version is in extended support (billed), naming the versions in standard support", () => {
        const warning = eksKubernetesVersionWarning("1.34", TODAY)!;
        assert.match(warning, /^"1\.34" left EKS standard support on 2026-12-02: the cluster is billed extended support/);
        assert.match(warning, /until 2027-12-02, when EKS upgrades its control plane by itself/);
        assert.match(warning, /standard support, "1\.35", "1\.36", one minor at a time/);
        assert.strictEqual(eksKubernetesVersionWarning("1.34", "2026-12-01"), undefined, "the day before, still standard");
        assert.strictEqual(eksKubernetesVersionWarning("1.35", TODAY), undefined);
        assert.strictEqual(eksKubernetesVersionWarning("1.36", TODAY), undefined);
        assert.strictEqual(eksKubernetesVersionWarning("1.99", TODAY), undefined, "refused, not warned");
    });

    it("dates by the UTC day", () => {
        assert.strictEqual(utcDay(new Date("2026-12-04T23:59:59-05:00")), "2026-12-05");
        assert.match(utcDay(), /^\d{4}-\d{2}-\d{2}$/);
    });
});
