package prometheus

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// kube-state-metrics is not on the module proxy, so `e2e-env pod-sd` also
// stands in for it: /metrics answers, from the API server's pods and
// Deployments at each scrape, the five kube-state-metrics v2 families the
// product's alert rules and dashboard read, with kube-state-metrics' names,
// label sets and values (namespace, pod, uid and container for a container;
// namespace and deployment for a Deployment; a condition's series for each of
// true, false and unknown, 1 for the one that holds). Prometheus scrapes it
// with honor_labels, as a cluster scrapes kube-state-metrics. Nothing else of
// kube-state-metrics is served.

type stateDeploymentList struct {
	Items []struct {
		Metadata struct{ Name, Namespace string }
		Spec     struct{ Replicas *int }
		Status   struct {
			AvailableReplicas int
			Conditions        []struct{ Type, Status string }
		}
	}
}

type statePodList struct {
	Items []struct {
		Metadata struct{ Name, Namespace, UID string }
		Status   struct {
			ContainerStatuses []struct {
				Name         string
				RestartCount int
				LastState    struct {
					Terminated *struct{ Reason string }
				}
			}
		}
	}
}

// StateMetrics renders the kube-state-metrics series of the pods and
// Deployments in the API server's list answers, in Prometheus' text format.
func StateMetrics(podListJSON, deploymentListJSON []byte) (string, error) {
	var pods statePodList
	if err := json.Unmarshal(podListJSON, &pods); err != nil {
		return "", fmt.Errorf("pod list: %w", err)
	}
	var deployments stateDeploymentList
	if err := json.Unmarshal(deploymentListJSON, &deployments); err != nil {
		return "", fmt.Errorf("deployment list: %w", err)
	}
	var out strings.Builder
	family := func(name, kind, help string, series []string) {
		sort.Strings(series)
		fmt.Fprintf(&out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
		for _, s := range series {
			out.WriteString(s)
		}
	}
	var spec, available, conditions, restarts, terminated []string
	for _, d := range deployments.Items {
		labels := promLabels("namespace", d.Metadata.Namespace, "deployment", d.Metadata.Name)
		replicas := 1 // the API server defaults it; a list answer always carries it
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		spec = append(spec, fmt.Sprintf("kube_deployment_spec_replicas{%s} %d\n", labels, replicas))
		available = append(available, fmt.Sprintf("kube_deployment_status_replicas_available{%s} %d\n", labels, d.Status.AvailableReplicas))
		for _, c := range d.Status.Conditions {
			for _, status := range []string{"true", "false", "unknown"} {
				value := 0
				if strings.EqualFold(c.Status, status) {
					value = 1
				}
				conditions = append(conditions, fmt.Sprintf("kube_deployment_status_condition{%s,%s} %d\n",
					labels, promLabels("condition", c.Type, "status", status), value))
			}
		}
	}
	for _, p := range pods.Items {
		for _, c := range p.Status.ContainerStatuses {
			labels := promLabels("namespace", p.Metadata.Namespace, "pod", p.Metadata.Name, "uid", p.Metadata.UID, "container", c.Name)
			restarts = append(restarts, fmt.Sprintf("kube_pod_container_status_restarts_total{%s} %d\n", labels, c.RestartCount))
			if t := c.LastState.Terminated; t != nil && t.Reason != "" {
				terminated = append(terminated, fmt.Sprintf("kube_pod_container_status_last_terminated_reason{%s,%s} 1\n", labels, promLabels("reason", t.Reason)))
			}
		}
	}
	family("kube_deployment_spec_replicas", "gauge", "Number of desired pods for a deployment.", spec)
	family("kube_deployment_status_replicas_available", "gauge", "The number of available replicas per deployment.", available)
	family("kube_deployment_status_condition", "gauge", "The current status conditions of a deployment.", conditions)
	family("kube_pod_container_status_restarts_total", "counter", "The number of container restarts per container.", restarts)
	family("kube_pod_container_status_last_terminated_reason", "gauge", "Describes the last reason the container was in terminated state.", terminated)
	return out.String(), nil
}

// promLabels renders name="value" pairs, the values escaped as the text format wants.
func promLabels(pairs ...string) string {
	parts := make([]string, 0, len(pairs)/2)
	escape := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, pairs[i]+`="`+escape.Replace(pairs[i+1])+`"`)
	}
	return strings.Join(parts, ",")
}
