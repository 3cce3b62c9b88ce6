// The agents of `npm run bench:agents`, in their own process: one gRPC
// connection (mutual TLS) and one stream per agent, speaking the real
// protocol from the Go code generated off proto/. Each agent acknowledges an
// assignment as it arrives and reports it, with the engine's RunReport, a
// while later as a real agent does after applying.
//
// Written in Go because a real fleet's agents each have a machine of their
// own: here they share two cores with the hub, and a load generator that
// costs a fraction of the hub's CPU per message takes the least of it.
//
// Usage: agents-sim <hub addresses, comma-separated> <identities file> <agent CA file> <report template file>
// Agent i dials address i mod n: a fleet spread over the hub's replicas.
// Reads `{"digest": "sha256:…", "at": <epoch ms>}` lines from stdin and
// prints JSON lines: when all have connected, and per digest the latencies
// from `at` to each agent holding it.
package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"flotilla.dev/bench/agents-sim/agentpb"
)

type identity struct {
	KeyPem  string `json:"keyPem"`
	CertPem string `json:"certPem"`
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: agents-sim <hub addresses, comma-separated> <identities file> <agent CA file> <report template file>")
		os.Exit(2)
	}
	addresses := strings.Split(os.Args[1], ",")
	identities := readIdentities(os.Args[2])
	caPem, err := os.ReadFile(os.Args[3])
	must(err)
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPem) {
		fail("no certificate in %s", os.Args[3])
	}
	templates := readTemplates(os.Args[4])
	applyMs := 2000
	if v := os.Getenv("BENCH_APPLY_MS"); v != "" {
		applyMs, err = strconv.Atoi(v)
		must(err)
	}

	out := &output{}
	fleet := newFleet(len(identities), out)
	started := time.Now()
	agents := make([]*agent, len(identities))
	for i, id := range identities {
		cert, err := tls.X509KeyPair([]byte(id.CertPem), []byte(id.KeyPem))
		must(err)
		agents[i] = &agent{
			index:    i,
			address:  addresses[i%len(addresses)],
			tls:      &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
			reports:  templates,
			applyFor: func() time.Duration { return time.Duration(float64(applyMs)*(0.5+rand.Float64())) * time.Millisecond },
			fleet:    fleet,
			unacked:  map[string]*agentpb.RunReport{},
		}
	}
	fleet.onAllGreeted = func() {
		out.say(map[string]any{"event": "connected", "agents": len(agents), "ms": time.Since(started).Milliseconds()})
	}
	for _, a := range agents {
		go a.run()
	}
	go heartbeats(agents)
	go progress(fleet)

	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		var timed struct {
			Digest string `json:"digest"`
			At     int64  `json:"at"`
		}
		must(json.Unmarshal(lines.Bytes(), &timed))
		fleet.time(timed.Digest, time.UnixMilli(timed.At))
	}
	for _, a := range agents {
		a.close()
	}
}

// heartbeats says alive for every agent each 10 s, as real agents do, spread
// over the 10 s as a real fleet's are rather than in one burst.
func heartbeats(agents []*agent) {
	const slices = 100
	tick := time.NewTicker(10 * time.Second / slices)
	for slice := 0; ; slice = (slice + 1) % slices {
		<-tick.C
		for i := slice; i < len(agents); i += slices {
			agents[i].heartbeat()
		}
	}
}

func progress(f *fleet) {
	for range time.Tick(5 * time.Second) {
		greeted, total := f.counts()
		fmt.Fprintf(os.Stderr, "agents-sim: %d/%d greeted\n", greeted, total)
	}
}

// readTemplates reads the report templates: an apply's on the first line, a deletion's on the second.
func readTemplates(file string) reportTemplates {
	text, err := os.ReadFile(file)
	must(err)
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) != 2 {
		fail("%s: want two report templates, one per line, found %d lines", file, len(lines))
	}
	return reportTemplates{apply: lines[0], deletion: lines[1]}
}

func readIdentities(file string) []identity {
	f, err := os.Open(file)
	must(err)
	defer f.Close()
	var ids []identity
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		if len(lines.Bytes()) == 0 {
			continue
		}
		var id identity
		must(json.Unmarshal(lines.Bytes(), &id))
		ids = append(ids, id)
	}
	must(lines.Err())
	return ids
}

// output writes JSON lines to stdout from any goroutine.
type output struct{ mu sync.Mutex }

func (o *output) say(v any) {
	line, err := json.Marshal(v)
	must(err)
	o.mu.Lock()
	defer o.mu.Unlock()
	os.Stdout.Write(append(line, '\n'))
}

func must(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "agents-sim: "+format+"\n", args...)
	os.Exit(1)
}
