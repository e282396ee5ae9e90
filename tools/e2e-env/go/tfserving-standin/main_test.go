package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce   sync.Once
	builtBinary string
	buildErr    error
)

// serverBinary builds the server once per test run, as the image's build
// does, so the child-process tests run exactly what the image ships.
func serverBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tfserving-standin-test-")
		if err != nil {
			buildErr = err
			return
		}
		builtBinary = filepath.Join(dir, "tensorflow_model_server")
		cmd := exec.Command("go", "build", "-o", builtBinary, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBinary
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary != "" {
		os.RemoveAll(filepath.Dir(builtBinary))
	}
	os.Exit(code)
}

const fixtures = "../../../../test/fixtures/saved_models"

func fixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// copyTree copies a fixture into a temporary folder a test may change.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type child struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	grpc, rest     int
}

type syncBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func newSyncBuffer() *syncBuffer { b := &syncBuffer{mu: make(chan struct{}, 1)}; return b }
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.Write(p)
}
func (b *syncBuffer) String() string {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.String()
}

// start runs the server as a child process on free loopback ports.
func start(t *testing.T, args ...string) *child {
	t.Helper()
	c := &child{stdout: newSyncBuffer(), stderr: newSyncBuffer(), grpc: freePort(t), rest: freePort(t)}
	all := append([]string{"--port=" + strconv.Itoa(c.grpc), "--rest_api_port=" + strconv.Itoa(c.rest)}, args...)
	c.cmd = exec.Command(serverBinary(t), all...)
	c.cmd.Stdout, c.cmd.Stderr = c.stdout, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	})
	return c
}

func (c *child) url(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", c.rest, path) }

// waitFor polls cond every 20 ms until it holds or the timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func listening(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
	if err == nil {
		c.Close()
	}
	return err == nil
}

func httpJSON(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: not JSON: %q", method, url, raw)
	}
	return res.StatusCode, out
}

// --- flags ---

func TestFlagsAreTheRealServersWithItsDefaults(t *testing.T) {
	o, unknown, ok := parseArgs([]string{"--port=9000", "--rest_api_port=9001", "--model_name=m", "--model_base_path=/models/m",
		"--enable_batching", "--batching_parameters_file=/etc/b", "--tensorflow_intra_op_parallelism=2",
		"--tensorflow_inter_op_parallelism=3", "--rest_api_num_threads=8", "--grpc_max_threads=8",
		"--monitoring_config_file=/etc/m", "--enable_model_warmup=false", "--file_system_poll_wait_seconds=0",
		"--rest_api_timeout_in_ms=5000", "--per_process_gpu_memory_fraction=0.5", "--enable_grpc_healthcheck_service=true",
		"--model_config_file_poll_wait_seconds=60"}, io.Discard)
	if !ok || len(unknown) != 0 {
		t.Fatalf("ok=%v unknown=%v", ok, unknown)
	}
	want := options{grpcPort: 9000, httpPort: 9001, modelName: "m", modelBasePath: "/models/m", enableBatching: true,
		batchingParametersFile: "/etc/b", intraOpParallelism: 2, interOpParallelism: 3, httpNumThreads: 8, grpcMaxThreads: 8,
		monitoringConfigFile: "/etc/m", enableModelWarmup: false, fileSystemPollWaitSeconds: 0, httpTimeoutMs: 5000,
		perProcessGPUMemoryFraction: float64(float32(0.5)), grpcHealthcheck: true, modelConfigPollSeconds: 60,
		maxNumLoadRetries: 5, loadRetryIntervalMicros: 60_000_000, flushFilesystemCaches: true, savedModelTags: "serve",
		numTfliteInterpreters: 1}
	if !reflect.DeepEqual(*o, want) {
		t.Fatalf("got  %+v\nwant %+v", *o, want)
	}
	d, _, _ := parseArgs(nil, io.Discard)
	if d.grpcPort != 8500 || d.httpPort != 0 || d.modelName != "default" || d.fileSystemPollWaitSeconds != 1 || !d.enableModelWarmup {
		t.Fatalf("defaults: %+v", d)
	}
}

func TestABadValueOfAKnownFlagFailsTheParse(t *testing.T) {
	var stderr bytes.Buffer
	for _, arg := range []string{"--port=http", "--enable_batching=yes", "--port=99999999999", "--per_process_gpu_memory_fraction=half"} {
		if _, _, ok := parseArgs([]string{arg}, &stderr); ok {
			t.Errorf("%s: parsed", arg)
		}
	}
	if !strings.Contains(stderr.String(), "Couldn't interpret value http for flag port.") {
		t.Fatalf("stderr: %s", stderr.String())
	}
	if _, _, ok := parseArgs([]string{"--help"}, io.Discard); ok {
		t.Fatal("--help parsed")
	}
}

