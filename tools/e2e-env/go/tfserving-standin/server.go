package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// The servables and their states, as AspiredVersionsManager and
// ServableStateMonitor keep them: each version goes START -> LOADING ->
// AVAILABLE (or END with the load error after the retries), and a version no
// longer aspired goes UNLOADING -> END once an aspired one is AVAILABLE (the
// AvailabilityPreservingPolicy main.cc uses). Loads run one at a time, as with
// the default --num_load_threads=0.

type versionState struct {
	version       int64
	state         string
	code, message string // error status of an END version; "OK" otherwise
	loaded        *loadedVersion
}

type servable struct {
	cfg      modelConfig
	versions map[int64]*versionState
}

type server struct {
	opts       *options
	log        io.Writer
	metrics    *metrics
	monitoring monitoringConfig

	mu     sync.Mutex
	models []*servable
	byName map[string]*servable
}

func newServer(opts *options, log io.Writer) (*server, error) {
	s := &server{opts: opts, log: log, metrics: newMetrics(), byName: map[string]*servable{}}
	var configs []modelConfig
	switch {
	case opts.modelConfigFile != "":
		var err error
		if configs, err = parseModelConfigFile(opts.modelConfigFile); err != nil {
			return nil, err
		}
	case opts.modelBasePath != "":
		s.logf('I', "tensorflow_serving/model_servers/server.cc", "Building single TensorFlow model file config:  model_name: %s model_base_path: %s", opts.modelName, opts.modelBasePath)
		configs = []modelConfig{{name: opts.modelName, basePath: opts.modelBasePath, platform: "tensorflow",
			policy: versionPolicy{kind: "latest", numVersions: 1}, labels: map[string]int64{}}}
	default:
		return nil, fmt.Errorf("INVALID_ARGUMENT: Both server_options.model_base_path and server_options.model_config_file are empty!")
	}
	if opts.monitoringConfigFile != "" {
		mc, err := parseMonitoringConfigFile(opts.monitoringConfigFile)
		if err != nil {
			return nil, err
		}
		s.monitoring = mc
	}
	if opts.enableBatching && opts.batchingParametersFile != "" {
		if err := checkBatchingParametersFile(opts.batchingParametersFile); err != nil {
			return nil, err
		}
	}
	s.logf('I', "tensorflow_serving/model_servers/server_core.cc", "Adding/updating models.")
	for _, c := range configs {
		s.logf('I', "tensorflow_serving/model_servers/server_core.cc", " (Re-)adding model: %s", c.name)
		m := &servable{cfg: c, versions: map[int64]*versionState{}}
		s.models = append(s.models, m)
		s.byName[c.name] = m
	}
	return s, nil
}

func (s *server) logf(level byte, file, format string, args ...any) {
	logf(s.log, level, file, format, args...)
}

// logf writes one line in TensorFlow's log format.
func logf(w io.Writer, level byte, file, format string, args ...any) {
	fmt.Fprintf(w, "%s: %c %s] %s\n", time.Now().Format("2006-01-02 15:04:05.000000"), level, file, fmt.Sprintf(format, args...))
}

func servableID(name string, version int64) string {
	return fmt.Sprintf("{name: %s version: %d}", name, version)
}

// poll scans every base path and loads or unloads what changed. As the real
// source, a file-system error for one model skips the whole poll.
func (s *server) poll() {
	aspired := make([][]aspiredVersion, len(s.models))
	for i, m := range s.models {
		versions, err := pollBasePath(m.cfg, func(w string) {
			s.logf('W', "tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc", "%s", w)
		})
		if err != nil {
			s.logf('E', "tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc", "FileSystemStoragePathSource encountered a filesystem access error: %s", strings.TrimPrefix(err.Error(), "INVALID_ARGUMENT: "))
			return
		}
		aspired[i] = versions
	}
	for i, m := range s.models {
		s.reconcile(m, aspired[i])
	}
}

func (s *server) setState(v *versionState, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v.state = state
}

func (s *server) reconcile(m *servable, aspired []aspiredVersion) {
	wanted := map[int64]bool{}
	for _, a := range aspired {
		wanted[a.version] = true
		s.mu.Lock()
		_, known := m.versions[a.version]
		if !known {
			m.versions[a.version] = &versionState{version: a.version, state: "START", code: "OK"}
		}
		v := m.versions[a.version]
		s.mu.Unlock()
		if !known {
			s.loadWithRetries(m, v, m.cfg.basePath+"/"+a.dir)
		}
	}
	s.mu.Lock()
	anyAvailable := false
	for v := range wanted {
		anyAvailable = anyAvailable || m.versions[v].state == "AVAILABLE"
	}
	var retire []*versionState
	for _, v := range m.versions {
		if !wanted[v.version] && v.state == "AVAILABLE" && (anyAvailable || len(wanted) == 0) {
			retire = append(retire, v)
		}
	}
	s.mu.Unlock()
	for _, v := range retire {
		id := servableID(m.cfg.name, v.version)
		s.setState(v, "UNLOADING")
		s.logf('I', "tensorflow_serving/core/loader_harness.cc", "Unloading servable version %s", id)
		s.mu.Lock()
		v.loaded, v.state = nil, "END"
		s.mu.Unlock()
		s.logf('I', "tensorflow_serving/core/loader_harness.cc", "Done unloading servable version %s", id)
	}
}

