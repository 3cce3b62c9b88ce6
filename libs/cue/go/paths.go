package main

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
)

// parsePath is cue.ParsePath plus hidden labels (_x), which CUE scopes
// by package and ParsePath refuses.
func parsePath(s, pkg string) (cue.Path, []Diagnostic) {
	var sels []cue.Selector
	for _, seg := range splitPath(s) {
		// A trailing ? or ! selects an optional or required field.
		marker := ""
		if n := len(seg); n > 1 && (seg[n-1] == '?' || seg[n-1] == '!') {
			seg, marker = seg[:n-1], seg[n-1:]
		}
		var sel cue.Selector
		if strings.HasPrefix(seg, "_") && ast.IsValidIdent(seg) && seg != "_" {
			sel = cue.Hid(seg, pkg)
		} else {
			p := cue.ParsePath(seg)
			if err := p.Err(); err != nil || len(p.Selectors()) != 1 {
				return p, inputError(fmt.Sprintf("bad path %q: %v", s, err))
			}
			sel = p.Selectors()[0]
		}
		switch marker {
		case "?":
			sel = sel.Optional()
		case "!":
			sel = sel.Required()
		}
		sels = append(sels, sel)
	}
	return cue.MakePath(sels...), nil
}

// splitPath splits at dots outside quotes and brackets.
func splitPath(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == '[':
			depth++
		case !quoted && c == ']':
			depth--
		case !quoted && depth == 0 && c == '.':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func lookup(v cue.Value, pkg, path string) (cue.Value, []Diagnostic) {
	if path == "" {
		return v, nil
	}
	p, d := parsePath(path, pkg)
	if d != nil {
		return cue.Value{}, d
	}
	return v.LookupPath(p), nil
}
