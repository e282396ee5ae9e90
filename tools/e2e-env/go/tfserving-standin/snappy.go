package main

import (
	"encoding/binary"
	"errors"
)

// snappyDecode decodes one block of the Snappy raw format
// (github.com/google/snappy, format_description.txt), the compression
// TensorFlow's table writer applies to a checkpoint index's blocks.
func snappyDecode(src []byte) ([]byte, error) {
	n, k, err := readVarint(src)
	if err != nil || n > 1<<30 {
		return nil, errors.New("snappy: bad length")
	}
	src = src[k:]
	dst := make([]byte, 0, n)
	bad := errors.New("snappy: corrupt input")
	for len(src) > 0 {
		tag := src[0]
		var length, offset int
		switch tag & 3 {
		case 0:
			length = int(tag >> 2)
			src = src[1:]
			if length >= 60 {
				extra := length - 59
				if len(src) < extra {
					return nil, bad
				}
				var buf [4]byte
				copy(buf[:], src[:extra])
				length, src = int(binary.LittleEndian.Uint32(buf[:])), src[extra:]
			}
			length++
			if len(src) < length {
				return nil, bad
			}
			dst, src = append(dst, src[:length]...), src[length:]
			continue
		case 1:
			if len(src) < 2 {
				return nil, bad
			}
			length, offset, src = 4+int(tag>>2)&7, int(tag>>5)<<8|int(src[1]), src[2:]
		case 2:
			if len(src) < 3 {
				return nil, bad
			}
			length, offset, src = 1+int(tag>>2), int(binary.LittleEndian.Uint16(src[1:])), src[3:]
		case 3:
			if len(src) < 5 {
				return nil, bad
			}
			length, offset, src = 1+int(tag>>2), int(binary.LittleEndian.Uint32(src[1:])), src[5:]
		}
		if offset <= 0 || offset > len(dst) {
			return nil, bad
		}
		for i := 0; i < length; i++ { // byte by byte: copies may overlap
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	if uint64(len(dst)) != n {
		return nil, bad
	}
	return dst, nil
}
