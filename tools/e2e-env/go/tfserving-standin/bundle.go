package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// Reading a TensorFlow checkpoint (tensor bundle) as the server restores a
// SavedModel's variables: variables.index is a LevelDB-format table
// (tensorflow/core/lib/io/table_format.txt) mapping each variable's name to a
// BundleEntryProto (tensorflow/core/protobuf/tensor_bundle.proto) that says
// where its bytes are in the variables.data-NNNNN-of-MMMMM shards.

const tableMagic = 0xdb4775248b80fb57

type bundleEntry struct {
	dtype  int
	shape  []int
	shard  int
	offset int64
	size   int64
	crc32c uint32
}

type blockHandle struct{ offset, size uint64 }

func readBlockHandle(b []byte) (blockHandle, int, error) {
	off, n1, err := readVarint(b)
	if err != nil {
		return blockHandle{}, 0, err
	}
	size, n2, err := readVarint(b[n1:])
	return blockHandle{off, size}, n1 + n2, err
}

// tableBlock returns the key/value pairs of one uncompressed block.
func tableBlock(file []byte, h blockHandle) ([][2][]byte, error) {
	end := h.offset + h.size
	if end+5 > uint64(len(file)) {
		return nil, fmt.Errorf("block at %d+%d is outside the file", h.offset, h.size)
	}
	b := file[h.offset:end]
	switch file[end] {
	case 0:
	case 1:
		var err error
		if b, err = snappyDecode(b); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown block compression %d", file[end])
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("block too short")
	}
	restarts := binary.LittleEndian.Uint32(b[len(b)-4:])
	limit := len(b) - 4*(int(restarts)+1)
	if limit < 0 {
		return nil, fmt.Errorf("bad restart count %d", restarts)
	}
	var out [][2][]byte
	var key []byte
	for p := 0; p < limit; {
		var hdr [3]uint64
		for i := range hdr {
			v, n, err := readVarint(b[p:limit])
			if err != nil {
				return nil, err
			}
			hdr[i], p = v, p+n
		}
		shared, unshared, vlen := int(hdr[0]), int(hdr[1]), int(hdr[2])
		if shared > len(key) || p+unshared+vlen > limit {
			return nil, fmt.Errorf("corrupt block entry")
		}
		key = append(append([]byte(nil), key[:shared]...), b[p:p+unshared]...)
		p += unshared
		out = append(out, [2][]byte{key, b[p : p+vlen]})
		p += vlen
	}
	return out, nil
}

// readBundleIndex returns every entry of variables.index by variable name.
func readBundleIndex(index []byte) (map[string]bundleEntry, error) {
	if len(index) < 48 || binary.LittleEndian.Uint64(index[len(index)-8:]) != tableMagic {
		return nil, fmt.Errorf("not an sstable (bad magic number)")
	}
	footer := index[len(index)-48:]
	_, n, err := readBlockHandle(footer) // metaindex, unused
	if err != nil {
		return nil, err
	}
	indexHandle, _, err := readBlockHandle(footer[n:])
	if err != nil {
		return nil, err
	}
	blocks, err := tableBlock(index, indexHandle)
	if err != nil {
		return nil, err
	}
	entries := map[string]bundleEntry{}
	for _, kv := range blocks {
		h, _, err := readBlockHandle(kv[1])
		if err != nil {
			return nil, err
		}
		data, err := tableBlock(index, h)
		if err != nil {
			return nil, err
		}
		for _, e := range data {
			if len(e[0]) == 0 { // the BundleHeaderProto
				continue
			}
			entry, err := parseBundleEntry(e[1])
			if err != nil {
				return nil, fmt.Errorf("entry %q: %v", e[0], err)
			}
			entries[string(e[0])] = entry
		}
	}
	return entries, nil
}

func parseBundleEntry(b []byte) (bundleEntry, error) {
	var e bundleEntry
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1:
			e.dtype = int(f.varint)
		case 2:
			dims, _, err := parseShape(f.bytes)
			for _, d := range dims {
				e.shape = append(e.shape, int(d.size))
			}
			return err
		case 3:
			e.shard = int(f.varint)
		case 4:
			e.offset = int64(f.varint)
		case 5:
			e.size = int64(f.varint)
		case 6:
			e.crc32c = uint32(f.varint)
		}
		return nil
	})
	return e, err
}

// restoredVariables is a model's checkpoint held in memory: every shard's
// bytes (resident, as TensorFlow holds its variables) and the float values of
// the float variables.
type restoredVariables struct {
	shards [][]byte
	floats map[string]*tensorValue
	bytes  int64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// restoreVariables reads variables.index and every variables.data-* file
// under dir/variables fully into memory and verifies each tensor's checksum.
// A SavedModel without variables.index has nothing to restore.
func restoreVariables(versionDir string) (*restoredVariables, error) {
	prefix := filepath.Join(versionDir, "variables", "variables")
	index, err := os.ReadFile(prefix + ".index")
	if os.IsNotExist(err) {
		return &restoredVariables{floats: map[string]*tensorValue{}}, nil
	}
	if err != nil {
		return nil, fsError(err)
	}
	entries, err := readBundleIndex(index)
	if err != nil {
		return nil, fmt.Errorf("DATA_LOSS: Unable to read checkpoint index %s.index: %v", prefix, err)
	}
	shardFiles, _ := filepath.Glob(prefix + ".data-*-of-*")
	sort.Strings(shardFiles)
	r := &restoredVariables{floats: map[string]*tensorValue{}, bytes: int64(len(index))}
	for _, f := range shardFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fsError(err)
		}
		r.shards = append(r.shards, data)
		r.bytes += int64(len(data))
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		e := entries[name]
		if e.shard >= len(r.shards) || e.offset+e.size > int64(len(r.shards[e.shard])) {
			return nil, fmt.Errorf("DATA_LOSS: %s: tensor %s lies outside shard %d", prefix, name, e.shard)
		}
		raw := r.shards[e.shard][e.offset : e.offset+e.size]
		// String tensors are checksummed over their encoded lengths as well; only fixed-size types are verified here.
		if got := crc32.Checksum(raw, castagnoli); e.dtype != 7 && got != unmaskCRC(e.crc32c) {
			return nil, fmt.Errorf("DATA_LOSS: TensorBundle at %s shard %d (%d bytes): Checksum does not match: stored %d vs. calculated on the restored bytes %d",
				prefix, e.shard, e.size, e.crc32c, got)
		}
		if e.dtype == 1 && len(raw)%4 == 0 {
			t := &tensorValue{shape: e.shape}
			for i := 0; i < len(raw); i += 4 {
				t.values = append(t.values, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))))
			}
			r.floats[name] = t
		}
	}
	return r, nil
}

// unmaskCRC undoes the masking TensorFlow applies to stored CRC32C values
// (tensorflow/core/lib/hash/crc32c.h).
func unmaskCRC(masked uint32) uint32 {
	rot := masked - 0xa282ead8
	return rot>>17 | rot<<15
}

// fsError words a file-system error with TensorFlow's status codes.
func fsError(err error) error {
	switch {
	case os.IsPermission(err):
		return fmt.Errorf("PERMISSION_DENIED: %v", err)
	case os.IsNotExist(err):
		return fmt.Errorf("NOT_FOUND: %v", err)
	}
	return fmt.Errorf("UNKNOWN: %v", err)
}
