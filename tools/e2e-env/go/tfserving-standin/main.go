// Command tensorflow_model_server is a stand-in for TensorFlow Serving's
// server, for the e2e environment's locally built base image. It behaves
// enough like the real one for probes and smoke tests:
//
//   - flags are read as the real server reads them (--port, --rest_api_port,
//     --model_name, --model_base_path, --model_config_file,
//     --file_system_poll_wait_seconds); every other flag is accepted and
//     ignored;
//   - it waits for a numeric version folder under the base path ("No versions
//     of servable ... found" while there is none) and only then opens its
//     ports; a version folder without saved_model.pb(txt) makes it exit 1;
//   - gRPC port: accepts TCP connections (no gRPC is spoken);
//   - REST: GET /v1/models/NAME[/versions/N|/labels/L] answers the version
//     status (AVAILABLE), 404 for an unknown model; /metadata answers the
//     model spec; :predict answers 0.5*x+2 for every number it is given (the
//     half_plus_two fixtures' function) and {"error": ...} otherwise;
//   - it exits at once on SIGTERM.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type model struct {
	name     string
	basePath string
	version  int64
}

type flags struct {
	port        int
	restPort    int
	modelName   string
	basePath    string
	configFile  string
	pollSeconds int
}

func parseFlags(args []string) flags {
	f := flags{port: 8500, modelName: "default", pollSeconds: 1}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		kv := strings.SplitN(strings.TrimLeft(a, "-"), "=", 2)
		val := ""
		if len(kv) == 2 {
			val = kv[1]
		}
		switch kv[0] {
		case "port":
			f.port, _ = strconv.Atoi(val)
		case "rest_api_port":
			f.restPort, _ = strconv.Atoi(val)
		case "model_name":
			f.modelName = val
		case "model_base_path":
			f.basePath = val
		case "model_config_file":
			f.configFile = val
		case "file_system_poll_wait_seconds":
			f.pollSeconds, _ = strconv.Atoi(val)
		}
	}
	return f
}

var (
	configName = regexp.MustCompile(`name:\s*['"]([^'"]+)['"]`)
	configBase = regexp.MustCompile(`base_path:\s*['"]([^'"]+)['"]`)
)

// modelsFromConfig reads names and base paths from a model_config_list text
// proto, in order.
func modelsFromConfig(text string) []*model {
	names := configName.FindAllStringSubmatch(text, -1)
	bases := configBase.FindAllStringSubmatch(text, -1)
	var out []*model
	for i := range names {
		if i < len(bases) {
			out = append(out, &model{name: names[i][1], basePath: bases[i][1]})
		}
	}
	return out
}

// latestVersion returns the highest numeric folder under base (and its name,
// which may have leading zeros), or 0.
func latestVersion(base string) (int64, string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return 0, ""
	}
	var best int64
	var dir string
	for _, e := range entries {
		if v, err := strconv.ParseInt(e.Name(), 10, 64); err == nil && v > 0 && e.IsDir() && v > best {
			best, dir = v, e.Name()
		}
	}
	return best, dir
}

