package main

import (
	"strings"

	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// Position is a place in one file of the tree, 1-based.
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// Diagnostic is one CUE error. File/Line/Column are the primary position
// (empty when CUE reports none); Positions lists every position CUE gives.
type Diagnostic struct {
	Message   string     `json:"message"`
	Path      string     `json:"path,omitempty"`
	File      string     `json:"file,omitempty"`
	Line      int        `json:"line,omitempty"`
	Column    int        `json:"column,omitempty"`
	Positions []Position `json:"positions,omitempty"`
	// Kind: "cue" (evaluation), "input" (bad request), "internal".
	Kind string `json:"kind"`
}

// toDiagnostics splits err into every error it holds, each with positions.
func toDiagnostics(err error) []Diagnostic {
	if err == nil {
		return nil
	}
	var out []Diagnostic
	for _, e := range errors.Errors(err) {
		d := Diagnostic{Message: errorText(e), Path: pathText(e), Kind: "cue"}
		// The innermost position comes first: for "import failed" it is
		// the error inside the imported package, not the import line.
		seen := map[Position]bool{}
		for _, p := range append([]token.Pos{innermostPos(e)}, errors.Positions(e)...) {
			if pos, ok := toPosition(p); ok && !seen[pos] {
				seen[pos] = true
				d.Positions = append(d.Positions, pos)
			}
		}
		if len(d.Positions) > 0 {
			d.File, d.Line, d.Column = d.Positions[0].File, d.Positions[0].Line, d.Positions[0].Column
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		out = append(out, Diagnostic{Message: err.Error(), Kind: "cue"})
	}
	return out
}

func innermostPos(err error) token.Pos {
	pos := token.NoPos
	for err != nil {
		if e, ok := err.(errors.Error); ok && e.Position().IsValid() {
			pos = e.Position()
		}
		err = errors.Unwrap(err)
	}
	return pos
}

// errorText is CUE's message for e with the tree root removed from file names, so they read as tree paths; positions travel separately.
func errorText(e errors.Error) string {
	return strings.ReplaceAll(e.Error(), treeRoot+"/", "")
}

func pathText(e errors.Error) string {
	var parts []string
	for _, p := range e.Path() {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

func toPosition(p token.Pos) (Position, bool) {
	if !p.IsValid() {
		return Position{}, false
	}
	pos := p.Position()
	return Position{File: treePath(pos.Filename), Line: pos.Line, Column: pos.Column}, true
}

// treeRoot is where the tree appears to CUE; it exists nowhere else.
const treeRoot = "/cue-tree"

// treePath turns a loader file name back into the caller's tree path.
func treePath(name string) string {
	return strings.TrimPrefix(name, treeRoot+"/")
}

func newDiag(p token.Pos, format string, args ...any) Diagnostic {
	return toDiagnostics(errors.Newf(p, format, args...))[0]
}
