package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Prometheus metrics, named and labelled as TF Serving exports them on the
// monitoring path (util/prometheus_exporter.cc): every character of the
// internal name outside [a-zA-Z0-9_] becomes ":", metrics come sorted by
// name, histograms as cumulative _bucket lines (the last one le="+Inf"), then
// _sum and _count. The metrics are the ones of servables/tensorflow/util.cc
// and TensorFlow's cc/saved_model/loader.cc:
//
//	/tensorflow/cc/saved_model/load_attempt_count  counter  model_path, status (success | fail)
//	/tensorflow/cc/saved_model/load_latency        counter  model_path (microseconds)
//	/tensorflow/serving/request_count              counter  model_name, status (the error code's name)
//	/tensorflow/serving/request_latency            histogram model_name, API, entrypoint (microseconds, successful calls)
//
// As the real server counts them: gRPC's Predict with API "Predict"
// (prediction_service_impl.cc), every REST request under /v1/ with API the
// verb its URL matched, "predict", or "" for the status and metadata GETs
// (http_server.cc, ProcessRequest; rest.go).

const (
	loadAttemptCountName = ":tensorflow:cc:saved_model:load_attempt_count"
	loadLatencyName      = ":tensorflow:cc:saved_model:load_latency"
	requestCountName     = ":tensorflow:serving:request_count"
	requestLatencyName   = ":tensorflow:serving:request_latency"
)

// requestLatencyBuckets are the upper bounds of util.cc's request_latency
// buckets, Buckets::Exponential(10, 1.8, 33): 10 x 1.8^k microseconds for k
// in 0..32, then the overflow bucket (+Inf).
var requestLatencyBuckets = func() []float64 {
	b := make([]float64, 33)
	bound := 10.0
	for i := range b {
		b[i] = bound
		bound *= 1.8
	}
	return b
}()

type histogram struct {
	counts []int64 // per bucket, the last one the overflow
	sum    float64
}

type metrics struct {
	mu         sync.Mutex
	requests   map[[2]string]int        // model_name, status
	loads      map[[2]string]int        // model_path, status
	loadMicros map[string]int64         // model_path
	latencies  map[[3]string]*histogram // model_name, API, entrypoint
}

func newMetrics() *metrics {
	return &metrics{
		requests:   map[[2]string]int{},
		loads:      map[[2]string]int{},
		loadMicros: map[string]int64{},
		latencies:  map[[3]string]*histogram{},
	}
}

func (m *metrics) request(model, status string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{model, status}]++
}

// requestLatency records one successful call of api through entrypoint
// (TF Serving's "GRPC" or "REST") that took micros microseconds.
func (m *metrics) requestLatency(model, api, entrypoint string, micros int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := [3]string{model, api, entrypoint}
	h := m.latencies[key]
	if h == nil {
		h = &histogram{counts: make([]int64, len(requestLatencyBuckets)+1)}
		m.latencies[key] = h
	}
	v := float64(micros)
	i := sort.Search(len(requestLatencyBuckets), func(i int) bool { return v < requestLatencyBuckets[i] })
	h.counts[i]++
	h.sum += v
}

// loadAttempt records one SavedModel load of path that ended with status
// after micros microseconds (loader.cc counts the time of failures too).
func (m *metrics) loadAttempt(path, status string, micros int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads[[2]string{path, status}]++
	m.loadMicros[path] += micros
}

// keysBy are the keys of values, ordered by their labels' values joined.
func keysBy[K comparable, V any](values map[K]V, labels func(K) []string) []K {
	keys := make([]K, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	join := func(k K) string { return strings.Join(labels(k), "\x00") }
	sort.Slice(keys, func(i, j int) bool { return join(keys[i]) < join(keys[j]) })
	return keys
}

func writeCounter(w io.Writer, name, l1, l2 string, values map[[2]string]int) {
	fmt.Fprintf(w, "# TYPE %s counter\n", name)
	for _, k := range keysBy(values, func(k [2]string) []string { return k[:] }) {
		fmt.Fprintf(w, "%s{%s=%q,%s=%q} %d\n", name, l1, k[0], l2, k[1], values[k])
	}
}

// bucketLimit spells a bucket bound as absl::StrCat does a double (%.6g).
func bucketLimit(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	writeCounter(w, loadAttemptCountName, "model_path", "status", m.loads)
	fmt.Fprintf(w, "# TYPE %s counter\n", loadLatencyName)
	for _, path := range sortedKeys(m.loadMicros) {
		fmt.Fprintf(w, "%s{model_path=%q} %d\n", loadLatencyName, path, m.loadMicros[path])
	}
	writeCounter(w, requestCountName, "model_name", "status", m.requests)
	fmt.Fprintf(w, "# TYPE %s histogram\n", requestLatencyName)
	for _, k := range keysBy(m.latencies, func(k [3]string) []string { return k[:] }) {
		h := m.latencies[k]
		labels := fmt.Sprintf("model_name=%q,API=%q,entrypoint=%q", k[0], k[1], k[2])
		var cumulative int64
		for i, n := range h.counts {
			cumulative += n
			limit := math.Inf(1)
			if i < len(requestLatencyBuckets) {
				limit = requestLatencyBuckets[i]
			}
			fmt.Fprintf(w, "%s_bucket{%s,le=%q} %d\n", requestLatencyName, labels, bucketLimit(limit), cumulative)
		}
		fmt.Fprintf(w, "%s_sum{%s} %s\n", requestLatencyName, labels, strconv.FormatFloat(h.sum, 'g', 6, 64))
		fmt.Fprintf(w, "%s_count{%s} %d\n", requestLatencyName, labels, cumulative)
	}
}
