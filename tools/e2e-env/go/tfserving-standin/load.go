package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
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
	lv := &loadedVersion{dir: dir, graph: graph, variables: vars, delay: predictDelay(dir)}
	if s.opts.enableModelWarmup {
		if err := s.warmup(lv); err != nil {
			return nil, err
		}
	}
	return lv, nil
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

// Warmup, as saved_model_warmup_util.cc and saved_model_warmup.cc run it:
// assets.extra/tf_serving_warmup_requests is a TFRecord file of
// tensorflow.serving.PredictionLog; each record is read (both masked CRC32Cs
// checked), parsed, and replayed --num_request_iterations_for_warmup times
// (1 when the flag is 0 or less) before the version is AVAILABLE. The first
// record that fails fails the load, with the real server's wording.

// maxWarmupRecords is WarmupConsts::kMaxNumRecords.
const maxWarmupRecords = 1000

// PredictionLog's log_type fields (prediction_log.proto).
const (
	logClassify       = 2
	logRegress        = 3
	logMultiInference = 4
	logSessionRun     = 5
	logPredict        = 6
	logPredictStream  = 7
)

// nextRecord reads the TFRecord at offset p of data: its payload and the
// offset after it, or TensorFlow's record reader's DATA_LOSS error
// (record_reader.cc: a bad data CRC names the data's offset, p+12). Fewer
// bytes than a header are the end of the file there (a short read is
// OUT_OF_RANGE), so they end the file here too: next is -1.
func nextRecord(data []byte, p int) ([]byte, int, error) {
	const header = 12
	if p+header > len(data) {
		return nil, -1, nil
	}
	if unmaskCRC(binary.LittleEndian.Uint32(data[p+8:])) != crc32.Checksum(data[p:p+8], castagnoli) {
		return nil, 0, fmt.Errorf("DATA_LOSS: corrupted record at %d. Please verify your warmup data is in TFRecord format.", p)
	}
	n := binary.LittleEndian.Uint64(data[p:])
	if len(data)-p < header+4 || n > uint64(len(data)-p-header-4) {
		return nil, 0, fmt.Errorf("DATA_LOSS: truncated record at %d. Please verify your warmup data is in TFRecord format.", p)
	}
	start, end := p+header, p+header+int(n)
	payload := data[start:end]
	if unmaskCRC(binary.LittleEndian.Uint32(data[end:])) != crc32.Checksum(payload, castagnoli) {
		return nil, 0, fmt.Errorf("DATA_LOSS: corrupted record at %d. Please verify your warmup data is in TFRecord format.", start)
	}
	return payload, end + 4, nil
}

// warmupRecord parses one PredictionLog: its log_type field and that
// field's bytes (0 when it sets none, which the real server skips).
func warmupRecord(b []byte) (int, []byte, error) {
	kind, body := 0, []byte(nil)
	err := walkMessage(b, func(f wireField) error {
		if f.num >= logClassify && f.num <= logPredictStream {
			if f.typ != wireBytes {
				return fmt.Errorf("field %d is not a message", f.num)
			}
			kind, body = f.num, f.bytes
		}
		return nil
	})
	return kind, body, err
}

// replay runs one record on lv as saved_model_warmup.cc's RunWarmupRequest
// does: a PredictLog's request through the predict path clients use.
func (lv *loadedVersion) replay(kind int, body []byte) error {
	switch kind {
	case logPredict:
		var request []byte
		if err := walkMessage(body, func(f wireField) error {
			if f.num == 1 {
				request = f.bytes
			}
			return nil
		}); err != nil {
			return badRequest(err)
		}
		r, err := parsePredictRequest(request)
		if err != nil {
			return err
		}
		// A slow version is slow to warm up too: the knob holds each replay as it holds a client's call.
		time.Sleep(lv.delay)
		_, _, err = lv.runPredict(r)
		return err
	case logSessionRun, logPredictStream:
		return &statusError{"UNIMPLEMENTED", fmt.Sprintf("Unsupported log_type for warmup: %d", kind)}
	case logClassify, logRegress, logMultiInference:
		return &statusError{"UNIMPLEMENTED", fmt.Sprintf("the tensorflow_model_server stand-in replays PredictLog warmup records only, not log_type %d", kind)}
	}
	return nil
}

func (s *server) warmup(lv *loadedVersion) error {
	path := filepath.Join(lv.dir, "assets.extra", "tf_serving_warmup_requests")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		s.logf('I', "tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc", "No warmup data file found at %s", path)
		return nil
	}
	if err != nil {
		return fsError(err)
	}
	// The server sets num_request_iterations only from a flag above 0; the replay's default is 1.
	iterations, options := int64(1), ""
	if s.opts.warmupIterations > 0 {
		iterations, options = s.opts.warmupIterations, fmt.Sprintf("num_request_iterations { value: %d }", s.opts.warmupIterations)
	}
	started := time.Now()
	s.logf('I', "tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc", "Starting to read warmup data for model at %s with model-warmup-options %s", path, options)
	records := 0
	for p := 0; p < len(data); {
		payload, next, err := nextRecord(data, p)
		if err != nil {
			return err
		}
		if next < 0 {
			break
		}
		p = next
		kind, body, err := warmupRecord(payload)
		if err != nil {
			return fmt.Errorf("INVALID_ARGUMENT: Failed to parse warmup record: %q from %s", truncate(string(payload), 64), path)
		}
		for i := int64(0); i < iterations; i++ {
			if err := lv.replay(kind, body); err != nil {
				return err
			}
		}
		if records++; records > maxWarmupRecords {
			return fmt.Errorf("INVALID_ARGUMENT: Number of warmup records exceeds the maximum (%d) at %s", maxWarmupRecords, path)
		}
	}
	s.logf('I', "tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc", "Finished reading warmup data for model at %s. Number of warmup records read: %d. Elapsed time (microseconds): %d.", path, records, time.Since(started).Microseconds())
	return nil
}
