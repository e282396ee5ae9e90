package main

import (
	"fmt"
	"sort"
	"strings"
)

// The parts of saved_model.pb the server uses: each MetaGraphDef's tags, its
// signatures and its graph's nodes (field numbers from
// tensorflow/core/protobuf/saved_model.proto, meta_graph.proto and
// tensorflow/core/framework/{graph,node_def,attr_value,tensor,tensor_shape}.proto).

type dim struct {
	size int64
	name string
}

type tensorInfo struct {
	name        string
	dtype       int
	hasShape    bool // tensor_shape is set (an export may record none)
	dims        []dim
	unknownRank bool
}

type signatureDef struct {
	inputs, outputs map[string]tensorInfo
	methodName      string
	// raw is the SignatureDef as the export serialized it: GetModelMetadata
	// answers with these bytes, as the real server copies the message.
	raw []byte
}

type graphNode struct {
	name, op string
	inputs   []string
	// value is a Const node's tensor, as float64s, with its shape.
	value *tensorValue
}

type metaGraph struct {
	tags       []string
	signatures map[string]signatureDef
	nodes      map[string]*graphNode
}

type savedModel struct {
	schemaVersion int64
	metaGraphs    []metaGraph
}

// DataType names (tensorflow/core/framework/types.proto); +100 is the
// reference type of the same name with a _REF suffix.
var dataTypeNames = map[int]string{
	0: "DT_INVALID", 1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 5: "DT_INT16",
	6: "DT_INT8", 7: "DT_STRING", 8: "DT_COMPLEX64", 9: "DT_INT64", 10: "DT_BOOL", 11: "DT_QINT8",
	12: "DT_QUINT8", 13: "DT_QINT32", 14: "DT_BFLOAT16", 15: "DT_QINT16", 16: "DT_QUINT16",
	17: "DT_UINT16", 18: "DT_COMPLEX128", 19: "DT_HALF", 20: "DT_RESOURCE", 21: "DT_VARIANT",
	22: "DT_UINT32", 23: "DT_UINT64",
}

func dataTypeName(t int) string {
	if t > 100 {
		if n, ok := dataTypeNames[t-100]; ok {
			return n + "_REF"
		}
	}
	if n, ok := dataTypeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("DT_%d", t)
}

func parseSavedModel(b []byte) (*savedModel, error) {
	sm := &savedModel{}
	err := walkMessage(b, func(f wireField) error {
		switch {
		case f.num == 1 && f.typ == wireVarint:
			sm.schemaVersion = int64(f.varint)
		case f.num == 2 && f.typ == wireBytes:
			mg, err := parseMetaGraph(f.bytes)
			if err != nil {
				return err
			}
			sm.metaGraphs = append(sm.metaGraphs, mg)
		default:
			return fmt.Errorf("unexpected field %d in SavedModel", f.num)
		}
		return nil
	})
	if err == nil && len(sm.metaGraphs) == 0 {
		err = fmt.Errorf("no MetaGraphDef")
	}
	return sm, err
}

func parseMetaGraph(b []byte) (metaGraph, error) {
	mg := metaGraph{signatures: map[string]signatureDef{}, nodes: map[string]*graphNode{}}
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1: // meta_info_def
			return walkMessage(f.bytes, func(g wireField) error {
				if g.num == 4 {
					mg.tags = append(mg.tags, string(g.bytes))
				}
				return nil
			})
		case 2: // graph_def
			return walkMessage(f.bytes, func(g wireField) error {
				if g.num != 1 {
					return nil
				}
				n, err := parseNode(g.bytes)
				if err == nil {
					mg.nodes[n.name] = n
				}
				return err
			})
		case 5: // signature_def
			name, value, err := mapEntry(f.bytes)
			if err != nil {
				return err
			}
			sig, err := parseSignature(value)
			sig.raw = value
			mg.signatures[name] = sig
			return err
		}
		return nil
	})
	return mg, err
}

func parseSignature(b []byte) (signatureDef, error) {
	sig := signatureDef{inputs: map[string]tensorInfo{}, outputs: map[string]tensorInfo{}}
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1, 2:
			key, value, err := mapEntry(f.bytes)
			if err != nil {
				return err
			}
			ti, err := parseTensorInfo(value)
			if f.num == 1 {
				sig.inputs[key] = ti
			} else {
				sig.outputs[key] = ti
			}
			return err
		case 3:
			sig.methodName = string(f.bytes)
		}
		return nil
	})
	return sig, err
}