func TestAnUnknownArgumentIsReportedWithTheUsageAndTheServerStartsAnyway(t *testing.T) {
	// main.cc prints "unknown argument" and the usage but does not return.
	o, unknown, ok := parseArgs([]string{"--model_base_path=/m", "--no_such_flag=1", "--port", "9000"}, io.Discard)
	if !ok || o.modelBasePath != "/m" || !reflect.DeepEqual(unknown, []string{"--no_such_flag=1", "--port", "9000"}) {
		t.Fatalf("ok=%v unknown=%v", ok, unknown)
	}
	c := start(t, "--model_base_path="+fixture(t, "half_plus_two_cpu"), "--no_such_flag=1")
	waitFor(t, "REST port", 10*time.Second, func() bool { return listening(c.rest) })
	if out := c.stdout.String(); !strings.HasPrefix(out, "unknown argument: --no_such_flag=1\nusage: tensorflow_model_server\n") ||
		!strings.Contains(out, "\t--model_config_file=\"\"\tstring\t") {
		t.Fatalf("stdout: %q", out)
	}
}

func TestUsageAndExit255OnABadFlagValue(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--rest_api_port=eighty"}, &stdout, &stderr); code != 255 {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(stdout.String(), "usage: tensorflow_model_server\nFlags:\n") {
		t.Fatalf("stdout: %q", stdout.String())
	}
}

func TestNoModelIsAStartError(t *testing.T) {
	var stdout bytes.Buffer
	if code := run(nil, &stdout, io.Discard); code != 255 {
		t.Fatalf("exit %d", code)
	}
	if want := "Failed to start server. Error: INVALID_ARGUMENT: Both server_options.model_base_path and server_options.model_config_file are empty!\n"; stdout.String() != want {
		t.Fatalf("stdout: %q", stdout.String())
	}
}

