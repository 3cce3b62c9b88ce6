package main

import (
	"fmt"

	"cuelang.org/go/cue"
)

// ImagesRequest reads the container images a module declares in its root
// images.cue, the way `timoni mod push` fills the sh.timoni.images
// annotation: the file is compiled on its own and every struct under
// `values` with a `repository` and a `tag` or `digest` gives one reference.
type ImagesRequest struct {
	File File `json:"file"`
}

// ImageRef is one image struct: where it is and its reference
// repository[:tag][@digest] made of the fields' defaults.
type ImageRef struct {
	Path      string `json:"path"`
	Reference string `json:"reference"`
}

func moduleImages(r *ImagesRequest) (any, []Diagnostic) {
	p, err := cleanTreePath(r.File.Path)
	if err != nil {
		return nil, inputError(err.Error())
	}
	data, err := r.File.bytes()
	if err != nil {
		return nil, inputError(err.Error())
	}
	values := newContext().CompileBytes(data, cue.Filename(treeRoot+"/"+p)).LookupPath(cue.ParsePath("values"))
	if err := values.Err(); err != nil {
		return nil, withPrefix(fmt.Sprintf("reading %s failed: ", p), toDiagnostics(err))
	}
	refs := []ImageRef{}
	var diags []Diagnostic
	// Value.Walk visits regular fields only; a matching struct is not
	// descended into, so an image's own fields are never images.
	values.Walk(func(v cue.Value) bool {
		if diags != nil {
			return false
		}
		if v.IncompleteKind() != cue.StructKind {
			return true
		}
		repo, tag, digest := v.LookupPath(cue.ParsePath("repository")), v.LookupPath(cue.ParsePath("tag")), v.LookupPath(cue.ParsePath("digest"))
		if !repo.Exists() || (!tag.Exists() && !digest.Exists()) {
			return true
		}
		ref, err := imageReference(repo, tag, digest)
		if err != nil {
			diags = []Diagnostic{{Message: fmt.Sprintf("reading %s failed at %s: %v", p, v.Path(), err), Path: v.Path().String(), File: p, Kind: "cue"}}
			return false
		}
		refs = append(refs, ImageRef{Path: v.Path().String(), Reference: ref})
		return false
	}, nil)
	if diags != nil {
		return nil, diags
	}
	return refs, nil
}

// imageReference joins the defaults of the image fields; empty tag and
// digest are left out, an empty repository is an error.
func imageReference(repo, tag, digest cue.Value) (string, error) {
	ref, err := defaultString(repo)
	if err != nil {
		return "", err
	}
	if ref == "" {
		return "", fmt.Errorf("image repository is empty")
	}
	for _, part := range []struct {
		v   cue.Value
		sep string
	}{{tag, ":"}, {digest, "@"}} {
		if !part.v.Exists() {
			continue
		}
		s, err := defaultString(part.v)
		if err != nil {
			return "", err
		}
		if s != "" {
			ref += part.sep + s
		}
	}
	return ref, nil
}

func defaultString(v cue.Value) (string, error) {
	if d, ok := v.Default(); ok {
		v = d
	}
	return v.String()
}

func withPrefix(prefix string, diags []Diagnostic) []Diagnostic {
	for i := range diags {
		diags[i].Message = prefix + diags[i].Message
	}
	return diags
}
