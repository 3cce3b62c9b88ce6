//go:build !linux && !(js && wasm)

package main

import "errors"

func restrictFilesystem() error {
	return errors.New("no filesystem sandbox on this system")
}

func dieWithParent() {}
