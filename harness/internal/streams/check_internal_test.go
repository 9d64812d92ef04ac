package streams

import (
	"math/rand/v2"
	"testing"
)

// The run's check finds each broken guarantee: a second call, a key
// never called, a key of a partition called before an earlier one.
func TestCheckFindsViolations(t *testing.T) {
	t.Parallel()
	p := plan{keys: []string{"a", "b", "c", "d"}, partition: map[string]string{"a": "p1", "b": "p1", "c": "p2", "d": "p1"}}
	for _, tc := range []struct {
		name                           string
		calls                          []string
		duplicates, missing, disorders int
	}{
		{"in order", []string{"a", "c", "b", "d"}, 0, 0, 0},
		{"other partitions interleave", []string{"c", "a", "b", "a", "d"}, 1, 0, 0},
		{"a key never called", []string{"a", "b", "c"}, 0, 1, 0},
		{"b before a", []string{"b", "a", "c", "d"}, 0, 0, 1},
		{"d before a and b", []string{"d", "c", "a", "b"}, 0, 0, 1}, // one key out of place
	} {
		prov := &provider{calls: map[string]int{}}
		for _, k := range tc.calls {
			prov.calls[k]++
			prov.order = append(prov.order, k)
		}
		rep := &Report{}
		check(rep, p, prov)
		if rep.Duplicates != tc.duplicates || rep.Missing != tc.missing || rep.OrderViolations != tc.disorders || rep.OK() != (tc.duplicates+tc.missing+tc.disorders == 0) {
			t.Errorf("%s: duplicates %d, missing %d, order violations %d, OK %v; want %d, %d, %d (%v)",
				tc.name, rep.Duplicates, rep.Missing, rep.OrderViolations, rep.OK(), tc.duplicates, tc.missing, tc.disorders, rep.Violations)
		}
	}
}

// A plan puts every key once, in order, and each re-send after its
// original.
func TestPlan(t *testing.T) {
	t.Parallel()
	cfg := RunConfig(Kinesis, 7, true)
	p := newPlan(cfg, rand.New(rand.NewPCG(7, 43)))
	seen := map[string]bool{}
	var originals []string
	for _, q := range p.puts {
		if q.resend != seen[q.key] {
			t.Fatalf("%s: re-send %v, seen before %v", q.key, q.resend, seen[q.key])
		}
		if !q.resend {
			originals = append(originals, q.key)
		}
		seen[q.key] = true
		if q.partition != p.partition[q.key] {
			t.Errorf("%s put to %s; its partition is %s", q.key, q.partition, p.partition[q.key])
		}
	}
	if len(originals) != cfg.Keys || p.resent() == 0 || len(p.puts) != cfg.Keys+p.resent() {
		t.Errorf("%d originals, %d re-sends, %d puts; want %d originals and some re-sends", len(originals), p.resent(), len(p.puts), cfg.Keys)
	}
}
