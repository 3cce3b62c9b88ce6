package main

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	"cuelang.org/go/encoding/json"
)

// RewriteRequest replaces the value expressions of fields in one CUE file,
// keeping label, ?/! marker and attributes, then reformats the file.
type RewriteRequest struct {
	File         File          `json:"file"`
	Replacements []Replacement `json:"replacements"`
}

// Replacement targets a field by the FieldOffset from listAttributes.
type Replacement struct {
	FieldOffset int        `json:"fieldOffset"`
	Value       TypedValue `json:"value"`
}

// TypedValue is the new value: Kind "string" (any text, quoted here),
// "number" (must be a CUE number literal, e.g. -1.5, 0x1F, 2Mi), "bool"
// ("true"/"false"), "json" (JSON text) or "cue" (a CUE expression).
type TypedValue struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

type RewriteResult struct {
	Text string `json:"text"`
}

func rewriteFields(r *RewriteRequest) (any, []Diagnostic) {
	file, d := parseSource(r.File)
	if d != nil {
		return nil, d
	}
	byOffset := map[int]TypedValue{}
	for _, rep := range r.Replacements {
		byOffset[rep.FieldOffset] = rep.Value
	}
	done := map[int]bool{}
	var diags []Diagnostic
	walkFields(file.Decls, nil, func(f *ast.Field, path []string) bool {
		off := f.Label.Pos().Offset()
		tv, ok := byOffset[off]
		if !ok {
			return true
		}
		done[off] = true
		expr, err := typedExpr(tv)
		if err != nil {
			diags = append(diags, newDiag(f.Label.Pos(), "%s: failed to parse value for field: %v", strings.Join(path, "."), err))
			return true
		}
		f.Value = expr
		return true
	})
	for off := range byOffset {
		if !done[off] {
			diags = append(diags, inputError(fmt.Sprintf("%s: no field starts at offset %d", r.File.Path, off))...)
		}
	}
	if diags != nil {
		return nil, diags
	}
	b, err := format.Node(file)
	if err != nil {
		return nil, toDiagnostics(err)
	}
	return RewriteResult{Text: string(b)}, nil
}

func typedExpr(tv TypedValue) (ast.Expr, error) {
	switch tv.Kind {
	case "string":
		return &ast.BasicLit{Kind: token.STRING, Value: quoteString(tv.Text)}, nil
	case "bool":
		switch tv.Text {
		case "true":
			return ast.NewBool(true), nil
		case "false":
			return ast.NewBool(false), nil
		}
		return nil, fmt.Errorf("%q is not a bool (true or false)", tv.Text)
	case "number":
		e, err := parser.ParseExpr("number", tv.Text)
		if err != nil || !isNumberLiteral(e) {
			return nil, fmt.Errorf("%q is not a CUE number literal", tv.Text)
		}
		ast.SetPos(e, token.NoPos)
		return e, nil
	case "json":
		e, err := json.Extract("json", []byte(tv.Text))
		if err != nil {
			return nil, err
		}
		return e, nil
	case "cue":
		e, err := parser.ParseExpr("cue", tv.Text)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	return nil, fmt.Errorf("unknown value kind %q", tv.Kind)
}

func isNumberLiteral(e ast.Expr) bool {
	if u, ok := e.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
		e = u.X
	}
	b, ok := e.(*ast.BasicLit)
	return ok && (b.Kind == token.INT || b.Kind == token.FLOAT)
}

// quoteString makes a CUE string literal: multi-line text becomes a """
// block, text with carriage returns stays an escaped single-line string.
func quoteString(s string) string {
	if strings.Contains(s, "\n") && !strings.Contains(s, "\r") {
		return literal.String.WithTabIndent(1).Quote(s)
	}
	return literal.String.Quote(s)
}
