package main

import (
	"fmt"
	"path"
	"strings"

	"cuelang.org/go/cue"
)

// MergeRequest merges values files the way Timoni does (§2.3): Base is the
// module's values file compiled alone, Overlays are applied in order.
type MergeRequest struct {
	Base     File   `json:"base"`
	Overlays []File `json:"overlays,omitempty"`
	// Selector is the top-level field holding the values; default "values".
	Selector string `json:"selector,omitempty"`
}

type MergeResult struct {
	// CUE is the merged value as Timoni writes it into the module's
	// values.cue (`values: <CUE>`): Go's %v of the cue.Value, whose field
	// order and form a module's yaml.Marshal(config) checksum depends on.
	CUE string `json:"cue"`
	// Stored is what Timoni keeps in the instance state: that text compiled
	// again on its own, evaluated and printed with %v, so concrete
	// (hidden fields and interpolations already resolved away).
	Stored string `json:"stored"`
	// JSON is set when the merged value is concrete.
	JSON string `json:"json,omitempty"`
}

func mergeValues(r *MergeRequest) (any, []Diagnostic) {
	ctx := newContext()
	sel := r.Selector
	if sel == "" {
		sel = "values"
	}
	// Timoni compiles values without file names, and CUE's order of the
	// merged fields depends on them: so the merge that counts is anonymous.
	// Only when it fails is it run again with names, for the diagnostics
	// to say which file a problem is in.
	merged, d := mergeFiles(ctx, r, sel, false)
	if d != nil {
		if _, named := mergeFiles(newContext(), r, sel, true); named != nil {
			return nil, named
		}
		return nil, d
	}
	text := fmt.Sprint(merged)
	again := ctx.CompileString(sel + ": " + text).LookupPath(cue.MakePath(cue.Str(sel)))
	if err := again.Err(); err != nil {
		return nil, toDiagnostics(err)
	}
	res := MergeResult{CUE: text, Stored: fmt.Sprint(again.Eval())}
	if merged.Validate(cue.Concrete(true)) == nil {
		if j, err := merged.MarshalJSON(); err == nil {
			res.JSON = string(j)
		}
	}
	return res, nil
}

// mergeFiles compiles the base and the overlays, each on its own, and lays
// the overlays over the base in order.
func mergeFiles(ctx *cue.Context, r *MergeRequest, sel string, named bool) (cue.Value, []Diagnostic) {
	extract := func(f File) (cue.Value, []Diagnostic) { return extractValues(ctx, f, sel, named) }
	merged, d := extract(r.Base)
	if d != nil {
		return cue.Value{}, d
	}
	for _, o := range r.Overlays {
		ov, d := extract(o)
		if d != nil {
			return cue.Value{}, d
		}
		merged = mergeValue(ov, merged)
		if err := merged.Err(); err != nil {
			return cue.Value{}, toDiagnostics(err)
		}
	}
	if err := merged.Validate(); err != nil {
		return cue.Value{}, toDiagnostics(err)
	}
	return merged, nil
}

// extractValues compiles one values file on its own and returns its
// top-level sel field. Named, the file keeps its name and (for JSON and
// YAML) its own lines, for positions that point into it.
func extractValues(ctx *cue.Context, f File, sel string, named bool) (cue.Value, []Diagnostic) {
	p, err := cleanTreePath(f.Path)
	if err != nil {
		return cue.Value{}, inputError(err.Error())
	}
	data, err := f.bytes()
	if err != nil {
		return cue.Value{}, inputError(err.Error())
	}
	var v cue.Value
	switch {
	case strings.ToLower(path.Ext(p)) == ".cue" && named:
		v = ctx.CompileBytes(data, cue.Filename(treeRoot+"/"+p))
	case strings.ToLower(path.Ext(p)) == ".cue":
		v = ctx.CompileBytes(data)
	case named:
		file, d := dataToAST(p, data)
		if d != nil {
			return cue.Value{}, d
		}
		v = ctx.BuildFile(file)
	default:
		conv, d := dataToCUE(p, data)
		if d != nil {
			return cue.Value{}, d
		}
		v = ctx.CompileBytes(conv.Data)
	}
	if err := v.Err(); err != nil {
		return cue.Value{}, toDiagnostics(err)
	}
	x := v.LookupPath(cue.MakePath(cue.Str(sel)))
	if !x.Exists() {
		return cue.Value{}, []Diagnostic{{Message: fmt.Sprintf("%s has no top-level %q field", p, sel), File: p, Kind: "cue"}}
	}
	if err := x.Err(); err != nil {
		return cue.Value{}, toDiagnostics(err)
	}
	return x, nil
}

// mergeValue lays overlay over base: structs merge field by field, lists
// element-wise over the common prefix, anything else is the overlay. The
// merged parts are unified into the overlay, so an overlay list longer than
// the base list conflicts ("incompatible list lengths") as in Timoni.
func mergeValue(overlay, base cue.Value) cue.Value {
	switch base.IncompleteKind() {
	case cue.StructKind:
		out := overlay
		it, err := base.Fields(cue.Concrete(true), cue.Attributes(true), cue.Definitions(true),
			cue.Hidden(true), cue.Optional(true), cue.Docs(true))
		if err != nil {
			return overlay
		}
		for it.Next() {
			p := cue.MakePath(it.Selector())
			if o := overlay.LookupPath(p); o.Exists() {
				out = out.FillPath(p, mergeValue(o, it.Value()))
			} else {
				out = out.FillPath(p, it.Value())
			}
		}
		return out
	case cue.ListKind:
		oi, err1 := overlay.List()
		bi, err2 := base.List()
		if err1 != nil || err2 != nil {
			return overlay
		}
		var items []cue.Value
		for oi.Next() && bi.Next() {
			items = append(items, mergeValue(oi.Value(), bi.Value()))
		}
		return base.Context().NewList(items...)
	}
	return overlay
}
