package main

import (
	"fmt"
	"strconv"
	"strings"
)

// A protobuf text-format reader for the server's configuration files
// (ModelServerConfig, MonitoringConfig, BatchingParameters): fields with
// scalar values ("name: 'm'", "versions: [1, 2]") and nested messages
// ("config { ... }", "config: < ... >"); map entries are messages with key
// and value. Which field names are allowed is checked by the callers.

type tpField struct {
	name  string
	value string // scalar, unquoted
	msg   *tpMessage
}

type tpMessage struct{ fields []tpField }

func (m *tpMessage) all(name string) []tpField {
	var out []tpField
	for _, f := range m.fields {
		if f.name == name {
			out = append(out, f)
		}
	}
	return out
}

func (m *tpMessage) scalar(name string) (string, bool) {
	fs := m.all(name)
	if len(fs) == 0 || fs[0].msg != nil {
		return "", false
	}
	return fs[len(fs)-1].value, true
}

func (m *tpMessage) message(name string) *tpMessage {
	for _, f := range m.fields {
		if f.name == name && f.msg != nil {
			return f.msg
		}
	}
	return nil
}

// checkNames fails on a field that the message type does not have.
func (m *tpMessage) checkNames(typeName string, allowed ...string) error {
	for _, f := range m.fields {
		known := false
		for _, a := range allowed {
			known = known || f.name == a
		}
		if !known {
			return fmt.Errorf("Message type %q has no field named %q.", typeName, f.name)
		}
	}
	return nil
}

type tpLexer struct {
	s   string
	pos int
}

func (l *tpLexer) skipSpace() {
	for l.pos < len(l.s) {
		c := l.s[l.pos]
		switch {
		case c == '#':
			for l.pos < len(l.s) && l.s[l.pos] != '\n' {
				l.pos++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.pos++
		default:
			return
		}
	}
}

func (l *tpLexer) peek() byte {
	l.skipSpace()
	if l.pos >= len(l.s) {
		return 0
	}
	return l.s[l.pos]
}

func (l *tpLexer) ident() (string, error) {
	l.skipSpace()
	start := l.pos
	for l.pos < len(l.s) {
		c := l.s[l.pos]
		if c == '_' || c == '.' || c == '-' || c == '+' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			l.pos++
			continue
		}
		break
	}
	if start == l.pos {
		return "", l.errorf("expected identifier")
	}
	return l.s[start:l.pos], nil
}

func (l *tpLexer) errorf(format string, args ...any) error {
	line := 1 + strings.Count(l.s[:l.pos], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (l *tpLexer) scalarValue() (string, error) {
	c := l.peek()
	if c != '\'' && c != '"' {
		return l.ident()
	}
	var out strings.Builder
	for l.peek() == '\'' || l.peek() == '"' { // adjacent strings concatenate
		quote := l.s[l.pos]
		end := l.pos + 1
		for end < len(l.s) && l.s[end] != quote {
			if l.s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(l.s) {
			return "", l.errorf("unterminated string")
		}
		raw := l.s[l.pos+1 : end]
		l.pos = end + 1
		unq, err := strconv.Unquote(`"` + strings.ReplaceAll(raw, `"`, `\"`) + `"`)
		if err != nil {
			unq = raw
		}
		out.WriteString(unq)
	}
	return out.String(), nil
}

func (l *tpLexer) message(closing byte) (*tpMessage, error) {
	m := &tpMessage{}
	for {
		c := l.peek()
		if c == closing {
			if closing != 0 {
				l.pos++
			}
			return m, nil
		}
		if c == 0 {
			return nil, l.errorf("unexpected end of input")
		}
		name, err := l.ident()
		if err != nil {
			return nil, err
		}
		colon := false
		if l.peek() == ':' {
			l.pos++
			colon = true
		}
		switch c := l.peek(); {
		case c == '{' || c == '<':
			l.pos++
			close := byte('}')
			if c == '<' {
				close = '>'
			}
			sub, err := l.message(close)
			if err != nil {
				return nil, err
			}
			m.fields = append(m.fields, tpField{name: name, msg: sub})
		case !colon:
			return nil, l.errorf("expected ':' after %s", name)
		case c == '[':
			l.pos++
			for l.peek() != ']' {
				v, err := l.scalarValue()
				if err != nil {
					return nil, err
				}
				m.fields = append(m.fields, tpField{name: name, value: v})
				if l.peek() == ',' {
					l.pos++
				}
			}
			l.pos++
		default:
			v, err := l.scalarValue()
			if err != nil {
				return nil, err
			}
			m.fields = append(m.fields, tpField{name: name, value: v})
		}
		if c := l.peek(); c == ',' || c == ';' {
			l.pos++
		}
	}
}

func parseTextProto(text string) (*tpMessage, error) {
	l := &tpLexer{s: text}
	return l.message(0)
}
