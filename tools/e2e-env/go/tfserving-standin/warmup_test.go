package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maskCRC is TensorFlow's masking of a stored CRC32C (crc32c.h), the inverse of unmaskCRC.
func maskCRC(c uint32) uint32 { return (c>>15 | c<<17) + 0xa282ead8 }

// tfRecords frames each payload as a TFRecord: length, masked CRC of the length, data, masked CRC of the data.
func tfRecords(payloads ...[]byte) []byte {
	var out []byte
	for _, p := range payloads {
		length := binary.LittleEndian.AppendUint64(nil, uint64(len(p)))
		out = append(out, length...)
		out = binary.LittleEndian.AppendUint32(out, maskCRC(crc32.Checksum(length, castagnoli)))
		out = append(out, p...)
		out = binary.LittleEndian.AppendUint32(out, maskCRC(crc32.Checksum(p, castagnoli)))
	}
	return out
}

// predictLog is a PredictionLog (predict_log 6) holding a PredictLog (request 1).
func predictLog(request []byte) []byte {
	return appendBytesField(nil, logPredict, appendBytesField(nil, 1, request))
}

// warmupVersion copies half_plus_two_cpu and writes records as its warmup file, returning the version folder.
func warmupVersion(t *testing.T, records []byte) string {
	t.Helper()
	base := t.TempDir()
	copyTree(t, fixture(t, "half_plus_two_cpu"), base)
	dir := filepath.Join(base, "00000123")
	if err := os.MkdirAll(filepath.Join(dir, "assets.extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "assets.extra", "tf_serving_warmup_requests"), records, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func warmupServer(t *testing.T, args ...string) (*server, *bytes.Buffer) {
	t.Helper()
	opts, unknown, ok := parseArgs(append([]string{"--model_base_path=/unused"}, args...), os.Stderr)
	if !ok || len(unknown) > 0 {
		t.Fatalf("args %v: unknown %v", args, unknown)
	}
	var log bytes.Buffer
	return &server{opts: opts, log: &log, metrics: newMetrics(), byName: map[string]*servable{}}, &log
}

var goodRequest = predictRequest(spec("", 0, "", ""), map[string][]byte{"x": floatTensor([]int64{2, 1}, 1, 2)})

func TestAGoodWarmupFileIsReplayedBeforeTheVersionLoads(t *testing.T) {
	dir := warmupVersion(t, tfRecords(predictLog(goodRequest), predictLog(goodRequest)))
	s, log := warmupServer(t)
	if _, err := s.loadVersion(dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "Number of warmup records read: 2.") {
		t.Fatalf("log:\n%s", log)
	}
}

func TestEachRecordIsReplayedNumRequestIterationsForWarmupTimes(t *testing.T) {
	dir := warmupVersion(t, tfRecords(predictLog(goodRequest), predictLog(goodRequest)))
	if err := os.WriteFile(filepath.Join(dir, "assets.extra", DelayFile), []byte("40"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flag    string
		replays int
	}{{"--num_request_iterations_for_warmup=0", 2}, {"--num_request_iterations_for_warmup=3", 6}} {
		s, _ := warmupServer(t, c.flag)
		started := time.Now()
		if _, err := s.loadVersion(dir); err != nil {
			t.Fatal(err)
		}
		if took, least := time.Since(started), time.Duration(c.replays)*40*time.Millisecond; took < least || took > least+2*time.Second {
			t.Fatalf("%s: load took %v, want about %v for %d replays", c.flag, took, least, c.replays)
		}
	}
}

func TestAWarmupRecordThePredictPathRefusesFailsTheLoad(t *testing.T) {
	wrong := predictRequest(spec("", 0, "", ""), map[string][]byte{"z": floatTensor([]int64{1, 1}, 1)})
	unknown := predictRequest(spec("", 0, "", "nope"), map[string][]byte{"x": floatTensor([]int64{1, 1}, 1)})
	for name, c := range map[string]struct {
		record []byte
		want   string
	}{
		"renamed input":     {predictLog(wrong), "INVALID_ARGUMENT: input tensor alias not found in signature: z. Inputs expected to be in the set {x}."},
		"unknown signature": {predictLog(unknown), `FAILED_PRECONDITION: Serving signature key "nope" not found.`},
		"session run":       {appendBytesField(nil, logSessionRun, nil), "UNIMPLEMENTED: Unsupported log_type for warmup: 5"},
		"predict streamed":  {appendBytesField(nil, logPredictStream, nil), "UNIMPLEMENTED: Unsupported log_type for warmup: 7"},
		"not a log":         {[]byte{0xff, 0xff}, "INVALID_ARGUMENT: Failed to parse warmup record: "},
	} {
		s, _ := warmupServer(t)
		_, err := s.loadVersion(warmupVersion(t, tfRecords(predictLog(goodRequest), c.record)))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestAWarmupFileWithABadCRCOrCutShortFailsTheLoad(t *testing.T) {
	file := tfRecords(predictLog(goodRequest), predictLog(goodRequest))
	second := len(file) / 2
	flipped := append([]byte(nil), file...)
	flipped[second+14] ^= 1
	badLength := append([]byte(nil), file...)
	badLength[second] ^= 1
	for name, c := range map[string]struct {
		file []byte
		want string
	}{
		"data CRC":   {flipped, "DATA_LOSS: corrupted record at " + strconv.Itoa(second+12) + ". Please verify your warmup data is in TFRecord format."},
		"length CRC": {badLength, "DATA_LOSS: corrupted record at " + strconv.Itoa(second) + "."},
		"cut short":  {file[:len(file)-1], "DATA_LOSS: truncated record at " + strconv.Itoa(second) + "."},
	} {
		s, _ := warmupServer(t)
		_, err := s.loadVersion(warmupVersion(t, c.file))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestFewerBytesThanAHeaderAfterTheLastRecordEndTheFile(t *testing.T) {
	file := tfRecords(predictLog(goodRequest), predictLog(goodRequest))
	s, log := warmupServer(t)
	if _, err := s.loadVersion(warmupVersion(t, file[:len(file)/2+11])); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "Number of warmup records read: 1.") {
		t.Fatalf("log:\n%s", log)
	}
}

func TestMoreThanAThousandWarmupRecordsFailTheLoad(t *testing.T) {
	records := make([][]byte, maxWarmupRecords+1)
	for i := range records {
		records[i] = predictLog(goodRequest)
	}
	s, _ := warmupServer(t)
	_, err := s.loadVersion(warmupVersion(t, tfRecords(records...)))
	if err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: Number of warmup records exceeds the maximum (1000) at ") {
		t.Fatalf("%v", err)
	}
	s, _ = warmupServer(t)
	if _, err := s.loadVersion(warmupVersion(t, tfRecords(records[1:]...))); err != nil {
		t.Fatalf("1000 records: %v", err)
	}
}

func TestWithWarmupOffTheFileIsNotRead(t *testing.T) {
	s, _ := warmupServer(t, "--enable_model_warmup=false")
	if _, err := s.loadVersion(warmupVersion(t, []byte("not a TFRecord"))); err != nil {
		t.Fatal(err)
	}
}

// The file test/unit/model/warmup.test.ts pins as what the TypeScript writer produces.
func TestTheWarmupFileTheTypeScriptWriterProducesLoads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "half_plus_two_warmup_requests"))
	if err != nil {
		t.Fatal(err)
	}
	s, log := warmupServer(t, "--num_request_iterations_for_warmup=2")
	if _, err := s.loadVersion(warmupVersion(t, data)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "Number of warmup records read: 2.") {
		t.Fatalf("log:\n%s", log)
	}
}

// test/fixtures/warmup: written by TensorFlow itself; its record 1 sends x as DT_INT64.
func TestAWarmupFileTensorFlowWroteIsReadUpToItsRefusedRecord(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "test", "fixtures", "warmup", "tensorflow_written_warmup_requests"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := warmupServer(t)
	_, err = s.loadVersion(warmupVersion(t, data))
	if err == nil || err.Error() != "INVALID_ARGUMENT: Expects arg[0] to be float but int64 is provided" {
		t.Fatalf("%v", err)
	}
}
