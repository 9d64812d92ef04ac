package handler

import (
	"sync"

	"github.com/idemq/idemq/idem"
)

// flights are the keys a batch of one wrapped handler is claiming and
// running right now. When the runtime runs invocations side by side
// (Lambda Managed Instances), a batch that meets a key another batch of
// the process is running waits for that batch's outcome and takes it, as
// a copy of a key within a batch takes its first record's: one claim, one
// execution, and the copy acknowledged as soon as the key completes,
// rather than found in progress and given back to the queue until the
// lease ends. Whoever waits leads nothing while waiting (a flight
// finishes when the record that leads it has a fate), so waits cannot
// form a cycle.
type flights struct {
	mu sync.Mutex
	m  map[idem.Key]*flight
}

// flight is one key being settled by one record.
type flight struct {
	fp         string        // the leading record's fingerprint
	done       chan struct{} // closed when leaderFate is set
	leaderFate fate          // the leading record's fate; zero: no outcome
}

// join returns the key's flight and false if one is under way, or starts
// one, led by the caller, and returns it and true.
func (fs *flights) join(key idem.Key, fp string) (*flight, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[key]; ok {
		return f, false
	}
	if fs.m == nil {
		fs.m = make(map[idem.Key]*flight)
	}
	f := &flight{fp: fp, done: make(chan struct{})}
	fs.m[key] = f
	return f, true
}

// finish ends the flight with its leading record's fate and wakes those
// waiting for it.
func (fs *flights) finish(key idem.Key, f *flight, leaderFate fate) {
	f.leaderFate = leaderFate
	fs.mu.Lock()
	if fs.m[key] == f {
		delete(fs.m, key)
	}
	fs.mu.Unlock()
	close(f.done)
}
