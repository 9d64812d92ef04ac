package sim

import (
	"fmt"

	"github.com/idemq/idemq/idem/memstore"
)

// exec is one idem.Do on one worker: its claim of a key and everything
// that followed from it. Its label (e1, e2, ...) stands for the claim's
// random owner token in the trace, so a seed's trace replays exactly.
type exec struct {
	n     int
	key   string
	owner string
	beat  *beat // its heartbeat's gate; nil without a heartbeat

	claimed   bool // a Claim by owner was applied: the record was ours
	called    bool // the provider was called (and did not answer an error)
	completed bool // a Complete by owner was applied
	value     []byte
	staged    int // writes the work staged

	found      *exec // the claim found the key COMPLETED by this execution
	superseded *exec // held the key when our Complete was applied
	refused    bool  // our Complete was refused (not applied)
	down       bool  // the store is down for our Complete and its retries (Config.Outage)
	// completeRequests is how many Complete requests our completion sent:
	// at most Config.ClientAttempts, the client's, since idem.Do sends it
	// once.
	completeRequests int
	// allowance says why the key may reach the provider once more because
	// of this execution; empty: it may not.
	allowance string
}

func (ex *exec) String() string { return fmt.Sprintf("e%d", ex.n) }

// writeKey is where ex's i-th staged write counts its commits.
func (ex *exec) writeKey(i int) string { return fmt.Sprintf("%s/write%d", ex, i) }

// commits is how many of ex's staged writes the store committed, and
// whether any was committed more than once.
func (ex *exec) commits(s *memstore.Store) (n int, twice bool) {
	for i := range ex.staged {
		v, _ := s.Value(ex.writeKey(i))
		if len(v) > 0 {
			n++
		}
		twice = twice || len(v) > 1
	}
	return n, twice
}
