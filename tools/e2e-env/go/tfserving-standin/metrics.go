package main

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// Prometheus metrics, named as TF Serving exports them on the monitoring
// path (a ":" replaces every "/" of the internal metric name).

type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]int // model_name, status
	loads    map[[2]string]int // model_path, status
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]int{}, loads: map[[2]string]int{}}
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
}
