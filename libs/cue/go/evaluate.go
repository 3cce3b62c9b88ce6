package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"cuelang.org/go/cue"
)

// EvaluateRequest loads one package, applies fills, runs checks and
// exports paths, all in one evaluation.
type EvaluateRequest struct {
	Source
	Fills   []Fill   `json:"fills,omitempty"`
	Checks  []Check  `json:"checks,omitempty"`
	Exports []Export `json:"exports,omitempty"`
}

// Fill unifies a value into the package at Path (cue.Value.FillPath).
// Exactly one of JSON and CUE is set.
type Fill struct {
	Path string `json:"path"`
	JSON string `json:"json,omitempty"`
	CUE  string `json:"cue,omitempty"`
}

// Check validates the value at Path, optionally unified with the value at
// Schema (a path in the same package, e.g. "#Config").
type Check struct {
	Path     string `json:"path"`
	Schema   string `json:"schema,omitempty"`
	Concrete bool   `json:"concrete,omitempty"`
	Final    bool   `json:"final,omitempty"`
}

// Export renders the value at Path ("" = whole package).
type Export struct {
	Path string `json:"path"`
	// Format: "json" (default) or "cue" (CUE syntax, need not be concrete).
	Format string `json:"format,omitempty"`
	// Fields also returns each regular field of a struct in field order.
	Fields bool `json:"fields,omitempty"`
	// Optional: a missing path yields exists=false instead of an error.
	Optional bool `json:"optional,omitempty"`
	// YAMLCompat renders bytes as text and integral floats as integers,
	// as a YAML round trip (Timoni's handling of apply objects) would.
	YAMLCompat bool `json:"yamlCompat,omitempty"`
}

type ExportResult struct {
	Path   string        `json:"path"`
	Exists bool          `json:"exists"`
	Kind   string        `json:"kind,omitempty"`
	JSON   string        `json:"json,omitempty"`
	CUE    string        `json:"cue,omitempty"`
	Fields []FieldResult `json:"fields,omitempty"`
}

type FieldResult struct {
	Label string `json:"label"`
	JSON  string `json:"json,omitempty"`
	CUE   string `json:"cue,omitempty"`
}

type EvaluateResult struct {
	Exports []ExportResult `json:"exports"`
}

func evaluate(r *EvaluateRequest) (any, []Diagnostic) {
	ctx := newContext()
	v, pkg, diags := loadInstance(ctx, &r.Source)
	if diags != nil {
		return nil, diags
	}
	for _, f := range r.Fills {
		x, d := compileFill(ctx, f)
		if d != nil {
			return nil, d
		}
		p, d := parsePath(f.Path, pkg)
		if d != nil {
			return nil, d
		}
		v = v.FillPath(p, x)
	}
	if d := allErrors(v); d != nil {
		return nil, d
	}
	for _, c := range r.Checks {
		diags = append(diags, runCheck(v, pkg, c)...)
	}
	if diags != nil {
		return nil, diags
	}
	res := EvaluateResult{Exports: []ExportResult{}}
	for _, e := range r.Exports {
		out, d := runExport(v, pkg, e)
		diags = append(diags, d...)
		res.Exports = append(res.Exports, out)
	}
	if diags != nil {
		return nil, diags
	}
	return res, nil
}

func compileFill(ctx *cue.Context, f Fill) (cue.Value, []Diagnostic) {
	var x cue.Value
	switch {
	case f.JSON != "" && f.CUE == "":
		x = ctx.CompileString(f.JSON, cue.Filename("fill:"+f.Path))
	case f.CUE != "" && f.JSON == "":
		x = ctx.CompileString(f.CUE, cue.Filename("fill:"+f.Path))
	default:
		return cue.Value{}, inputError(fmt.Sprintf("fill of %q needs exactly one of json and cue", f.Path))
	}
	if err := x.Err(); err != nil {
		return cue.Value{}, toDiagnostics(err)
	}
	return x, nil
}

func runCheck(v cue.Value, pkg string, c Check) []Diagnostic {
	x, d := lookup(v, pkg, c.Path)
	if d != nil {
		return d
	}
	if !x.Exists() {
		return []Diagnostic{{Message: fmt.Sprintf("%s: field not found", c.Path), Path: c.Path, Kind: "cue"}}
	}
	if c.Schema != "" {
		s, d := lookup(v, pkg, c.Schema)
		if d != nil {
			return d
		}
		if !s.Exists() {
			return []Diagnostic{{Message: fmt.Sprintf("%s: schema not found", c.Schema), Path: c.Schema, Kind: "cue"}}
		}
		x = s.Unify(x)
	}
	var opts []cue.Option
	if c.Concrete {
		opts = append(opts, cue.Concrete(true))
	}
	if c.Final {
		opts = append(opts, cue.Final())
	}
	return toDiagnostics(x.Validate(opts...))
}

func runExport(v cue.Value, pkg string, e Export) (ExportResult, []Diagnostic) {
	out := ExportResult{Path: e.Path}
	x, d := lookup(v, pkg, e.Path)
	if d != nil {
		return out, d
	}
	if !x.Exists() {
		if e.Optional {
			return out, nil
		}
		return out, []Diagnostic{{Message: fmt.Sprintf("%s: field not found", e.Path), Path: e.Path, Kind: "cue"}}
	}
	out.Exists = true
	out.Kind = x.IncompleteKind().String()
	render := func(val cue.Value) (string, string, []Diagnostic) {
		if e.Format == "cue" {
			s, err := cueText(val)
			return "", s, toDiagnostics(err)
		}
		s, err := jsonText(val, e.YAMLCompat)
		return s, "", toDiagnostics(err)
	}
	var diags []Diagnostic
	if !e.Fields || x.Kind() != cue.StructKind {
		out.JSON, out.CUE, diags = render(x)
		return out, diags
	}
	// Fields: render each regular field once and assemble the whole from
	// them, so the struct is not encoded twice.
	it, err := x.Fields()
	if err != nil {
		return out, toDiagnostics(err)
	}
	out.Fields = []FieldResult{}
	var whole strings.Builder
	whole.WriteByte('{')
	for it.Next() {
		f := FieldResult{Label: it.Selector().Unquoted()}
		var d []Diagnostic
		f.JSON, f.CUE, d = render(it.Value())
		diags = append(diags, d...)
		out.Fields = append(out.Fields, f)
		if e.Format != "cue" {
			if len(out.Fields) > 1 {
				whole.WriteByte(',')
			}
			label, _ := json.Marshal(f.Label)
			whole.Write(label)
			whole.WriteByte(':')
			whole.WriteString(f.JSON)
		}
	}
	if diags != nil {
		return out, diags
	}
	whole.WriteByte('}')
	if e.Format == "cue" {
		out.CUE, err = cueText(x)
		return out, toDiagnostics(err)
	}
	out.JSON = whole.String()
	return out, nil
}
