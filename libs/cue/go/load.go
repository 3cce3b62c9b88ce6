package main

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/inject/embed"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/yaml"
)

// Source says what to load from the tree.
type Source struct {
	Files []File `json:"files"`
	// Dir is the package directory relative to the tree root ("" = root).
	Dir string `json:"dir,omitempty"`
	// Package selects the package name in Dir when several exist.
	Package string `json:"package,omitempty"`
	// Entries, when set, loads exactly these files (tree paths) as one
	// package instead of Dir. .json/.yaml/.yml entries are converted to CUE.
	Entries []string `json:"entries,omitempty"`
	// Tags are key=value injections for @tag(key).
	Tags map[string]string `json:"tags,omitempty"`
	// TagVars are values for @tag(x, var=NAME). Nil leaves var tags unset.
	TagVars map[string]string `json:"tagVars,omitempty"`
	// BuildTags are names true for @if(...).
	BuildTags []string `json:"buildTags,omitempty"`
}

func newContext() *cue.Context {
	return cuecontext.New(cuecontext.WithInjection(embed.New()))
}

// loadInstance loads and builds the package named by src.
func loadInstance(ctx *cue.Context, src *Source) (cue.Value, string, []Diagnostic) {
	fsys, err := buildFS(src.Files)
	if err != nil {
		return cue.Value{}, "", inputError(err.Error())
	}
	args := []string{}
	if len(src.Entries) > 0 {
		for _, e := range src.Entries {
			p, err := cleanTreePath(e)
			if err != nil {
				return cue.Value{}, "", inputError(err.Error())
			}
			f, ok := fsys[p]
			if !ok {
				return cue.Value{}, "", inputError(fmt.Sprintf("entry %s is not in the tree", p))
			}
			if ext := path.Ext(p); ext != ".cue" {
				conv, diags := dataToCUE(p, f.Data)
				if diags != nil {
					return cue.Value{}, "", diags
				}
				p = p + ".cue"
				fsys[p] = conv
			}
			args = append(args, treeRoot+"/"+p)
		}
	}
	dir := treeRoot
	if src.Dir != "" && src.Dir != "." {
		p, err := cleanTreePath(src.Dir)
		if err != nil {
			return cue.Value{}, "", inputError(err.Error())
		}
		dir = treeRoot + "/" + p
	}
	// An overlay rather than Config.FS: v0.17.1 cannot resolve cue.mod/pkg
	// and cue.mod/gen imports from an FS. Under js/wasm the host filesystem
	// behind the overlay answers "not found" to everything.
	overlay := make(map[string]load.Source, len(fsys))
	for p, f := range fsys {
		overlay[treeRoot+"/"+p] = load.FromBytes(f.Data)
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	cfg := &load.Config{
		Overlay:             overlay,
		Dir:                 dir,
		ModuleRoot:          treeRoot,
		Package:             src.Package,
		Tags:                tagList(src.Tags, src.BuildTags),
		AcceptLegacyModules: true,
		Registry:            noRegistry{},
		Env:                 []string{},
	}
	if src.TagVars != nil {
		cfg.TagVars = map[string]load.TagVar{}
		for k, v := range src.TagVars {
			val := v
			cfg.TagVars[k] = load.TagVar{Func: func() (ast.Expr, error) { return ast.NewString(val), nil }}
		}
	}
	insts := load.Instances(args, cfg)
	if len(insts) != 1 {
		return cue.Value{}, "", inputError(fmt.Sprintf("expected one package, the loader found %d", len(insts)))
	}
	inst := insts[0]
	if len(src.Entries) > 0 && inst.Module == "" {
		// Files named one by one form a package outside the module; like
		// Timoni's --workdir, let them use the tree's module for @embed.
		if mf, ok := fsys["cue.mod/module.cue"]; ok {
			if name, err := ctx.CompileBytes(mf.Data).LookupPath(cue.ParsePath("module")).String(); err == nil && name != "" {
				inst.Module = name
				if inst.Root == "" {
					inst.Root = treeRoot
				}
			}
		}
	}
	v, d := buildInstance(ctx, inst)
	return v, hiddenScope(inst), d
}

func buildInstance(ctx *cue.Context, inst *build.Instance) (cue.Value, []Diagnostic) {
	if inst.Err != nil {
		return cue.Value{}, toDiagnostics(inst.Err)
	}
	v := ctx.BuildInstance(inst)
	if d := allErrors(v); d != nil {
		return cue.Value{}, d
	}
	return v, nil
}

// hiddenScope is the package that qualifies hidden fields (_x) in paths.
func hiddenScope(inst *build.Instance) string {
	if inst.PkgName == "" || inst.PkgName == "_" {
		return "_"
	}
	return inst.ID()
}

// allErrors reports every error of v: Err() stops at the first one,
// Validate collects them all.
func allErrors(v cue.Value) []Diagnostic {
	if v.Err() == nil {
		return nil
	}
	if err := v.Validate(); err != nil {
		return toDiagnostics(err)
	}
	return toDiagnostics(v.Err())
}

// tagList renders tags in a stable order: key=value first, then build tags.
func tagList(tags map[string]string, buildTags []string) []string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys)+len(buildTags))
	for _, k := range keys {
		out = append(out, k+"="+tags[k])
	}
	return append(out, buildTags...)
}

// dataToCUE converts a JSON or YAML file to CUE source, as Timoni does for
// bundle and runtime files given in those formats.
func dataToCUE(name string, data []byte) (*fstestFile, []Diagnostic) {
	f, d := dataToAST(name, data)
	if d != nil {
		return nil, d
	}
	b, err := format.Node(f)
	if err != nil {
		return nil, toDiagnostics(err)
	}
	return &fstestFile{Data: b, Mode: 0o444}, nil
}

// dataToAST reads a JSON or YAML file as CUE syntax whose positions are
// those of the file itself.
func dataToAST(name string, data []byte) (*ast.File, []Diagnostic) {
	switch strings.ToLower(path.Ext(name)) {
	case ".json":
		expr, err := json.Extract(treeRoot+"/"+name, data)
		if err != nil {
			return nil, toDiagnostics(err)
		}
		s, ok := expr.(*ast.StructLit)
		if !ok {
			return nil, inputError(fmt.Sprintf("file %s: top level must be an object", name))
		}
		return &ast.File{Filename: treeRoot + "/" + name, Decls: s.Elts}, nil
	case ".yaml", ".yml":
		f, err := yaml.Extract(treeRoot+"/"+name, data)
		if err != nil {
			return nil, toDiagnostics(err)
		}
		return f, nil
	default:
		return nil, inputError(fmt.Sprintf("file %s: only .cue, .json, .yaml and .yml are supported", name))
	}
}
