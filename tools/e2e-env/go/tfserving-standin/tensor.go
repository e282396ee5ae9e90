package main

import (
	"encoding/binary"
	"errors"
	"math"
)

// TensorProto values on the gRPC API (tensorflow/core/framework/tensor.proto:
// dtype 1, tensor_shape 2, tensor_content 4, float_val 5, double_val 6,
// int_val 7, int64_val 10, uint32_val 16, uint64_val 17), as float64s for the
// graph's arithmetic.

var (
	errBadTensor        = errors.New("tensor parsing error")
	errUnsupportedDtype = errors.New("unsupported dtype")
)

// tensorContentSizes are the bytes per element in tensor_content of the
// dtypes the stand-in computes on.
var tensorContentSizes = map[int]int{1: 4, 2: 8, 3: 4, 4: 1, 5: 2, 6: 1, 9: 8, 17: 2, 22: 4, 23: 8}

// decodeContent reads n little-endian elements of dtype.
func decodeContent(dtype int, b []byte, n int) []float64 {
	out := make([]float64, n)
	size := tensorContentSizes[dtype]
	for i := range out {
		e := b[i*size : (i+1)*size]
		switch dtype {
		case 1:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(e)))
		case 2:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(e))
		case 3:
			out[i] = float64(int32(binary.LittleEndian.Uint32(e)))
		case 4:
			out[i] = float64(e[0])
		case 5:
			out[i] = float64(int16(binary.LittleEndian.Uint16(e)))
		case 6:
			out[i] = float64(int8(e[0]))
		case 9:
			out[i] = float64(int64(binary.LittleEndian.Uint64(e)))
		case 17:
			out[i] = float64(binary.LittleEndian.Uint16(e))
		case 22:
			out[i] = float64(binary.LittleEndian.Uint32(e))
		case 23:
			out[i] = float64(binary.LittleEndian.Uint64(e))
		}
	}
	return out
}

// packedFixed64 appends the values of a repeated double field.
func packedFixed64(f wireField, out []float64) ([]float64, error) {
	if f.typ == wireFixed64 {
		return append(out, math.Float64frombits(f.varint)), nil
	}
	if f.typ != wireBytes || len(f.bytes)%8 != 0 {
		return nil, errBadTensor
	}
	for i := 0; i < len(f.bytes); i += 8 {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(f.bytes[i:])))
	}
	return out, nil
}

// packedVarints appends the values of a repeated integer field; signed reads
// them as two's complement (int32 and int64 both sign-extend to 64 bits).
func packedVarints(f wireField, out []float64, signed bool) ([]float64, error) {
	conv := func(v uint64) float64 {
		if signed {
			return float64(int64(v))
		}
		return float64(v)
	}
	if f.typ == wireVarint {
		return append(out, conv(f.varint)), nil
	}
	if f.typ != wireBytes {
		return nil, errBadTensor
	}
	for b := f.bytes; len(b) > 0; {
		v, n, err := readVarint(b)
		if err != nil {
			return nil, err
		}
		out, b = append(out, conv(v)), b[n:]
	}
	return out, nil
}

// flatten is the shape and row-major values of a computed tensor (a float64
// or nested []any of them).
func flatten(v any) ([]int, []float64) {
	list, ok := v.([]any)
	if !ok {
		f, _ := v.(float64)
		return nil, []float64{f}
	}
	if len(list) == 0 {
		return []int{0}, nil
	}
	var inner []int
	var values []float64
	for i, e := range list {
		s, vs := flatten(e)
		if i == 0 {
			inner = s
		}
		values = append(values, vs...)
	}
	return append([]int{len(list)}, inner...), values
}

// encodeTensor writes a computed tensor as Tensor::AsProtoField does: dtype,
// shape, and the values in the dtype's typed field (packed).
func encodeTensor(dtype int, v any) ([]byte, error) {
	shape, values := flatten(v)
	var shapeMsg []byte
	for _, d := range shape {
		shapeMsg = appendBytesField(shapeMsg, 2, appendVarintField(nil, 1, uint64(d)))
	}
	b := appendBytesField(appendVarintField(nil, 1, uint64(dtype)), 2, shapeMsg)
	var packed []byte
	num := 0
	switch dtype {
	case 1:
		num = 5
		for _, x := range values {
			packed = binary.LittleEndian.AppendUint32(packed, math.Float32bits(float32(x)))
		}
	case 2:
		num = 6
		for _, x := range values {
			packed = binary.LittleEndian.AppendUint64(packed, math.Float64bits(x))
		}
	case 3, 4, 5, 6, 17:
		num = 7
		for _, x := range values {
			packed = binary.AppendUvarint(packed, uint64(int64(int32(x))))
		}
	case 9:
		num = 10
		for _, x := range values {
			packed = binary.AppendUvarint(packed, uint64(int64(x)))
		}
	default:
		return nil, errUnsupportedDtype
	}
	if len(packed) > 0 {
		b = appendBytesField(b, num, packed)
	}
	return b, nil
}
