package main

import (
	"fmt"
	"sort"

	"cuelang.org/go/cue"
)

// ExpressionRequest evaluates a CUE expression with names bound to JSON
// values, e.g. Timoni's runtime `for` expressions with obj bound.
type ExpressionRequest struct {
	Expression string            `json:"expression"`
	Bindings   map[string]string `json:"bindings,omitempty"` // name -> JSON text
}

type ExpressionResult struct {
	Kind string `json:"kind"`
	// String is set for string results; JSON for every concrete result;
	// CUE is the CUE text of the value (e.g. 42, true).
	String *string `json:"string,omitempty"`
	JSON   string  `json:"json"`
	CUE    string  `json:"cue"`
}

func evalExpression(r *ExpressionRequest) (any, []Diagnostic) {
	ctx := newContext()
	names := make([]string, 0, len(r.Bindings))
	for k := range r.Bindings {
		names = append(names, k)
	}
	sort.Strings(names)
	scope := ctx.CompileString("{}")
	for _, name := range names {
		x := ctx.CompileString(r.Bindings[name], cue.Filename("binding:"+name))
		if err := x.Err(); err != nil {
			return nil, toDiagnostics(err)
		}
		scope = scope.FillPath(cue.MakePath(cue.Str(name)), x)
	}
	v := ctx.CompileString(r.Expression, cue.Scope(scope), cue.InferBuiltins(true), cue.Filename("expression"))
	if err := v.Err(); err != nil {
		return nil, toDiagnostics(err)
	}
	v, _ = v.Default()
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, toDiagnostics(err)
	}
	res := ExpressionResult{Kind: v.Kind().String()}
	j, err := v.MarshalJSON()
	if err != nil {
		return nil, toDiagnostics(err)
	}
	res.JSON = string(j)
	if res.CUE, err = finalText(v); err != nil {
		return nil, toDiagnostics(err)
	}
	if v.Kind() == cue.StringKind {
		s, _ := v.String()
		res.String = &s
	}
	if res.Kind == "" {
		return nil, []Diagnostic{{Message: fmt.Sprintf("expression %q has no value", r.Expression), Kind: "cue"}}
	}
	return res, nil
}
