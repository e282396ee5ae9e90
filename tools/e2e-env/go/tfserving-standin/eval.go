package main

import (
	"fmt"
	"strconv"
	"strings"
)

// Running a signature: the stand-in evaluates the graph's nodes for the
// elementwise arithmetic of the fixtures' models (y = a*x + b with a and b
// restored from the checkpoint), so half_plus_two and half_plus_three answer
// from their own graph and variables. Tensors are JSON-shaped values: a
// float64 or a []any of them.

type statusError struct {
	code string
	msg  string
}

func (e *statusError) Error() string { return e.code + ": " + e.msg }

func invalidArgument(format string, args ...any) error {
	return &statusError{"INVALID_ARGUMENT", fmt.Sprintf(format, args...)}
}

func toNested(t *tensorValue) any {
	if len(t.shape) == 0 && len(t.values) == 1 {
		return t.values[0]
	}
	var build func(shape []int, values []float64) any
	build = func(shape []int, values []float64) any {
		if len(shape) == 0 {
			return values[0]
		}
		n := shape[0]
		stride := 1
		for _, d := range shape[1:] {
			stride *= d
		}
		out := make([]any, n)
		for i := range out {
			out[i] = build(shape[1:], values[i*stride:(i+1)*stride])
		}
		return out
	}
	return build(t.shape, t.values)
}

var binaryOps = map[string]func(a, b float64) float64{
	"Add": func(a, b float64) float64 { return a + b }, "AddV2": func(a, b float64) float64 { return a + b },
	"Sub": func(a, b float64) float64 { return a - b }, "Mul": func(a, b float64) float64 { return a * b },
	"RealDiv": func(a, b float64) float64 { return a / b }, "Div": func(a, b float64) float64 { return a / b },
	"Maximum": func(a, b float64) float64 { return max(a, b) }, "Minimum": func(a, b float64) float64 { return min(a, b) },
}

func broadcast(a, b any, f func(a, b float64) float64) (any, error) {
	as, aList := a.([]any)
	bs, bList := b.([]any)
	switch {
	case !aList && !bList:
		return f(a.(float64), b.(float64)), nil
	case aList && bList && len(as) != len(bs) && len(as) != 1 && len(bs) != 1:
		return nil, invalidArgument("Incompatible shapes: [%d] vs. [%d]", len(as), len(bs))
	}
	n := max(len(as), len(bs))
	out := make([]any, n)
	for i := range out {
		x, y := a, b
		if aList {
			x = as[min(i, len(as)-1)]
		}
		if bList {
			y = bs[min(i, len(bs)-1)]
		}
		r, err := broadcast(x, y, f)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// evaluate computes one tensor ("node:0") of the graph, given the fed ones.
func (lv *loadedVersion) evaluate(tensor string, feeds map[string]any) (any, error) {
	memo := map[string]any{}
	var eval func(name string, depth int) (any, error)
	eval = func(name string, depth int) (any, error) {
		nodeName, index := name, 0
		if i := strings.LastIndex(name, ":"); i >= 0 {
			nodeName = name[:i]
			index, _ = strconv.Atoi(name[i+1:])
		}
		key := nodeName + ":" + strconv.Itoa(index)
		if v, ok := feeds[key]; ok {
			return v, nil
		}
		if v, ok := memo[key]; ok {
			return v, nil
		}
		if depth > 1000 {
			return nil, invalidArgument("graph is too deep at %s", nodeName)
		}
		n, ok := lv.graph.nodes[nodeName]
		if !ok {
			return nil, invalidArgument("Tensor %s, specified in either feed_devices or fetch_devices was not in the Graph", name)
		}
		var inputs []string
		for _, in := range n.inputs {
			if !strings.HasPrefix(in, "^") {
				inputs = append(inputs, in)
			}
		}
		arg := func(i int) (any, error) {
			if i >= len(inputs) {
				return nil, invalidArgument("node %s (%s) has no input %d", n.name, n.op, i)
			}
			return eval(inputs[i], depth+1)
		}
		var out any
		var err error
		switch {
		case index != 0:
			err = &statusError{"UNIMPLEMENTED", fmt.Sprintf("the tensorflow_model_server stand-in evaluates only the first output of an op; %s asks for output %d of %s", name, index, n.op)}
		case n.op == "Identity" || n.op == "Snapshot" || n.op == "StopGradient" || n.op == "ReadVariableOp" || n.op == "PlaceholderWithDefault":
			out, err = arg(0)
		case n.op == "VariableV2" || n.op == "Variable" || n.op == "VarHandleOp":
			t := lv.variables.floats[nodeName]
			if t == nil {
				t = lv.variables.floats[nodeName+"/.ATTRIBUTES/VARIABLE_VALUE"]
			}
			if t == nil {
				err = &statusError{"FAILED_PRECONDITION", fmt.Sprintf("Attempting to use uninitialized value %s", nodeName)}
			} else {
				out = toNested(t)
			}
		case n.op == "Const" && n.value != nil:
			out = toNested(n.value)
		case n.op == "Placeholder":
			err = invalidArgument("You must feed a value for placeholder tensor '%s'", nodeName)
		case binaryOps[n.op] != nil:
			var a, b any
			if a, err = arg(0); err == nil {
				if b, err = arg(1); err == nil {
					out, err = broadcast(a, b, binaryOps[n.op])
				}
			}
		default:
			err = &statusError{"UNIMPLEMENTED", fmt.Sprintf("the tensorflow_model_server stand-in does not evaluate op %s (node %s); it runs the elementwise arithmetic of the half_plus_two/half_plus_three graphs", n.op, n.name)}
		}
		if err != nil {
			return nil, err
		}
		memo[key] = out
		return out, nil
	}
	return eval(tensor, 0)
}

// tensorValue is a dense float tensor: a Const node's value or a restored
// float variable.
type tensorValue struct {
	shape  []int
	values []float64
}
