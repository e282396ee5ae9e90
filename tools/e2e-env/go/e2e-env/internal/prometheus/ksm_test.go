package prometheus

import (
	"strings"
	"testing"
)

func TestStateMetricsOfAnOOMKilledContainerAndAStuckRollout(t *testing.T) {
	pods := []byte(`{"items":[{"metadata":{"name":"m-5d9-x7","namespace":"ns","uid":"u1"},"status":{"containerStatuses":[
		{"name":"tf-serving","restartCount":3,"lastState":{"terminated":{"reason":"OOMKilled","exitCode":137}}}]}},
		{"metadata":{"name":"m-5d9-y8","namespace":"ns","uid":"u2"},"status":{"containerStatuses":[{"name":"tf-serving","restartCount":0,"lastState":{}}]}},
		{"metadata":{"name":"pending","namespace":"ns","uid":"u3"},"status":{}}]}`)
	deployments := []byte(`{"items":[{"metadata":{"name":"m","namespace":"ns"},"spec":{"replicas":2},"status":{"availableReplicas":1,
		"conditions":[{"type":"Available","status":"True"},{"type":"Progressing","status":"False","reason":"ProgressDeadlineExceeded"}]}}]}`)
	got, err := StateMetrics(pods, deployments)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# TYPE kube_pod_container_status_restarts_total counter\n",
		`kube_pod_container_status_restarts_total{namespace="ns",pod="m-5d9-x7",uid="u1",container="tf-serving"} 3` + "\n",
		`kube_pod_container_status_restarts_total{namespace="ns",pod="m-5d9-y8",uid="u2",container="tf-serving"} 0` + "\n",
		`kube_pod_container_status_last_terminated_reason{namespace="ns",pod="m-5d9-x7",uid="u1",container="tf-serving",reason="OOMKilled"} 1` + "\n",
		`kube_deployment_spec_replicas{namespace="ns",deployment="m"} 2` + "\n",
		`kube_deployment_status_replicas_available{namespace="ns",deployment="m"} 1` + "\n",
		`kube_deployment_status_condition{namespace="ns",deployment="m",condition="Progressing",status="false"} 1` + "\n",
		`kube_deployment_status_condition{namespace="ns",deployment="m",condition="Progressing",status="true"} 0` + "\n",
		`kube_deployment_status_condition{namespace="ns",deployment="m",condition="Available",status="true"} 1` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, `pod="m-5d9-y8",uid="u2",container="tf-serving",reason=`) {
		t.Errorf("a container that never terminated has no last terminated reason:\n%s", got)
	}
}

func TestStateMetricsRefusesWhatIsNotAList(t *testing.T) {
	if _, err := StateMetrics([]byte(`{"items":`), []byte(`{"items":[]}`)); err == nil || !strings.Contains(err.Error(), "pod list") {
		t.Fatalf("want a pod list error, got %v", err)
	}
}
