package streams

import (
	"fmt"
	"math/rand/v2"
)

// put is one record the producer puts.
type put struct {
	key, partition string
	resend         bool
}

// plan is a run's records in the order the producer puts them, and each
// key's partition.
type plan struct {
	puts      []put
	keys      []string          // in the order of their first records
	partition map[string]string // key → partition key
	failFirst map[string]bool   // keys whose first provider call fails
}

func newPlan(cfg Config, r *rand.Rand) plan {
	p := plan{partition: map[string]string{}, failFirst: map[string]bool{}}
	later := map[int][]put{} // index of an original → the re-sends put after it
	for i := range cfg.Keys {
		k := fmt.Sprintf("req-%05d", i)
		pk := fmt.Sprintf("part-%02d", r.IntN(cfg.Partitions))
		p.keys = append(p.keys, k)
		p.partition[k] = pk
		if r.Float64() < cfg.FailFirst {
			p.failFirst[k] = true
		}
		if r.Float64() < cfg.Resend {
			at := min(cfg.Keys-1, i+1+r.IntN(30))
			later[at] = append(later[at], put{key: k, partition: pk, resend: true})
		}
	}
	for i, k := range p.keys {
		p.puts = append(p.puts, put{key: k, partition: p.partition[k]})
		p.puts = append(p.puts, later[i]...)
	}
	return p
}

// resent is how many records are re-sends.
func (p plan) resent() int {
	n := 0
	for _, q := range p.puts {
		if q.resend {
			n++
		}
	}
	return n
}
