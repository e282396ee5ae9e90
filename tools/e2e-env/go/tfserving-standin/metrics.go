package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Prometheus metrics, named as TF Serving exports them on the monitoring
// path (a ":" replaces every "/" of the internal metric name), in the
// order of their internal names.

type metrics struct {
	mu        sync.Mutex
	requests  map[[2]string]int        // model_name, status
	loads     map[[2]string]int        // model_path, status
	latencies map[[3]string]*histogram // model_name, API, entrypoint
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]int{}, loads: map[[2]string]int{}, latencies: map[[3]string]*histogram{}}
}

// latencyBuckets are /tensorflow/serving/request_latency's bucket limits in
// microseconds: Buckets::Exponential(10, 1.8, 33), then one up to +Inf.
var latencyBuckets = func() []float64 {
	out := make([]float64, 33)
	bound := 10.0
	for i := range out {
		out[i] = bound
		bound *= 1.8
	}
	return out
}()

type histogram struct {
	counts []int // one per limit, and the last for +Inf
	sum    float64
}

// latency records a successful call, as RecordRequestLatency: the real server
// records it for gRPC's Predict, Classify and Regress with entrypoint "GRPC".
func (m *metrics) latency(model, api, entrypoint string, micros int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [3]string{model, api, entrypoint}
	h := m.latencies[k]
	if h == nil {
		h = &histogram{counts: make([]int, len(latencyBuckets)+1)}
		m.latencies[k] = h
	}
	// A value falls in the first bucket whose limit is above it.
	h.counts[sort.Search(len(latencyBuckets), func(i int) bool { return latencyBuckets[i] > float64(micros) })]++
	h.sum += float64(micros)
}

// sixDigits prints a double as absl::StrCat does (%g, six significant digits).
func sixDigits(f float64) string {
	return strconv.FormatFloat(f, 'g', 6, 64)
}

func writeHistogram(w io.Writer, name string, values map[[3]string]*histogram) {
	fmt.Fprintf(w, "# TYPE %s histogram\n", name)
	keys := make([][3]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], "\x00") < strings.Join(keys[j][:], "\x00") })
	for _, k := range keys {
		h := values[k]
		labels := fmt.Sprintf("model_name=%q,API=%q,entrypoint=%q", k[0], k[1], k[2])
		total := 0
		for i, c := range h.counts {
			total += c
			le := "+Inf"
			if i < len(latencyBuckets) {
				le = sixDigits(latencyBuckets[i])
			}
			fmt.Fprintf(w, "%s_bucket{%s,le=%q} %d\n", name, labels, le, total)
		}
		fmt.Fprintf(w, "%s_sum{%s} %s\n%s_count{%s} %d\n", name, labels, sixDigits(h.sum), name, labels, total)
	}
}

func (m *metrics) request(model, status string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{model, status}]++
}

func (m *metrics) loadAttempt(path, status string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads[[2]string{path, status}]++
}

func writeCounter(w io.Writer, name, l1, l2 string, values map[[2]string]int) {
	fmt.Fprintf(w, "# TYPE %s counter\n", name)
	keys := make([][2]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"\x00"+keys[i][1] < keys[j][0]+"\x00"+keys[j][1] })
	for _, k := range keys {
		fmt.Fprintf(w, "%s{%s=%q,%s=%q} %d\n", name, l1, k[0], l2, k[1], values[k])
	}
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	writeCounter(w, ":tensorflow:cc:saved_model:load_attempt_count", "model_path", "status", m.loads)
	writeCounter(w, ":tensorflow:serving:request_count", "model_name", "status", m.requests)
	writeHistogram(w, ":tensorflow:serving:request_latency", m.latencies)
}