func (s *server) loadWithRetries(m *servable, v *versionState, dir string) {
	id := servableID(m.cfg.name, v.version)
	s.logf('I', "tensorflow_serving/core/basic_manager.cc", "Successfully reserved resources to load servable %s", id)
	s.logf('I', "tensorflow_serving/core/loader_harness.cc", "Approving load for servable version %s", id)
	s.setState(v, "LOADING")
	s.logf('I', "tensorflow_serving/core/loader_harness.cc", "Loading servable version %s", id)
	var err error
	for attempt := int64(0); ; attempt++ {
		var lv *loadedVersion
		if lv, err = s.loadVersion(dir); err == nil {
			s.mu.Lock()
			v.loaded, v.state = lv, "AVAILABLE"
			s.mu.Unlock()
			s.logf('I', "tensorflow_serving/core/loader_harness.cc", "Successfully loaded servable version %s", id)
			return
		}
		s.logf('E', "tensorflow_serving/util/retrier.cc", "Loading servable: %s failed: %v", id, err)
		if attempt >= s.opts.maxNumLoadRetries {
			break
		}
		if s.opts.loadRetryIntervalMicros > 0 {
			time.Sleep(time.Duration(s.opts.loadRetryIntervalMicros) * time.Microsecond)
		}
		s.logf('I', "tensorflow_serving/util/retrier.cc", "Retrying of Loading servable: %s retry: %d", id, attempt+1)
	}
	s.logf('E', "tensorflow_serving/core/aspired_versions_manager.cc", "Servable %s cannot be loaded: %v", id, err)
	code, message := splitStatus(err.Error())
	s.mu.Lock()
	v.state, v.code, v.message = "END", code, message
	s.mu.Unlock()
}

// splitStatus splits "NOT_FOUND: message" into its code and message.
func splitStatus(s string) (string, string) {
	if code, msg, ok := strings.Cut(s, ": "); ok && code == strings.ToUpper(code) && !strings.ContainsAny(code, " /") {
		return code, msg
	}
	return "UNKNOWN", s
}

// waitForInitialModels polls until every model has its aspired versions
// loaded or failed; with --file_system_poll_wait_seconds=0 it looks once and
// then waits forever for a model without versions, as the real server does.
// It fails when an initial version could not be loaded.
func (s *server) waitForInitialModels() error {
	for polls := 0; ; polls++ {
		if polls == 0 || s.opts.fileSystemPollWaitSeconds > 0 {
			s.poll()
		}
		if failed := s.failedVersions(); len(failed) > 0 {
			return fmt.Errorf("UNKNOWN: %d servable(s) did not become available: {%s}", len(failed), strings.Join(failed, ""))
		}
		if s.allModelsAvailable() {
			return s.checkLabels()
		}
		wait := time.Duration(s.opts.fileSystemPollWaitSeconds) * time.Second
		if wait <= 0 {
			waitForever() // never polls again; the ports stay closed
		}
		time.Sleep(wait)
	}
}

func (s *server) failedVersions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.models {
		for _, v := range sortedVersions(m) {
			if v.state == "END" && v.code != "OK" {
				out = append(out, fmt.Sprintf("{%s due to error: %s: %s}, ", servableID(m.cfg.name, v.version), v.code, v.message))
			}
		}
	}
	return out
}

func (s *server) allModelsAvailable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		available := false
		for _, v := range m.versions {
			if v.state == "START" || v.state == "LOADING" {
				return false
			}
			available = available || v.state == "AVAILABLE"
		}
		if !available {
			return false
		}
	}
	return true
}

func (s *server) checkLabels() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		for _, version := range m.cfg.labels {
			v := m.versions[version]
			if (v == nil || v.state != "AVAILABLE") && !s.opts.allowLabelsForUnavailable {
				return fmt.Errorf("FAILED_PRECONDITION: Request to assign label to version %d of model %s, which is not currently available for inference", version, m.cfg.name)
			}
		}
	}
	return nil
}

// sortedVersions lists a model's versions highest first, as the state
// monitor's map orders them. Call with s.mu held.
func sortedVersions(m *servable) []*versionState {
	out := make([]*versionState, 0, len(m.versions))
	for _, v := range m.versions {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version > out[j].version })
	return out
}

// pollForever keeps polling after the start, when polling is periodic.
func (s *server) pollForever() {
	if s.opts.fileSystemPollWaitSeconds <= 0 {
		return
	}
	for {
		time.Sleep(time.Duration(s.opts.fileSystemPollWaitSeconds) * time.Second)
		s.poll()
	}
}

// waitForever blocks without end. A bare select{} would not do: with no
// other goroutine alive the Go runtime calls it a deadlock and crashes.
func waitForever() {
	for {
		time.Sleep(time.Hour)
	}
}
