package main

import (
	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// OriginsRequest maps positions in the generated values file of a module
// build (`values: <merged>`) back to the values files the user wrote.
type OriginsRequest struct {
	MergeRequest
	// Overlay is the generated file the positions are in.
	Overlay   File       `json:"overlay"`
	Positions []Position `json:"positions"`
	// Origins, index for index with Overlays, names where an overlay's
	// fields were written when the overlay itself is generated (a bundle
	// instance's values, passed on as JSON): the files and the path of the
	// values in them. Positions found there point into those files.
	Origins []*OverlayOrigin `json:"origins,omitempty"`
}

type OverlayOrigin struct {
	Source
	Path string `json:"path"`
}

// valuesOrigins answers, for each position, where the field found there was
// last set: the last overlay defining its path, else the base. A position
// whose field no file defines gets a zero Position.
func valuesOrigins(r *OriginsRequest) (any, []Diagnostic) {
	sel := r.Selector
	if sel == "" {
		sel = "values"
	}
	data, err := r.Overlay.bytes()
	if err != nil {
		return nil, inputError(err.Error())
	}
	f, err := parser.ParseFile("overlay.cue", data)
	if err != nil {
		return nil, toDiagnostics(err)
	}
	ctx := newContext()
	// Later files win, so they are asked first.
	var sources []cue.Value
	for i := len(r.Overlays) - 1; i >= -1; i-- {
		if i >= 0 && i < len(r.Origins) && r.Origins[i] != nil {
			if v, ok := originValues(ctx, r.Origins[i]); ok {
				sources = append(sources, v)
				continue
			}
		}
		src := r.Base
		if i >= 0 {
			src = r.Overlays[i]
		}
		v, d := extractValues(ctx, src, sel, true)
		if d != nil {
			return nil, d
		}
		sources = append(sources, v)
	}
	out := make([]Position, len(r.Positions))
	for i, p := range r.Positions {
		sels := fieldPathAt(f, p.Line, p.Column)
		if len(sels) < 2 || sels[0].String() != sel {
			continue
		}
		path := cue.MakePath(sels[1:]...)
		for _, src := range sources {
			x := src.LookupPath(path)
			if !x.Exists() {
				continue
			}
			pos := x.Pos()
			if !pos.IsValid() {
				continue
			}
			out[i] = Position{File: treePath(pos.Filename()), Line: pos.Line(), Column: pos.Column()}
			break
		}
	}
	return out, nil
}

// originValues loads an overlay's origin; one that does not load (it was
// loaded once already to make the overlay, so this is rare) falls back to
// the overlay itself.
func originValues(ctx *cue.Context, o *OverlayOrigin) (cue.Value, bool) {
	v, _, d := loadInstance(ctx, &o.Source)
	if d != nil {
		return cue.Value{}, false
	}
	x := v.LookupPath(cue.ParsePath(o.Path))
	return x, x.Exists()
}

// fieldPathAt gives the path of the innermost field (or list element)
// whose source span holds line:column (1-based), outermost first.
func fieldPathAt(f *ast.File, line, column int) []cue.Selector {
	before := func(q token.Pos) bool { return line < q.Line() || (line == q.Line() && column < q.Column()) }
	inside := func(n ast.Node) bool { return n.Pos().IsValid() && !before(n.Pos()) && before(n.End()) }
	var path []cue.Selector
	var value func(v ast.Expr)
	var fields func(decls []ast.Decl)
	value = func(v ast.Expr) {
		switch x := v.(type) {
		case *ast.StructLit:
			fields(x.Elts)
		case *ast.ListLit:
			for i, e := range x.Elts {
				if inside(e) {
					path = append(path, cue.Index(i))
					value(e)
					return
				}
			}
		}
	}
	fields = func(decls []ast.Decl) {
		for _, d := range decls {
			field, ok := d.(*ast.Field)
			if !ok || !inside(field) {
				continue
			}
			name, _, err := ast.LabelName(field.Label)
			if err != nil {
				return
			}
			path = append(path, cue.Str(name))
			value(field.Value)
			return
		}
	}
	fields(f.Decls)
	return path
}