func parseTensorInfo(b []byte) (tensorInfo, error) {
	var ti tensorInfo
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1:
			ti.name = string(f.bytes)
		case 2:
			ti.dtype = int(f.varint)
		case 3:
			var err error
			ti.hasShape = true
			ti.dims, ti.unknownRank, err = parseShape(f.bytes)
			return err
		}
		return nil
	})
	return ti, err
}

func parseShape(b []byte) ([]dim, bool, error) {
	var dims []dim
	unknown := false
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 2:
			var d dim
			err := walkMessage(f.bytes, func(g wireField) error {
				switch g.num {
				case 1:
					d.size = int64(g.varint)
				case 2:
					d.name = string(g.bytes)
				}
				return nil
			})
			dims = append(dims, d)
			return err
		case 3:
			unknown = f.varint != 0
		}
		return nil
	})
	return dims, unknown, err
}

func parseNode(b []byte) (*graphNode, error) {
	n := &graphNode{}
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1:
			n.name = string(f.bytes)
		case 2:
			n.op = string(f.bytes)
		case 3:
			n.inputs = append(n.inputs, string(f.bytes))
		case 5:
			key, value, err := mapEntry(f.bytes)
			if err != nil || key != "value" {
				return err
			}
			return walkMessage(value, func(g wireField) error {
				if g.num == 8 { // AttrValue.tensor
					t, err := parseTensorProto(g.bytes)
					n.value = t
					return err
				}
				return nil
			})
		}
		return nil
	})
	return n, err
}

// parseTensorProto reads a float Const value; other types (and values the
// graph would not run with) are left nil: only a malformed message fails.
func parseTensorProto(b []byte) (*tensorValue, error) {
	t, dtype, err := readTensor(b)
	if err == errUnsupportedDtype || err == errBadTensor || dtype != 1 {
		return nil, nil
	}
	return t, err
}

// readTensor reads a numeric TensorProto into float64s as Tensor::FromProto
// does: tensor_content holds exactly every element; otherwise the typed
// field's values fill the shape, the last one repeated when there are fewer
// (none is all zeros), and more than the shape holds is an error. A dtype the
// stand-in does not compute on is errUnsupportedDtype.
func readTensor(b []byte) (*tensorValue, int, error) {
	t := &tensorValue{}
	dtype := 0
	var content []byte
	var values []float64
	err := walkMessage(b, func(f wireField) error {
		var err error
		switch f.num {
		case 1:
			dtype = int(f.varint)
		case 2:
			var dims []dim
			var unknown bool
			dims, unknown, err = parseShape(f.bytes)
			if unknown {
				return errBadTensor
			}
			for _, d := range dims {
				if d.size < 0 {
					return errBadTensor
				}
				t.shape = append(t.shape, int(d.size))
			}
		case 4:
			content = f.bytes
		case 5: // float_val
			values, err = packedFloats(f, values)
		case 6: // double_val
			values, err = packedFixed64(f, values)
		case 7, 10, 16, 17: // int_val, int64_val, uint32_val, uint64_val
			values, err = packedVarints(f, values, f.num == 7 || f.num == 10)
		}
		return err
	})
	if err != nil {
		return nil, dtype, err
	}
	size, ok := tensorContentSizes[dtype]
	if !ok {
		return nil, dtype, errUnsupportedDtype
	}
	n := 1
	for _, d := range t.shape {
		n *= d
	}
	if content != nil {
		if len(content) != n*size {
			return nil, dtype, errBadTensor
		}
		t.values = decodeContent(dtype, content, n)
		return t, dtype, nil
	}
	switch {
	case len(values) > n:
		return nil, dtype, errBadTensor
	case len(values) == 0:
		values = make([]float64, n)
	}
	for len(values) < n {
		values = append(values, values[len(values)-1])
	}
	t.values = values
	return t, dtype, nil
}

// metaGraphFor picks the MetaGraphDef whose tag set equals tags (a
// comma-separated list, as --saved_model_tags takes it).
func (sm *savedModel) metaGraphFor(tags string) (*metaGraph, error) {
	want := splitTags(tags)
	for i := range sm.metaGraphs {
		have := append([]string(nil), sm.metaGraphs[i].tags...)
		sort.Strings(have)
		if strings.Join(have, ",") == strings.Join(want, ",") {
			return &sm.metaGraphs[i], nil
		}
	}
	return nil, fmt.Errorf("NOT_FOUND: Could not find meta graph def matching supplied tags: { %s }. To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: `saved_model_cli`", strings.Join(want, " "))
}

func splitTags(tags string) []string {
	var out []string
	for _, t := range strings.Split(tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