// --- config files ---

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestModelConfigFileWithPoliciesAndLabels(t *testing.T) {
	file := writeFile(t, t.TempDir(), "models.config", `model_config_list {
  config { name: 'a' base_path: '/models/a' model_platform: 'tensorflow' }
  config {
    name: "b" base_path: "/models/b" model_platform: "tensorflow"
    model_version_policy { specific { versions: 1 versions: 3 } }
    version_labels { key: 'stable' value: 1 }
    version_labels { key: 'canary' value: 3 }
  }
  config: < name: 'c' base_path: '/models/c' model_platform: 'tensorflow' model_version_policy { latest { num_versions: 2 } } >
  config { name: 'd' base_path: '/models/d' model_platform: 'tensorflow' model_version_policy { all {} } }
}`)
	got, err := parseModelConfigFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []modelConfig{
		{name: "a", basePath: "/models/a", platform: "tensorflow", policy: versionPolicy{kind: "latest", numVersions: 1}, labels: map[string]int64{}},
		{name: "b", basePath: "/models/b", platform: "tensorflow", policy: versionPolicy{kind: "specific", versions: []int64{1, 3}}, labels: map[string]int64{"stable": 1, "canary": 3}},
		{name: "c", basePath: "/models/c", platform: "tensorflow", policy: versionPolicy{kind: "latest", numVersions: 2}, labels: map[string]int64{}},
		{name: "d", basePath: "/models/d", platform: "tensorflow", policy: versionPolicy{kind: "all"}, labels: map[string]int64{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{
		`model_config_list { config { name: 'a' base_path: '/a' model_platform: 'tensorflow' basepath: '/b' } }`,
		`model_config_list { config { name: 'a' base_path: '/a' model_platform: 'tensorflow' `,
		`model_config_list { config { name: 'a' base_path: '/a' model_platform: 'tensorflow' version_labels { key: 'not-ok' value: 1 } } }`,
	} {
		if _, err := parseModelConfigFile(writeFile(t, t.TempDir(), "bad.config", bad)); err == nil || !strings.Contains(err.Error(), "Invalid protobuf file") {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}

func TestMonitoringAndBatchingFilesAreTheFixturesFormats(t *testing.T) {
	mc, err := parseMonitoringConfigFile("../../../../test/fixtures/monitoring_config.txt")
	if err != nil || !mc.prometheus || mc.path != "/monitoring/prometheus/metrics" {
		t.Fatalf("%+v %v", mc, err)
	}
	if err := checkBatchingParametersFile("../../../../test/fixtures/batching_config.txt"); err != nil {
		t.Fatal(err)
	}
	if err := checkBatchingParametersFile(writeFile(t, t.TempDir(), "b", "max_batch_size: { value: 8 }\nbatch_size: 3\n")); err == nil {
		t.Fatal("an unknown batching field was accepted")
	}
}

// --- version folders ---

func mkdirs(t *testing.T, base string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(base, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPollingFindsNumericVersionFoldersUnderEachPolicy(t *testing.T) {
	base := t.TempDir()
	mkdirs(t, base, "00000123", "7", "variables", "1.5", "v2", "42")
	versions := func(p versionPolicy) string {
		var warnings []string
		got, err := pollBasePath(modelConfig{name: "m", basePath: base, policy: p}, func(w string) { warnings = append(warnings, w) })
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range got {
			out = append(out, fmt.Sprintf("%d@%s", v.version, v.dir))
		}
		return strings.Join(out, " ") + " " + strings.Join(warnings, "|")
	}
	cases := map[string]versionPolicy{
		"123@00000123 ":           {kind: "latest", numVersions: 1},
		"42@42 123@00000123 ":     {kind: "latest", numVersions: 2},
		"7@7 42@42 123@00000123 ": {kind: "all"},
		"7@7 123@00000123 Version 99 of servable m, which was requested to be served as a 'specific' version in the servable's version policy, was not found in the file system": {kind: "specific", versions: []int64{7, 123, 99}},
	}
	for want, policy := range cases {
		if got := versions(policy); got != want {
			t.Errorf("%+v: got %q, want %q", policy, got, want)
		}
	}
}

func TestNoVersionFolderLogsTheServersWarning(t *testing.T) {
	base := t.TempDir()
	mkdirs(t, base, "saved_model", "variables")
	var warnings []string
	got, err := pollBasePath(modelConfig{name: "m", basePath: base, policy: versionPolicy{kind: "latest", numVersions: 1}}, func(w string) { warnings = append(warnings, w) })
	want := fmt.Sprintf("No versions of servable m found under base path %s. Did you forget to name your leaf directory as a number (eg. '/1/')?", base)
	if err != nil || len(got) != 0 || !reflect.DeepEqual(warnings, []string{want}) {
		t.Fatalf("%v %v %q", got, err, warnings)
	}
	_, err = pollBasePath(modelConfig{name: "m", basePath: filepath.Join(base, "missing")}, func(string) {})
	if missing := filepath.Join(base, "missing"); err == nil || !strings.HasSuffix(err.Error(), "Could not find base path "+missing+" for servable m with error NOT_FOUND: "+missing+" not found") {
		t.Fatalf("missing base path: %v", err)
	}
}

func TestWithoutAVersionFolderItLogsAtEveryPollAndNeverOpensItsPorts(t *testing.T) {
	base := t.TempDir()
	copyTree(t, filepath.Join(fixture(t, "half_plus_two_cpu"), "00000123"), base) // the classic mistake: no version folder
	c := start(t, "--model_name=hpt", "--model_base_path="+base, "--file_system_poll_wait_seconds=1")
	line := "W tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc] No versions of servable hpt found under base path " + base + ". Did you forget to name your leaf directory as a number (eg. '/1/')?"
	waitFor(t, "the second warning", 5*time.Second, func() bool { return strings.Count(c.stderr.String(), line) >= 2 })
	if listening(c.grpc) || listening(c.rest) {
		t.Fatal("a port is open without a model")
	}
	if c.cmd.ProcessState != nil {
		t.Fatal("the server exited")
	}
}

func TestLookingOnceWithoutAVersionFolderItWaitsForever(t *testing.T) {
	// --file_system_poll_wait_seconds=0, as the product's images run the server: one warning, then nothing.
	base := t.TempDir()
	c := start(t, "--model_name=hpt", "--model_base_path="+base, "--file_system_poll_wait_seconds=0")
	waitFor(t, "the warning", 5*time.Second, func() bool {
		return strings.Contains(c.stderr.String(), "No versions of servable hpt found under base path "+base)
	})
	time.Sleep(1500 * time.Millisecond)
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if fields := strings.Fields(string(stat)); err != nil || len(fields) < 3 || fields[2] == "Z" {
		t.Fatalf("the server exited (stat %q); log:\n%s", stat, c.stderr.String())
	}
	if strings.Count(c.stderr.String(), "No versions of servable") != 1 || listening(c.rest) {
		t.Fatalf("want one warning and closed ports; log:\n%s", c.stderr.String())
	}
}

func TestAVersionThatAppearsLaterIsLoadedThenThePortsOpen(t *testing.T) {
	base := t.TempDir()
	c := start(t, "--model_name=hpt", "--model_base_path="+base, "--file_system_poll_wait_seconds=1")
	waitFor(t, "the warning", 5*time.Second, func() bool { return strings.Contains(c.stderr.String(), "No versions of servable hpt") })
	copyTree(t, fixture(t, "half_plus_two_cpu"), base)
	waitFor(t, "the REST port", 10*time.Second, func() bool { return listening(c.rest) })
	if code, body := httpJSON(t, "POST", c.url("/v1/models/hpt:predict"), `{"instances": [1.0, 2.0, 5.0]}`); code != 200 || fmt.Sprint(body["predictions"]) != "[2.5 3 4.5]" {
		t.Fatalf("%d %v", code, body)
	}
}

// --- loading ---

func TestAnUndecodableGraphFailsTheStartAfterTheRetries(t *testing.T) {
	base := t.TempDir()
	copyTree(t, fixture(t, "half_plus_two_cpu"), base)
	pb := filepath.Join(base, "00000123", "saved_model.pb")
	if err := os.WriteFile(pb, []byte("this is not a protobuf \xff\xff\xff\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, "--model_name=hpt", "--model_base_path="+base, "--max_num_load_retries=2", "--load_retry_interval_micros=1000")
	err := c.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 255 {
		t.Fatalf("exit: %v", err)
	}
	log := c.stderr.String()
	failed := "Loading servable: {name: hpt version: 123} failed: DATA_LOSS: Can't parse " + pb + " as binary proto"
	if strings.Count(log, failed) != 3 || !strings.Contains(log, "Retrying of Loading servable: {name: hpt version: 123} retry: 2") {
		t.Fatalf("log:\n%s", log)
	}
	want := "Failed to start server. Error: UNKNOWN: 1 servable(s) did not become available: {{{name: hpt version: 123} due to error: DATA_LOSS: Can't parse " + pb + " as binary proto}, }\n"
	if !strings.HasSuffix(c.stdout.String(), want) {
		t.Fatalf("stdout: %q", c.stdout.String())
	}
	if strings.Contains(log, "Running gRPC ModelServer") {
		t.Fatal("ports opened")
	}
}

func TestAVersionFolderWithoutSavedModelIsAnotFoundLoadError(t *testing.T) {
	base := t.TempDir()
	mkdirs(t, base, "1/variables")
	var stdout, stderr bytes.Buffer
	code := run([]string{"--model_name=m", "--model_base_path=" + base, "--max_num_load_retries=0"}, &stdout, &stderr)
	if code != 255 || !strings.Contains(stdout.String(), "NOT_FOUND: Could not find SavedModel .pb or .pbtxt at supplied export directory path: "+filepath.Join(base, "1")) {
		t.Fatalf("exit %d, stdout %q", code, stdout.String())
	}
}

func TestACorruptVariableFailsItsChecksum(t *testing.T) {
	base := t.TempDir()
	copyTree(t, fixture(t, "half_plus_three"), base)
	data := filepath.Join(base, "00000123", "variables", "variables.data-00000-of-00001")
	if err := os.WriteFile(data, []byte{0, 0, 0, 0x3f, 0, 0, 0x40, 0x40, 0, 0, 0x40, 0x41}, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := restoreVariables(filepath.Join(base, "00000123"))
	if err == nil || !strings.Contains(err.Error(), "DATA_LOSS: TensorBundle at") || !strings.Contains(err.Error(), "Checksum does not match") {
		t.Fatalf("%v", err)
	}
}

func TestRestoringReadsTheVariablesOfEveryFixture(t *testing.T) {
	for name, want := range map[string]map[string]float64{
		"half_plus_two_cpu/00000123":     {"a": 0.5, "b": 2, "c": 3},
		"half_plus_three/00000123":       {"a": 0.5, "b": 3, "c": 3},
		"half_plus_two_tf2_cpu/00000123": {"a/.ATTRIBUTES/VARIABLE_VALUE": 0.5, "b/.ATTRIBUTES/VARIABLE_VALUE": 2, "c/.ATTRIBUTES/VARIABLE_VALUE": 3},
		"half_plus_two_gpu/00000123":     {"a": 0.5, "b": 2},
	} {
		r, err := restoreVariables(fixture(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for v, x := range want {
			if got := r.floats[v]; got == nil || len(got.values) != 1 || got.values[0] != x {
				t.Errorf("%s: %s = %v, want %v", name, v, got, x)
			}
		}
	}
}

func vmRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

func TestLoadingKeepsTheVariablesResidentSoMemoryGrowsWithTheModel(t *testing.T) {
	base := t.TempDir()
	copyTree(t, fixture(t, "half_plus_two_cpu"), base)
	const size = 96 << 20
	shard := filepath.Join(base, "00000123", "variables", "variables.data-00000-of-00001")
	original, _ := os.ReadFile(shard)
	big := make([]byte, size) // the real tensors first, then bytes no index entry names
	copy(big, original)
	for i := len(original); i < size; i += 4096 {
		big[i] = byte(i)
	}
	if err := os.WriteFile(shard, big, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := newServer(&options{modelName: "m", modelBasePath: base, savedModelTags: "serve"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	before := vmRSS(t)
	started := time.Now()
	lv, err := s.loadVersion(filepath.Join(base, "00000123"))
	took := time.Since(started)
	if err != nil {
		t.Fatal(err)
	}
	grew := vmRSS(t) - before
	t.Logf("loading a %d MiB model took %v; VmRSS grew by %d MiB", size>>20, took, grew>>20)
	if grew < size*9/10 {
		t.Fatalf("VmRSS grew by %d bytes for a %d-byte model", grew, size)
	}
	if lv.variables.bytes < size {
		t.Fatalf("restored %d bytes", lv.variables.bytes)
	}
}

// --- REST ---

func loadedServer(t *testing.T, args ...string) *server {
	t.Helper()
	opts, unknown, ok := parseArgs(append([]string{"--max_num_load_retries=0"}, args...), io.Discard)
	if !ok || len(unknown) > 0 {
		t.Fatalf("args %v: unknown %v", args, unknown)
	}
	s, err := newServer(opts, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.waitForInitialModels(); err != nil {
		t.Fatal(err)
	}
	return s
}

func call(t *testing.T, h http.Handler, method, path, body string) (int, any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	var out any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: body is not JSON: %q", method, path, rec.Body.String())
	}
	return rec.Code, out
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMetadataIsWhatTFServingAnsweredForTheFixture(t *testing.T) {
	h := loadedServer(t, "--model_base_path="+fixture(t, "half_plus_two_cpu")).handler()
	raw, err := os.ReadFile(filepath.Join(fixtures, "half_plus_two_cpu.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var oracle any
	if err := json.Unmarshal(raw, &oracle); err != nil {
		t.Fatal(err)
	}
	code, got := call(t, h, "GET", "/v1/models/default/metadata", "")
	if code != 200 || !reflect.DeepEqual(got, oracle) {
		t.Fatalf("%d\ngot    %s\noracle %s", code, asJSON(got), asJSON(oracle))
	}
	code, got = call(t, h, "GET", "/v1/models/default/versions/123/metadata", "")
	if code != 200 || !reflect.DeepEqual(got, oracle) {
		t.Fatalf("by version: %d %s", code, asJSON(got))
	}
}

func TestMetadataLeavesOutAShapeTheExportDidNotRecord(t *testing.T) {
	h := loadedServer(t, "--model_name=three", "--model_base_path="+fixture(t, "half_plus_three")).handler()
	_, got := call(t, h, "GET", "/v1/models/three/metadata", "")
	x := got.(map[string]any)["metadata"].(map[string]any)["signature_def"].(map[string]any)["signature_def"].(map[string]any)["serving_default"].(map[string]any)["inputs"].(map[string]any)["x"]
	if want := `{"dtype":"DT_FLOAT","name":"x:0"}`; asJSON(x) != want {
		t.Fatalf("half_plus_three's x: %s, want %s", asJSON(x), want)
	}
}

func TestModelStatusAnswersEveryVersionAnd404ForUnknownOnes(t *testing.T) {
	dir := t.TempDir()
	config := writeFile(t, dir, "models.config", fmt.Sprintf(`model_config_list { config {
  name: 'm' base_path: '%s' model_platform: 'tensorflow'
  model_version_policy { all {} } version_labels { key: 'stable' value: 123 } } }`, fixture(t, "half_plus_two_2_versions")))
	h := loadedServer(t, "--model_config_file="+config).handler()
	available := func(v string) map[string]any {
		return map[string]any{"version": v, "state": "AVAILABLE", "status": map[string]any{"error_code": "OK", "error_message": ""}}
	}
	cases := []struct {
		path string
		code int
		body any
	}{
		{"/v1/models/m", 200, map[string]any{"model_version_status": []any{available("124"), available("123")}}},
		{"/v1/models/m/versions/123", 200, map[string]any{"model_version_status": []any{available("123")}}},
		{"/v1/models/m/labels/stable", 200, map[string]any{"model_version_status": []any{available("123")}}},
		{"/v1/models/m/versions/7", 404, map[string]any{"error": "Could not find version 7 of model m"}},
		{"/v1/models/m/labels/canary", 400, map[string]any{"error": "Unrecognized servable version label: canary"}},
		{"/v1/models/other", 404, map[string]any{"error": "Could not find any versions of model other"}},
		{"/v1/models/other/metadata", 404, map[string]any{"error": "Servable not found for request: Latest(other)"}},
		{"/v1/elsewhere", 400, map[string]any{"error": "Malformed request: GET /v1/elsewhere"}},
	}
	for _, c := range cases {
		if code, body := call(t, h, "GET", c.path, ""); code != c.code || !reflect.DeepEqual(body, c.body) {
			t.Errorf("GET %s: %d %s, want %d %s", c.path, code, asJSON(body), c.code, asJSON(c.body))
		}
	}
	code, body := call(t, h, "GET", "/v1/models/m/metadata", "")
	if code != 200 || body.(map[string]any)["model_spec"].(map[string]any)["version"] != "124" {
		t.Fatalf("metadata serves the highest version: %d %s", code, asJSON(body))
	}
}

func TestPredictComputesFromTheModelsOwnGraphAndVariables(t *testing.T) {
	dir := t.TempDir()
	config := writeFile(t, dir, "models.config", fmt.Sprintf(`model_config_list {
  config { name: 'two' base_path: '%s' model_platform: 'tensorflow' }
  config { name: 'three' base_path: '%s' model_platform: 'tensorflow' } }`, fixture(t, "half_plus_two_cpu"), fixture(t, "half_plus_three")))
	h := loadedServer(t, "--model_config_file="+config).handler()
	cases := []struct {
		path, body string
		code       int
		want       string
	}{
		{"/v1/models/two:predict", `{"instances": [1.0, 2.0, 5.0]}`, 200, `{"predictions":[2.5,3,4.5]}`},
		{"/v1/models/two/versions/123:predict", `{"inputs": {"x": [[1.0]]}}`, 200, `{"outputs":[[2.5]]}`},
		{"/v1/models/two:predict", `{"inputs": [[4]]}`, 200, `{"outputs":[[4]]}`},
		{"/v1/models/two:predict", `{"instances": [{"x": [4]}]}`, 200, `{"predictions":[[4]]}`},
		{"/v1/models/two:predict", `{"signature_name": "regress_x2_to_y3", "instances": [[1]]}`, 200, `{"predictions":[[3.5]]}`},
		{"/v1/models/three:predict", `{"instances": [1.0, 2.0, 5.0]}`, 200, `{"predictions":[3.5,4,5.5]}`},
		{"/v1/models/three:predict", `{"instances": [1]}`, 200, `{"predictions":[3.5]}`},
		{"/v1/models/half:predict", `{"instances": [1]}`, 404, `{"error":"Servable not found for request: Latest(half)"}`},
		{"/v1/models/two/versions/9:predict", `{"instances": [1]}`, 404, `{"error":"Servable not found for request: Specific(two, 9)"}`},
		{"/v1/models/two:predict", `{"signature_name": "nope", "instances": [1]}`, 400, `{"error":"Serving signature name: \"nope\" not found in signature def"}`},
		{"/v1/models/two:predict", `{}`, 400, `{"error":"Missing 'inputs' or 'instances' key"}`},
		{"/v1/models/two:predict", `{"instances": [1], "inputs": [1]}`, 400, `{"error":"Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist"}`},
		{"/v1/models/two:predict", `{"instances": []}`, 400, `{"error":"No values in 'instances' array"}`},
		{"/v1/models/two:predict", `{"instances": ["a"]}`, 400, `{"error":"JSON Value: \"a\" Type: String is not of expected type: float"}`},
	}
	for _, c := range cases {
		code, body := call(t, h, "POST", c.path, c.body)
		if code != c.code || asJSON(body) != c.want {
			t.Errorf("POST %s %s: %d %s, want %d %s", c.path, c.body, code, asJSON(body), c.code, c.want)
		}
	}
	code, body := call(t, h, "POST", "/v1/models/two:predict", `{not json`)
	if code != 400 || !strings.HasPrefix(body.(map[string]any)["error"].(string), "JSON Parse error") {
		t.Fatalf("bad JSON: %d %v", code, body)
	}
}

func TestPredictAnswersFromTheVariablesNotTheFolderName(t *testing.T) {
	// half_plus_three's files under a half_plus_two name still add three.
	base := filepath.Join(t.TempDir(), "half_plus_two")
	copyTree(t, fixture(t, "half_plus_three"), base)
	h := loadedServer(t, "--model_name=half_plus_two", "--model_base_path="+base).handler()
	if code, body := call(t, h, "POST", "/v1/models/half_plus_two:predict", `{"instances": [1]}`); code != 200 || asJSON(body) != `{"predictions":[3.5]}` {
		t.Fatalf("%d %s", code, asJSON(body))
	}
}

func TestPrometheusMetricsOnTheMonitoringPath(t *testing.T) {
	s := loadedServer(t, "--model_name=m", "--model_base_path="+fixture(t, "half_plus_two_cpu"),
		"--monitoring_config_file=../../../../test/fixtures/monitoring_config.txt")
	h := s.handler()
	call(t, h, "POST", "/v1/models/m:predict", `{"instances": [1]}`)
	call(t, h, "POST", "/v1/models/m:predict", `{"instances": ["x"]}`)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/monitoring/prometheus/metrics", nil))
	for _, want := range []string{
		"# TYPE :tensorflow:serving:request_count counter\n",
		`:tensorflow:serving:request_count{model_name="m",status="OK"} 1` + "\n",
		`:tensorflow:serving:request_count{model_name="m",status="INVALID_ARGUMENT"} 1` + "\n",
		`:tensorflow:cc:saved_model:load_attempt_count{model_path="` + fixture(t, "half_plus_two_cpu") + `/00000123",status="success"} 1` + "\n",
		"# TYPE :tensorflow:cc:saved_model:load_latency counter\n",
		"# TYPE :tensorflow:serving:request_latency histogram\n",
		// Only the successful call has a latency, as in the server's http_server.cc, whose API is the
		// URL's verb (the gRPC service's is "Predict").
		`:tensorflow:serving:request_latency_bucket{model_name="m",API="predict",entrypoint="REST",le="+Inf"} 1` + "\n",
		`:tensorflow:serving:request_latency_count{model_name="m",API="predict",entrypoint="REST"} 1` + "\n",
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, rec.Body.String())
		}
	}
	body := rec.Body.String()
	if n := strings.Count(body, ":tensorflow:serving:request_latency_bucket{"); n != 34 {
		t.Errorf("%d latency buckets, want util.cc's 33 and the overflow:\n%s", n, body)
	}
	names := []string{}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "# TYPE ") {
			names = append(names, strings.Fields(line)[2])
		}
	}
	if !sort.StringsAreSorted(names) || len(names) != 4 {
		t.Errorf("metrics %v: want the four, sorted by name as the exporter's map is", names)
	}
	without := loadedServer(t, "--model_name=m", "--model_base_path="+fixture(t, "half_plus_two_cpu")).handler()
	rec = httptest.NewRecorder()
	without.ServeHTTP(rec, httptest.NewRequest("GET", "/monitoring/prometheus/metrics", nil))
	if rec.Code != 404 {
		t.Fatalf("metrics without a monitoring config: %d", rec.Code)
	}
}

func TestANewVersionIsLoadingWhileTheOldOneServesThenReplacesIt(t *testing.T) {
	base := t.TempDir()
	copyTree(t, fixture(t, "half_plus_two_2_versions/00000123"), filepath.Join(base, "123"))
	c := start(t, "--model_name=m", "--model_base_path="+base, "--file_system_poll_wait_seconds=1")
	waitFor(t, "the REST port", 10*time.Second, func() bool { return listening(c.rest) })
	// Version 124's variables are a FIFO: its load blocks until the test writes them.
	v124 := filepath.Join(base, "124")
	copyTree(t, fixture(t, "half_plus_two_2_versions/00000124"), v124)
	shard := filepath.Join(v124, "variables", "variables.data-00000-of-00001")
	content, _ := os.ReadFile(shard)
	os.Remove(shard)
	if err := syscall.Mkfifo(shard, 0o644); err != nil {
		t.Fatal(err)
	}
	states := func() string {
		_, body := httpJSON(t, "GET", c.url("/v1/models/m"), "")
		var out []string
		for _, s := range body["model_version_status"].([]any) {
			out = append(out, s.(map[string]any)["version"].(string)+" "+s.(map[string]any)["state"].(string))
		}
		return strings.Join(out, ", ")
	}
	waitFor(t, "124 LOADING", 5*time.Second, func() bool { return states() == "124 LOADING, 123 AVAILABLE" })
	if code, body := httpJSON(t, "POST", c.url("/v1/models/m:predict"), `{"instances": [1]}`); code != 200 || fmt.Sprint(body["predictions"]) != "[2.5]" {
		t.Fatalf("the old version stops serving while the new one loads: %d %v", code, body)
	}
	fifo, err := os.OpenFile(shard, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fifo.Write(content)
	fifo.Close()
	waitFor(t, "124 AVAILABLE", 5*time.Second, func() bool { return states() == "124 AVAILABLE, 123 END" })
}

// --- signals ---

func sigCgt(t *testing.T, pid int) uint64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			v, _ := strconv.ParseUint(strings.TrimSpace(rest), 16, 64)
			return v
		}
	}
	t.Fatal("no SigCgt")
	return 0
}

func TestNoSIGTERMHandlerSoSIGTERMKillsIt(t *testing.T) {
	c := start(t, "--model_base_path="+fixture(t, "half_plus_two_cpu"))
	waitFor(t, "the REST port", 10*time.Second, func() bool { return listening(c.rest) })
	if caught := sigCgt(t, c.cmd.Process.Pid); caught&(1<<(syscall.SIGTERM-1)) != 0 || caught&(1<<(syscall.SIGINT-1)) != 0 {
		t.Fatalf("SigCgt %x: the server catches SIGTERM or SIGINT", caught)
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := c.cmd.Wait()
	ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("want death by SIGTERM's default action, got %v", err)
	}
}

func TestAsPID1ItIgnoresSIGTERM(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatalf("unshare(1) is needed to run the server as PID 1 of a new PID namespace: %v", err)
	}
	// PID 1 of its namespace: the kernel drops SIGTERM for an init with the default action.
	rest := freePort(t)
	cmd := exec.Command(unshare, "--pid", "--fork", "--kill-child", serverBinary(t), "--port=0", "--rest_api_port="+strconv.Itoa(rest),
		"--model_base_path="+fixture(t, "half_plus_two_cpu"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitFor(t, "the REST port", 10*time.Second, func() bool { return listening(rest) })
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
	if err != nil || len(strings.Fields(string(children))) != 1 {
		t.Fatalf("the server's host PID: %q %v", children, err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(children))[0])
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if !strings.Contains(string(status), "\nNSpid:\t"+strconv.Itoa(pid)+"\t1\n") {
		t.Fatalf("not PID 1 of its namespace:\n%s", status)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if !listening(rest) {
		t.Fatal("PID 1 died of SIGTERM")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "SIGKILL to end it", 5*time.Second, func() bool { return !listening(rest) })
}

func TestLatencyBucketsAreTFServingsAndSpelledAsItsExporterDoes(t *testing.T) {
	var got []string
	for _, i := range []int{0, 1, 2, 3, 20, 32} {
		got = append(got, bucketLimit(requestLatencyBuckets[i]))
	}
	// Buckets::Exponential(10, 1.8, 33), printed by absl::StrCat (six significant digits).
	want := []string{"10", "18", "32.4", "58.32", "1.27482e+06", "1.47476e+09"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("bounds %v, want %v", got, want)
	}
	m := newMetrics()
	// TensorFlow's Histogram::Add puts a value equal to a bound in the next bucket (upper_bound).
	m.requestLatency("m", "Predict", "REST", 18)
	m.requestLatency("m", "Predict", "REST", 5)
	var b strings.Builder
	m.write(&b)
	for _, line := range []string{
		`:tensorflow:serving:request_latency_bucket{model_name="m",API="Predict",entrypoint="REST",le="10"} 1`,
		`:tensorflow:serving:request_latency_bucket{model_name="m",API="Predict",entrypoint="REST",le="18"} 1`,
		`:tensorflow:serving:request_latency_bucket{model_name="m",API="Predict",entrypoint="REST",le="32.4"} 2`,
		`:tensorflow:serving:request_latency_sum{model_name="m",API="Predict",entrypoint="REST"} 23`,
		`:tensorflow:serving:request_latency_count{model_name="m",API="Predict",entrypoint="REST"} 2`,
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("missing %s in:\n%s", line, b.String())
		}
	}
}

func TestAVersionWithTheDelayKnobAnswersPredictsThatLate(t *testing.T) {
	base := filepath.Join(t.TempDir(), "m")
	copyTree(t, fixture(t, "half_plus_two_cpu"), base)
	if err := os.MkdirAll(filepath.Join(base, "00000123", "assets.extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(base, "00000123", "assets.extra"), DelayFile, "300\n")
	h := loadedServer(t, "--model_name=m", "--model_base_path="+base).handler()
	started := time.Now()
	if code, body := call(t, h, "POST", "/v1/models/m:predict", `{"instances": [1]}`); code != 200 || asJSON(body) != `{"predictions":[2.5]}` {
		t.Fatalf("%d %s", code, asJSON(body))
	}
	if took := time.Since(started); took < 300*time.Millisecond {
		t.Fatalf("the predict took %s, want at least the knob's 300 ms", took)
	}
	started = time.Now()
	if code, _ := call(t, h, "GET", "/v1/models/m", ""); code != 200 || time.Since(started) > 250*time.Millisecond {
		t.Fatalf("a status GET is not delayed: %d after %s", code, time.Since(started))
	}
}
