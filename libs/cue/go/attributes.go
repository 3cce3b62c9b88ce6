package main

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// ListAttributesRequest finds fields carrying @Name(...) in CUE sources.
type ListAttributesRequest struct {
	Files []File `json:"files"`
	Name  string `json:"name"`
}

// AttributeField is one field with the attribute. Only the first attribute
// of that name on a field counts. FieldOffset identifies the field for
// rewriteFields.
type AttributeField struct {
	File        string `json:"file"`
	Path        string `json:"path"`
	Label       string `json:"label"`
	Constraint  string `json:"constraint,omitempty"` // "?" or "!"
	Body        string `json:"body"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	FieldOffset int    `json:"fieldOffset"`
}

func parseSource(f File) (*ast.File, []Diagnostic) {
	p, err := cleanTreePath(f.Path)
	if err != nil {
		return nil, inputError(err.Error())
	}
	data, err := f.bytes()
	if err != nil {
		return nil, inputError(err.Error())
	}
	file, err := parser.ParseFile(treeRoot+"/"+p, data, parser.ParseComments)
	if err != nil {
		return nil, toDiagnostics(err)
	}
	return file, nil
}

func listAttributes(r *ListAttributesRequest) (any, []Diagnostic) {
	out := []AttributeField{}
	var diags []Diagnostic
	for _, f := range r.Files {
		if !strings.HasSuffix(f.Path, ".cue") {
			continue // JSON and YAML cannot carry attributes
		}
		file, d := parseSource(f)
		if d != nil {
			diags = append(diags, d...)
			continue
		}
		walkFields(file.Decls, nil, func(field *ast.Field, path []string) bool {
			for _, a := range field.Attrs {
				name, body := a.Split()
				if name != r.Name {
					continue
				}
				pos := field.Label.Pos().Position()
				c := ""
				if field.Constraint != token.ILLEGAL {
					c = field.Constraint.String()
				}
				out = append(out, AttributeField{
					File: treePath(pos.Filename), Path: strings.Join(path, "."), Label: path[len(path)-1],
					Constraint: c, Body: body, Line: pos.Line, Column: pos.Column, FieldOffset: pos.Offset,
				})
				break
			}
			return true
		})
	}
	if diags != nil {
		return nil, diags
	}
	return out, nil
}

// walkFields visits every field reachable through structs, embeddings,
// comprehensions and binary expressions, with its label path.
func walkFields(decls []ast.Decl, path []string, visit func(*ast.Field, []string) bool) {
	for _, d := range decls {
		switch x := d.(type) {
		case *ast.Field:
			p := append(append([]string{}, path...), labelText(x.Label))
			if !visit(x, p) {
				return
			}
			walkExpr(x.Value, p, visit)
		case *ast.EmbedDecl:
			walkExpr(x.Expr, path, visit)
		case *ast.Comprehension:
			walkExpr(x.Value, path, visit)
		case *ast.LetClause:
			walkExpr(x.Expr, path, visit)
		}
	}
}

func walkExpr(e ast.Expr, path []string, visit func(*ast.Field, []string) bool) {
	switch x := e.(type) {
	case *ast.StructLit:
		walkFields(x.Elts, path, visit)
	case *ast.BinaryExpr:
		walkExpr(x.X, path, visit)
		walkExpr(x.Y, path, visit)
	case *ast.ParenExpr:
		walkExpr(x.X, path, visit)
	case *ast.ListLit:
		for i, el := range x.Elts {
			walkExpr(el, append(append([]string{}, path...), fmt.Sprintf("%d", i)), visit)
		}
	case *ast.Comprehension:
		walkExpr(x.Value, path, visit)
	case *ast.CallExpr:
		for _, a := range x.Args {
			walkExpr(a, path, visit)
		}
	}
}

func labelText(l ast.Label) string {
	if name, _, err := ast.LabelName(l); err == nil {
		if ast.IsValidIdent(name) {
			return name
		}
		return fmt.Sprintf("%q", name)
	}
	b, err := format.Node(l)
	if err != nil {
		return "?"
	}
	return string(b)
}
