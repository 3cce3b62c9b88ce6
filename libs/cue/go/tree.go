package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"path"
	"strings"
	"testing/fstest"

	"cuelang.org/go/mod/modconfig"
	"cuelang.org/go/mod/modfile"
	"cuelang.org/go/mod/module"
)

// File is one entry of the in-memory tree: Text for UTF-8 content,
// Base64 for anything else.
type File struct {
	Path   string `json:"path"`
	Text   string `json:"text,omitempty"`
	Base64 string `json:"base64,omitempty"`
	// Blob is [offset, length] of the content in the bytes that follow the
	// request's JSON (native frames only): no escaping either way.
	Blob *[2]int `json:"blob,omitempty"`
}

// requestBlob holds the raw bytes after the current request's JSON; one
// request at a time per helper process.
var requestBlob []byte

func (f File) bytes() ([]byte, error) {
	if f.Blob != nil {
		off, n := f.Blob[0], f.Blob[1]
		if off < 0 || n < 0 || off > len(requestBlob) || n > len(requestBlob)-off {
			return nil, fmt.Errorf("content [%d, %d] outside the request's %d bytes", off, n, len(requestBlob))
		}
		return requestBlob[off : off+n : off+n], nil
	}
	if f.Base64 != "" {
		return base64.StdEncoding.DecodeString(f.Base64)
	}
	return []byte(f.Text), nil
}

// cleanTreePath rejects paths that would leave the tree.
func cleanTreePath(p string) (string, error) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", fmt.Errorf("file path %q must be relative and use forward slashes", p)
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("file path %q leaves the tree", p)
	}
	return c, nil
}

// fstestFile is one file of the tree as the loader reads it.
type fstestFile = fstest.MapFile

// buildFS turns the request's files into the only filesystem CUE sees.
func buildFS(files []File) (fstest.MapFS, error) {
	fsys := fstest.MapFS{}
	for _, f := range files {
		p, err := cleanTreePath(f.Path)
		if err != nil {
			return nil, err
		}
		data, err := f.bytes()
		if err != nil {
			return nil, fmt.Errorf("file %s: %w", f.Path, err)
		}
		if _, dup := fsys[p]; dup {
			return nil, fmt.Errorf("file %s given twice", p)
		}
		fsys[p] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return fsys, nil
}

// noRegistry refuses every module fetch: evaluations see only their tree.
type noRegistry struct{}

var _ modconfig.Registry = noRegistry{}

func (noRegistry) ModFile(_ context.Context, mv module.Version) (*modfile.File, error) {
	return nil, fmt.Errorf("module %s is not in the tree and registry access is disabled", mv)
}

func (noRegistry) Fetch(_ context.Context, mv module.Version) (module.SourceLoc, error) {
	return module.SourceLoc{}, fmt.Errorf("module %s is not in the tree and registry access is disabled", mv)
}

func (noRegistry) ModuleVersions(_ context.Context, mpath string) ([]string, error) {
	return nil, fmt.Errorf("module %s is not in the tree and registry access is disabled", mpath)
}