func hasSavedModel(dir string) bool {
	for _, n := range []string{"saved_model.pb", "saved_model.pbtxt"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	f := parseFlags(os.Args[1:])
	var models []*model
	if f.configFile != "" {
		data, err := os.ReadFile(f.configFile)
		if err != nil {
			log.Fatalf("Failed to read model config file %s: %v", f.configFile, err)
		}
		models = modelsFromConfig(string(data))
	} else if f.basePath != "" {
		models = []*model{{name: f.modelName, basePath: f.basePath}}
	}
	if len(models) == 0 {
		log.Fatal("Either --model_base_path or --model_config_file must be set")
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		s := <-sigs
		log.Printf("Received %v, exiting", s)
		os.Exit(0)
	}()

	for _, m := range models {
		var versionDir string
		for {
			m.version, versionDir = latestVersion(m.basePath)
			if m.version > 0 {
				break
			}
			log.Printf("No versions of servable %s found under base path %s. Did you forget to name your leaf directory as a number (eg. '/1/')?", m.name, m.basePath)
			time.Sleep(time.Duration(max(f.pollSeconds, 1)) * time.Second)
		}
		dir := filepath.Join(m.basePath, versionDir)
		if !hasSavedModel(dir) {
			log.Printf("Loading servable: {name: %s version: %d} failed: Not found: Could not find SavedModel .pb or .pbtxt at supplied export directory path: %s", m.name, m.version, dir)
			os.Exit(1)
		}
		log.Printf("Successfully loaded servable version {name: %s version: %d}", m.name, m.version)
	}

	grpcLn, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", f.port))
	if err != nil {
		log.Fatalf("Failed to listen on gRPC port %d: %v", f.port, err)
	}
	log.Printf("Running gRPC ModelServer at 0.0.0.0:%d ...", f.port)
	go acceptAndHold(grpcLn)

	if f.restPort == 0 {
		select {}
	}
	log.Printf("Exporting HTTP/REST API at:localhost:%d ...", f.restPort)
	srv := &http.Server{Addr: fmt.Sprintf("0.0.0.0:%d", f.restPort), Handler: handler(models), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

func acceptAndHold(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			_, _ = io.Copy(io.Discard, c)
			_ = c.Close()
		}()
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func handler(models []*model) http.Handler {
	byName := map[string]*model{}
	for _, m := range models {
		byName[m.name] = m
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/monitoring/prometheus/metrics" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintln(w, "# TYPE :tensorflow:serving:request_count counter")
			for _, n := range sortedNames(byName) {
				fmt.Fprintf(w, ":tensorflow:serving:request_count{model_name=%q,status=\"OK\"} 0\n", n)
			}
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, "/v1/models/")
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "Malformed request: " + r.Method + " " + r.URL.Path})
			return
		}
		verb := ""
		if i := strings.LastIndex(rest, ":"); i >= 0 {
			rest, verb = rest[:i], rest[i+1:]
		}
		parts := strings.Split(rest, "/")
		m, known := byName[parts[0]]
		if !known {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("Servable not found for request: Latest(%s)", parts[0])})
			return
		}
		if len(parts) >= 3 && parts[1] == "versions" && parts[2] != strconv.FormatInt(m.version, 10) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("Servable not found for request: Specific(%s, %s)", m.name, parts[2])})
			return
		}
		version := strconv.FormatInt(m.version, 10)
		switch {
		case verb == "" && len(parts) >= 2 && parts[len(parts)-1] == "metadata":
			writeJSON(w, http.StatusOK, map[string]any{
				"model_spec": map[string]string{"name": m.name, "signature_name": "", "version": version},
				"metadata":   map[string]any{"signature_def": map[string]any{"signature_def": map[string]any{}}},
			})
		case verb == "" && r.Method == http.MethodGet:
			writeJSON(w, http.StatusOK, map[string]any{"model_version_status": []any{map[string]any{
				"version": version, "state": "AVAILABLE",
				"status": map[string]string{"error_code": "OK", "error_message": ""},
			}}})
		case verb == "predict" && r.Method == http.MethodPost:
			predict(w, r)
		case verb == "classify" || verb == "regress":
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the stand-in server answers only :predict"})
		default:
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "Malformed request: " + r.Method + " " + r.URL.Path})
		}
	})
}

func sortedNames(m map[string]*model) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// halfPlusTwo maps every number in v to 0.5*x+2, keeping the shape.
func halfPlusTwo(v any) (any, error) {
	switch t := v.(type) {
	case float64:
		return 0.5*t + 2, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			r, err := halfPlusTwo(e)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			r, err := halfPlusTwo(e)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	default:
		return nil, fmt.Errorf("the stand-in server computes 0.5*x+2 on numbers only, got %v", v)
	}
}

func predict(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "JSON Parse error: " + err.Error()})
		return
	}
	if in, ok := body["instances"]; ok {
		out, err := halfPlusTwo(in)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"predictions": out})
		return
	}
	if in, ok := body["inputs"]; ok {
		out, err := halfPlusTwo(in)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"outputs": out})
		return
	}
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": "Missing 'inputs' or 'instances' key"})
}
