//go:build js && wasm

// Command cue-wasm exposes the official CUE evaluator to JavaScript.
// It registers one function, flotillaCue(op, requestJSON) -> responseJSON,
// on the global object and then parks, so a single warm Go runtime serves
// every call made by its worker thread.
package main

import (
	"syscall/js"
)

func main() {
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 2 {
			return string(encodeResponse(nil, inputError("flotillaCue wants (op, request)")))
		}
		return string(dispatch(args[0].String(), []byte(args[1].String())))
	})
	js.Global().Set("flotillaCue", fn)
	js.Global().Set("flotillaCueVersion", cueVersion())
	select {}
}
