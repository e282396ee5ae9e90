package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Loading one version as tensorflow/cc/saved_model/loader.cc does: read and
// decode saved_model.pb, pick the MetaGraphDef of --saved_model_tags, restore
// every variable (all of variables/ is read into memory and stays resident,
// so the process grows with the model and loading takes longer for a bigger
// one), then replay the warmup file when there is one.

type loadedVersion struct {
	dir       string
	graph     *metaGraph
	variables *restoredVariables
	// delay is added to every Predict of this version: the stand-in's own knob
	// (a file DelayFile in the version's assets.extra holding milliseconds), for
	// a slow version in tests; the real server has no such file.
	delay time.Duration
}

// DelayFile names the stand-in's knob for a slow version, under assets.extra.
const DelayFile = "tfs_standin_predict_delay_ms"

// predictDelay reads the knob of the version in dir: 0 without one.
func predictDelay(dir string) time.Duration {
	data, err := os.ReadFile(filepath.Join(dir, "assets.extra", DelayFile))
	if err != nil {
		return 0
	}
	ms, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || ms < 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

func (s *server) loadVersion(dir string) (*loadedVersion, error) {
	started := time.Now()
	s.logf('I', "tensorflow/cc/saved_model/reader.cc", "Reading SavedModel from: %s", dir)
	pbPath := filepath.Join(dir, "saved_model.pb")
	data, err := os.ReadFile(pbPath)
	if os.IsNotExist(err) {
		if _, txtErr := os.Stat(filepath.Join(dir, "saved_model.pbtxt")); txtErr == nil {
			return nil, fmt.Errorf("UNIMPLEMENTED: the tensorflow_model_server stand-in reads saved_model.pb only, not saved_model.pbtxt (%s)", dir)
		}
		return nil, fmt.Errorf("NOT_FOUND: Could not find SavedModel .pb or .pbtxt at supplied export directory path: %s. Check that the directory exists and that you have the right permissions for accessing it.", dir)
	}
	if err != nil {
		return nil, fsError(err)
	}
	sm, err := parseSavedModel(data)
	if err != nil {
		return nil, fmt.Errorf("DATA_LOSS: Can't parse %s as binary proto", pbPath)
	}
	graph, err := sm.metaGraphFor(s.opts.savedModelTags)
	if err != nil {
		return nil, err
	}
	tags := fmt.Sprintf("{ %s }", joinTags(graph.tags))
	s.logf('I', "tensorflow/cc/saved_model/reader.cc", "Reading meta graph with tags %s", tags)
	s.logf('I', "tensorflow/cc/saved_model/reader.cc", "Reading SavedModel debug info (if present) from: %s", dir)
	s.logf('I', "tensorflow/cc/saved_model/loader.cc", "Restoring SavedModel bundle.")
	vars, err := restoreVariables(dir)
	if err != nil {
		s.logf('I', "tensorflow/cc/saved_model/loader.cc", "SavedModel load for tags %s; Status: fail: %v. Took %d microseconds.", tags, err, time.Since(started).Microseconds())
		s.metrics.loadAttempt(dir, "fail", time.Since(started).Microseconds())
		return nil, err
	}
	s.logf('I', "tensorflow/cc/saved_model/loader.cc", "SavedModel load for tags %s; Status: success: OK. Took %d microseconds.", tags, time.Since(started).Microseconds())
	s.metrics.loadAttempt(dir, "success", time.Since(started).Microseconds())
	if s.opts.enableModelWarmup {
		if err := s.warmup(dir); err != nil {
			return nil, err
		}
	}
	return &loadedVersion{dir: dir, graph: graph, variables: vars, delay: predictDelay(dir)}, nil
}

func joinTags(tags []string) string {
	out := ""
	for i, t := range tags {
		if i > 0 {
			out += " "
		}
		out += t
	}
	return out
}

// warmup reads assets.extra/tf_serving_warmup_requests, a TFRecord file of
// PredictionLogs, when it exists. The stand-in counts the records (checking
// their framing) rather than replaying them.
func (s *server) warmup(dir string) error {
	path := filepath.Join(dir, "assets.extra", "tf_serving_warmup_requests")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		s.logf('I', "tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc", "No warmup data file found at %s", path)
		return nil
	}
	if err != nil {
		return fsError(err)
	}
	started := time.Now()
	s.logf('I', "tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc", "Starting to read warmup data for model at %s with model-warmup-options ", path)
	records := 0
	for p := 0; p < len(data); records++ {
		if p+12 > len(data) {
			return fmt.Errorf("DATA_LOSS: truncated record at %d in %s", p, path)
		}
		n := binary.LittleEndian.Uint64(data[p:])
		p += 12 + int(n) + 4
		if n > uint64(len(data)) || p > len(data) {
			return fmt.Errorf("DATA_LOSS: truncated record in %s", path)
		}
	}
	s.logf('I', "tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc", "Finished reading warmup data for model at %s. Number of warmup records read: %d. Elapsed time (microseconds): %d.", path, records, time.Since(started).Microseconds())
	return nil
}
