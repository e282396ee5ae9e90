package prometheus

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"time"
)

// Debian's Prometheus is built without Kubernetes service discovery
// (kubernetes_sd_configs is refused), so the environment discovers the pods
// itself: `e2e-env pod-sd` asks the API server for the real node's pods and
// serves them to Prometheus' http_sd_configs as target groups with the labels
// kubernetes_sd_configs' pod role gives (one target per container port,
// __meta_kubernetes_pod_*), so the relabeling is the one a cluster's
// Prometheus uses.

// TargetGroup is one group of http_sd_configs' answer.
type TargetGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

type podList struct {
	Items []struct {
		Metadata struct {
			Name, Namespace, UID string
			Labels, Annotations  map[string]string
			OwnerReferences      []struct {
				Kind, Name string
				Controller bool
			}
		}
		Spec struct {
			NodeName   string
			Containers []struct {
				Name, Image string
				Ports       []struct {
					Name          string
					ContainerPort int
					Protocol      string
				}
			}
		}
		Status struct {
			Phase, PodIP, HostIP string
			Conditions           []struct{ Type, Status string }
		}
	}
}

var unsafeLabel = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// metaName is how kubernetes_sd spells a label or annotation name in a meta label.
func metaName(name string) string { return unsafeLabel.ReplaceAllString(name, "_") }

// Targets converts a PodList (the API server's JSON) into target groups as
// kubernetes_sd_configs' pod role makes them, for the pods that have an IP
// and still run (neither Succeeded nor Failed).
func Targets(podListJSON []byte) ([]TargetGroup, error) {
	var pods podList
	if err := json.Unmarshal(podListJSON, &pods); err != nil {
		return nil, fmt.Errorf("pod list: %w", err)
	}
	groups := []TargetGroup{}
	for _, p := range pods.Items {
		if p.Status.PodIP == "" || p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" {
			continue
		}
		pod := map[string]string{
			"__meta_kubernetes_namespace":     p.Metadata.Namespace,
			"__meta_kubernetes_pod_name":      p.Metadata.Name,
			"__meta_kubernetes_pod_ip":        p.Status.PodIP,
			"__meta_kubernetes_pod_uid":       p.Metadata.UID,
			"__meta_kubernetes_pod_node_name": p.Spec.NodeName,
			"__meta_kubernetes_pod_host_ip":   p.Status.HostIP,
			"__meta_kubernetes_pod_phase":     p.Status.Phase,
			"__meta_kubernetes_pod_ready":     "false",
		}
		for _, c := range p.Status.Conditions {
			if c.Type == "Ready" {
				pod["__meta_kubernetes_pod_ready"] = map[string]string{"True": "true", "False": "false"}[c.Status]
			}
		}
		for k, v := range p.Metadata.Labels {
			pod["__meta_kubernetes_pod_label_"+metaName(k)] = v
			pod["__meta_kubernetes_pod_labelpresent_"+metaName(k)] = "true"
		}
		for k, v := range p.Metadata.Annotations {
			pod["__meta_kubernetes_pod_annotation_"+metaName(k)] = v
			pod["__meta_kubernetes_pod_annotationpresent_"+metaName(k)] = "true"
		}
		for _, o := range p.Metadata.OwnerReferences {
			if o.Controller {
				pod["__meta_kubernetes_pod_controller_kind"], pod["__meta_kubernetes_pod_controller_name"] = o.Kind, o.Name
			}
		}
		for _, c := range p.Spec.Containers {
			for _, port := range c.Ports {
				labels := map[string]string{
					"__meta_kubernetes_pod_container_name":          c.Name,
					"__meta_kubernetes_pod_container_image":         c.Image,
					"__meta_kubernetes_pod_container_init":          "false",
					"__meta_kubernetes_pod_container_port_name":     port.Name,
					"__meta_kubernetes_pod_container_port_number":   strconv.Itoa(port.ContainerPort),
					"__meta_kubernetes_pod_container_port_protocol": port.Protocol,
				}
				for k, v := range pod {
					labels[k] = v
				}
				groups = append(groups, TargetGroup{Targets: []string{p.Status.PodIP + ":" + strconv.Itoa(port.ContainerPort)}, Labels: labels})
			}
		}
	}
	return groups, nil
}

// PodSD serves the node's pods, asked of the API server (with the admin
// client certificate) at each request, on listen's /targets.
type PodSD struct {
	APIServer, CA, Cert, Key, Node, Listen string
}

func (d PodSD) client() (*http.Client, error) {
	pair, err := tls.LoadX509KeyPair(d.Cert, d.Key)
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(d.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12,
	}}}, nil
}

// Serve runs until the listener fails.
func (d PodSD) Serve() error {
	c, err := d.client()
	if err != nil {
		return err
	}
	return http.ListenAndServe(d.Listen, d.Handler(c))
}

// Handler answers /targets with the node's pods, and /metrics with the
// kube-state-metrics stand-in's series (ksm.go), asked of the API server through c.
func (d PodSD) Handler(c *http.Client) http.Handler {
	nodePods := d.APIServer + "/api/v1/pods?fieldSelector=" + url.QueryEscape("spec.nodeName="+d.Node)
	mux := http.NewServeMux()
	mux.HandleFunc("/targets", func(w http.ResponseWriter, _ *http.Request) {
		body, err := get(c, nodePods)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		groups, err := Targets(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(groups)
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		pods, err := get(c, d.APIServer+"/api/v1/pods")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		deployments, err := get(c, d.APIServer+"/apis/apps/v1/deployments")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		text, err := StateMetrics(pods, deployments)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = io.WriteString(w, text)
	})
	return mux
}

// get reads one answer of the API server; anything but 200 is an error with its body.
func get(c *http.Client, u string) ([]byte, error) {
	resp, err := c.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("API server: %s: %s", resp.Status, body)
	}
	return body, nil
}
