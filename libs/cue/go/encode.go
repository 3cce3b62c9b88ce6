package main

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/format"
)

// jsonText exports v as JSON in CUE field order.
func jsonText(v cue.Value, yamlCompat bool) (string, error) {
	if !yamlCompat {
		b, err := v.MarshalJSON()
		if err != nil {
			// MarshalJSON stops at the first error; Validate reports them all.
			if verr := v.Validate(cue.Concrete(true)); verr != nil {
				return "", verr
			}
			return "", err
		}
		return string(b), nil
	}
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := writeCompat(&buf, v); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// writeCompat is JSON encoding with bytes as plain text and integral
// floats as integers, matching what survives a YAML round trip.
func writeCompat(buf *bytes.Buffer, v cue.Value) error {
	v, _ = v.Default()
	switch v.Kind() {
	case cue.StructKind:
		it, err := v.Fields()
		if err != nil {
			return err
		}
		buf.WriteByte('{')
		first := true
		for it.Next() {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			k, _ := json.Marshal(it.Selector().Unquoted())
			buf.Write(k)
			buf.WriteByte(':')
			if err := writeCompat(buf, it.Value()); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case cue.ListKind:
		it, err := v.List()
		if err != nil {
			return err
		}
		buf.WriteByte('[')
		first := true
		for it.Next() {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			if err := writeCompat(buf, it.Value()); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case cue.BytesKind:
		b, err := v.Bytes()
		if err != nil {
			return err
		}
		s, _ := json.Marshal(string(b))
		buf.Write(s)
	case cue.FloatKind:
		var f big.Float
		if _, err := v.Float(&f); err != nil {
			return err
		}
		if f.IsInt() {
			i, _ := f.Int(nil)
			buf.WriteString(i.String())
			return nil
		}
		b, err := v.MarshalJSON()
		if err != nil {
			return err
		}
		buf.Write(b)
	default:
		b, err := v.MarshalJSON()
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

// cueText renders v as formatted CUE syntax, keeping definitions, hidden
// and optional fields, attributes and docs, so it can be compiled again.
func cueText(v cue.Value) (string, error) {
	n := v.Syntax(
		cue.Docs(true),
		cue.Attributes(true),
		cue.Definitions(true),
		cue.Hidden(true),
		cue.Optional(true),
	)
	b, err := format.Node(n, format.Simplify())
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// finalText renders a concrete value as a CUE literal, e.g. 42 or true.
func finalText(v cue.Value) (string, error) {
	b, err := format.Node(v.Syntax(cue.Final(), cue.Concrete(true)))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
