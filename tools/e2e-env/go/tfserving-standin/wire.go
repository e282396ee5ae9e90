package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A minimal protobuf wire-format reader: enough to walk the messages of a
// SavedModel and a tensor bundle without generated code.

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

var errTruncated = errors.New("truncated protobuf message")

type wireField struct {
	num    int
	typ    int
	varint uint64
	bytes  []byte
}

func (f wireField) float32() float32 { return math.Float32frombits(uint32(f.varint)) }

func readVarint(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, errTruncated
	}
	return v, n, nil
}

// walkMessage calls fn for every field of one serialized message, in order.
func walkMessage(b []byte, fn func(wireField) error) error {
	for len(b) > 0 {
		key, n, err := readVarint(b)
		if err != nil {
			return err
		}
		b = b[n:]
		f := wireField{num: int(key >> 3), typ: int(key & 7)}
		if f.num == 0 {
			return fmt.Errorf("invalid field number 0")
		}
		switch f.typ {
		case wireVarint:
			if f.varint, n, err = readVarint(b); err != nil {
				return err
			}
			b = b[n:]
		case wireFixed64:
			if len(b) < 8 {
				return errTruncated
			}
			f.varint, b = binary.LittleEndian.Uint64(b), b[8:]
		case wireFixed32:
			if len(b) < 4 {
				return errTruncated
			}
			f.varint, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case wireBytes:
			size, n, err := readVarint(b)
			if err != nil {
				return err
			}
			b = b[n:]
			if uint64(len(b)) < size {
				return errTruncated
			}
			f.bytes, b = b[:size], b[size:]
		default:
			return fmt.Errorf("unsupported wire type %d (field %d)", f.typ, f.num)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// mapEntry reads a map<string, message> entry: key (1) and value (2).
func mapEntry(b []byte) (string, []byte, error) {
	var key string
	var value []byte
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1:
			key = string(f.bytes)
		case 2:
			value = f.bytes
		}
		return nil
	})
	return key, value, err
}

// packedFloats appends the values of a repeated float field, packed (one
// length-delimited run) or not (one fixed32 per value).
func packedFloats(f wireField, out []float64) ([]float64, error) {
	if f.typ == wireFixed32 {
		return append(out, float64(f.float32())), nil
	}
	if f.typ != wireBytes || len(f.bytes)%4 != 0 {
		return nil, fmt.Errorf("float field %d: bad encoding", f.num)
	}
	for i := 0; i < len(f.bytes); i += 4 {
		out = append(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(f.bytes[i:]))))
	}
	return out, nil
}

// The writing half, for the gRPC answers: each append function adds one
// field (key, then value) to a message being built.

func appendKey(b []byte, num, typ int) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(typ))
}

func appendVarintField(b []byte, num int, v uint64) []byte {
	return binary.AppendUvarint(appendKey(b, num, wireVarint), v)
}

func appendBytesField(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(appendKey(b, num, wireBytes), uint64(len(v)))
	return append(b, v...)
}

func appendStringField(b []byte, num int, v string) []byte {
	return appendBytesField(b, num, []byte(v))
}

// appendMapEntry adds one entry of a map<string, message> field.
func appendMapEntry(b []byte, num int, key string, value []byte) []byte {
	return appendBytesField(b, num, appendBytesField(appendStringField(nil, 1, key), 2, value))
}
