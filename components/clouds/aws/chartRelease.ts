/** The pinned Helm charts the EKS stack installs (the load balancer controller, the Cluster Autoscaler, prometheus-adapter). */

/** A chart, its repository and the exact version installed. */
export interface PinnedChart {
    chart: string;
    repository: string;
    chartVersion: string;
}

/** A Helm Release's arguments for `c`: the release named after the chart, at its pinned version. */
export function pinnedChartArgs(c: PinnedChart): { name: string; chart: string; version: string; repositoryOpts: { repo: string } } {
    return { name: c.chart, chart: c.chart, version: c.chartVersion, repositoryOpts: { repo: c.repository } };
}
