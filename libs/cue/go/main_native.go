//go:build !(js && wasm)

// Command cue-native is the same evaluator as cue.wasm, built for the host:
// a helper process the TypeScript pool drives over stdin/stdout. Frames:
//
//	request:  "<id> <op> <len>\n" + len bytes of JSON
//	response: "<id> <len> <memBytes> <micros>\n" + len bytes of JSON
//
// The first line it writes is "ready <cueVersion> <sandbox>". It serves one
// call at a time; the pool kills it on a timeout and starts another.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "bench" {
		benchmark(os.Args[2], os.Args[3])
		return
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	// Nothing but frames may reach stdout.
	os.Stdout = os.Stderr
	dieWithParent()
	// Never unconfined: the pool then falls back to the wasm build.
	if err := restrictFilesystem(); err != nil {
		fmt.Fprintf(os.Stderr, "cue-native: cannot confine the filesystem: %v\n", err)
		os.Exit(3)
	}
	setupMemoryLimit()
	fmt.Fprintf(out, "ready %s landlock\n", cueVersion())
	out.Flush()
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		id, op, req, blob, err := readRequest(in)
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cue-native: bad request frame: %v\n", err)
			os.Exit(2)
		}
		t0 := time.Now()
		var res []byte
		if op == "test.block" {
			res = block(in)
		} else {
			stop := watchMemory()
			requestBlob = blob
			res = dispatch(op, req)
			requestBlob = nil
			stop()
		}
		fmt.Fprintf(out, "%s %d %d %d\n", id, len(res), memoryInUse(), time.Since(t0).Microseconds())
		out.Write(res)
		out.Flush()
	}
}

// readRequest reads "id op length [blobLength]\n", the JSON body, then the
// raw bytes files may point into (see File.Blob).
func readRequest(in *bufio.Reader) (id, op string, body, blob []byte, err error) {
	line, err := in.ReadString('\n')
	if err != nil {
		if err == io.EOF && line == "" {
			return "", "", nil, nil, io.EOF
		}
		return "", "", nil, nil, err
	}
	parts := strings.Fields(line)
	if len(parts) != 3 && len(parts) != 4 {
		return "", "", nil, nil, fmt.Errorf("header %q", line)
	}
	lengths := make([]int, len(parts)-2)
	for i, s := range parts[2:] {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return "", "", nil, nil, fmt.Errorf("length in %q", line)
		}
		lengths[i] = n
	}
	body = make([]byte, lengths[0])
	if _, err := io.ReadFull(in, body); err != nil {
		return "", "", nil, nil, err
	}
	if len(lengths) == 2 {
		blob = make([]byte, lengths[1])
		if _, err := io.ReadFull(in, blob); err != nil {
			return "", "", nil, nil, err
		}
	}
	return parts[0], parts[1], body, blob, nil
}

// block is the test hook behind TEST_BLOCK_OP (the engine never sends it):
// it holds this helper, allocating nothing, until the pool writes one byte.
func block(in *bufio.Reader) []byte {
	if _, err := in.ReadByte(); err != nil {
		os.Exit(0)
	}
	return []byte(`{"ok":true,"result":{}}`)
}

// benchmark is the reference of npm run bench:cue: the request on stdin run
// n times in this process, no IPC, printing each call's microseconds.
func benchmark(op, count string) {
	n, err := strconv.Atoi(count)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: cue-native bench <op> <n> < request.json")
		os.Exit(2)
	}
	req, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; i < n; i++ {
		t0 := time.Now()
		res := dispatch(op, req)
		if i == 0 && !strings.HasPrefix(string(res), `{"ok":true`) {
			fmt.Fprintf(os.Stderr, "%s\n", res)
			os.Exit(1)
		}
		fmt.Println(time.Since(t0).Microseconds())
	}
}
