package main

import (
	"slices"
	"sync"
	"time"
)

// fleet counts what the whole simulated fleet has seen: how many agents got
// their first assignment set, and for each timed digest when each agent
// first held it.
type fleet struct {
	mu           sync.Mutex
	out          *output
	greeted      []bool
	greetedCount int
	onAllGreeted func()
	timing       map[string]*digestTiming
}

type digestTiming struct {
	at      time.Time
	held    []time.Duration
	counted []bool
	count   int
}

func newFleet(size int, out *output) *fleet {
	return &fleet{out: out, greeted: make([]bool, size), timing: map[string]*digestTiming{}}
}

// time starts timing a digest from `at`, when the hub's source began to serve it.
func (f *fleet) time(digest string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.timing[digest] = &digestTiming{at: at, held: make([]time.Duration, len(f.greeted)), counted: make([]bool, len(f.greeted))}
}

func (f *fleet) greet(agent int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.greeted[agent] {
		return
	}
	f.greeted[agent] = true
	f.greetedCount++
	if f.greetedCount == len(f.greeted) {
		f.onAllGreeted()
	}
}

// holds records that `agent` holds an assignment of `digest`, now.
func (f *fleet) holds(agent int, digest string) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.timing[digest]
	if t == nil || t.counted[agent] {
		return
	}
	t.counted[agent] = true
	t.held[agent] = now.Sub(t.at)
	t.count++
	if t.count < len(t.held) {
		return
	}
	delete(f.timing, digest)
	sorted := slices.Clone(t.held)
	slices.Sort(sorted)
	q := func(p float64) int64 { return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))].Milliseconds() }
	f.out.say(map[string]any{"event": "acked", "digest": digest, "p50": q(0.5), "p99": q(0.99), "max": sorted[len(sorted)-1].Milliseconds()})
}

func (f *fleet) counts() (greeted, total int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.greetedCount, len(f.greeted)
}
