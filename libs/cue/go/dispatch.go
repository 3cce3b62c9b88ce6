package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
)

// dispatch decodes one request, runs the named operation and encodes the
// answer. A Go panic inside CUE is turned into an engine error instead of
// killing the runtime that later calls reuse.
func dispatch(op string, req []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = encodeResponse(nil, []Diagnostic{{Message: fmt.Sprintf("internal error in CUE engine: %v\n%s", r, debug.Stack()), Kind: "internal"}})
		}
	}()
	var (
		result any
		diags  []Diagnostic
	)
	switch op {
	case "evaluate":
		var r EvaluateRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return encodeResponse(nil, inputError("bad evaluate request: "+err.Error()))
		}
		result, diags = evaluate(&r)
	case "mergeValues":
		var r MergeRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return encodeResponse(nil, inputError("bad mergeValues request: "+err.Error()))
		}
		result, diags = mergeValues(&r)
	case "listAttributes":
		var r ListAttributesRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return encodeResponse(nil, inputError("bad listAttributes request: "+err.Error()))
		}
		result, diags = listAttributes(&r)
	case "rewriteFields":
		var r RewriteRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return encodeResponse(nil, inputError("bad rewriteFields request: "+err.Error()))
		}
		result, diags = rewriteFields(&r)
	case "evalExpression":
		var r ExpressionRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return encodeResponse(nil, inputError("bad evalExpression request: "+err.Error()))
		}
		result, diags = evalExpression(&r)
	case "moduleImages":
		var r ImagesRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return encodeResponse(nil, inputError("bad moduleImages request: "+err.Error()))
		}
		result, diags = moduleImages(&r)
	case "valuesOrigins":
		var r OriginsRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return encodeResponse(nil, inputError("bad valuesOrigins request: "+err.Error()))
		}
		result, diags = valuesOrigins(&r)
	case "version":
		result = map[string]string{"cue": cueVersion()}
	case "test.spin":
		// Test hook (never sent by the engine): busy in wasm without
		// allocating until the worker is terminated, so specs prove the
		// timeout stops running Go code whatever the machine's speed.
		spin()
	case "test.exit":
		// Test hook (never sent by the engine): the runtime dies mid-call,
		// so specs prove a crashed instance is reported and replaced.
		os.Exit(7)
	default:
		return encodeResponse(nil, inputError("unknown operation "+op))
	}
	return encodeResponse(result, diags)
}

type response struct {
	OK     bool         `json:"ok"`
	Result any          `json:"result,omitempty"`
	Errors []Diagnostic `json:"errors,omitempty"`
}

func encodeResponse(result any, diags []Diagnostic) []byte {
	res := response{OK: len(diags) == 0, Errors: diags}
	if res.OK {
		res.Result = result
	}
	b, err := json.Marshal(res)
	if err != nil {
		b, _ = json.Marshal(response{Errors: inputError("encoding response: " + err.Error())})
	}
	return b
}

func inputError(msg string) []Diagnostic {
	return []Diagnostic{{Message: msg, Kind: "input"}}
}

func cueVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "cuelang.org/go" {
				return d.Version
			}
		}
	}
	return "unknown"
}

var spinCount uint64

func spin() {
	for {
		spinCount++
	}
}
