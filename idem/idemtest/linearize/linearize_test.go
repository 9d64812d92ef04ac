package linearize_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest/linearize"
	"github.com/idemq/idemq/idem/internal/lintest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/storekit"
)

// Clocks four times the bound apart: a client whose clock runs ahead
// takes over a lease whose holder, its clock behind, still counts on it,
// and the check finds it; the history's picture is written.
func TestLinearizableFindsSkewBeyondTheBound(t *testing.T) {
	t.Parallel()
	s, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	cfg := linearize.Config{Operations: 1500, ClockSkew: 50 * time.Millisecond, ClockOffset: 200 * time.Millisecond,
		Name: "skew-beyond-the-bound", PictureDir: t.ArtifactDir() + string(os.PathListSeparator) + lintest.Pictures()}
	h, err := linearize.Record(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = h.Check()
	t.Log(h.Report)
	lin, ok := errors.AsType[*linearize.LinearizationError](err)
	if !ok || !errors.Is(err, linearize.ErrNotLinearizable) {
		t.Fatalf("clocks ±%s with a bound of %s: %v, want the history not linearizable", cfg.ClockOffset, cfg.ClockSkew, err)
	}
	if len(lin.Pictures) == 0 {
		t.Fatal("no picture written")
	}
	for _, p := range lin.Pictures {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("took over INPROGRESS")) {
			t.Errorf("picture %s: %d bytes, %v; want porcupine's page with the take-over", p, len(b), err)
		}
	}
}

// A store that breaks one rule of the record, each a way stores have been
// wrong: the check finds each.
func TestLinearizableFindsBrokenStores(t *testing.T) {
	t.Parallel()
	for _, m := range []mutation{claimIgnoresLease, completeIgnoresOwner, releaseDeletesCompleted} {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			// Many pauses: a paused client's late write must meet the
			// key held by the client that took it over. 3,000
			// operations: about 16 stray releases after a completion,
			// where 1,000 made about 5 and once none met the mutation.
			h, err := linearize.Record(&mutant{m: m, records: map[idem.Key]idem.Record{}}, linearize.Config{Operations: 3000, Pauses: 0.25})
			if err != nil {
				t.Fatal(err)
			}
			err = h.Check()
			t.Log(h.Report)
			if !errors.Is(err, linearize.ErrNotLinearizable) {
				t.Fatalf("%s: %v, want the history not linearizable", m, err)
			}
		})
	}
}

// mutation is the rule a mutant store breaks.
type mutation int

const (
	// claimIgnoresLease takes over an IN_PROGRESS record whatever its
	// lease: a claim without the lease condition.
	claimIgnoresLease mutation = iota
	// completeIgnoresOwner completes an IN_PROGRESS record whoever owns
	// it: a completion without the owner fence.
	completeIgnoresOwner
	// releaseDeletesCompleted deletes its owner's record whatever its
	// status: a release that deletes a completed record.
	releaseDeletesCompleted
)

func (m mutation) String() string {
	return [...]string{"claim without the lease condition", "completion without the owner fence", "release deleting a completed record"}[m]
}

// mutant is a store that is right but for its mutation.
type mutant struct {
	m       mutation
	mu      sync.Mutex
	records map[idem.Key]idem.Record
}

func (s *mutant) Claim(_ context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.records[req.Key]
	if ok && old.Status == idem.StatusInProgress && old.Owner == req.Owner {
		return idem.Claim{Claimed: true}, nil
	}
	claimable := !ok || old.Claimable(req.Now) || s.m == claimIgnoresLease && old.Status == idem.StatusInProgress
	if !claimable {
		return idem.Claim{Record: old}, nil
	}
	s.records[req.Key] = idem.Record{Key: req.Key, Status: idem.StatusInProgress, Owner: req.Owner,
		LeaseUntil: req.LeaseUntil.Truncate(time.Millisecond), ExpiresAt: time.Unix(storekit.ExpirySeconds(req.ExpiresAt), 0)}
	c := idem.Claim{Claimed: true}
	if ok {
		c.Previous = &old
	}
	return c, nil
}

func (s *mutant) Complete(_ context.Context, c idem.Completion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[c.Key]
	if ok && rec.Status == idem.StatusCompleted && rec.Owner == c.Owner && bytes.Equal(rec.Result, c.Result) {
		return nil
	}
	if !ok || rec.Status != idem.StatusInProgress || rec.Owner != c.Owner && s.m != completeIgnoresOwner {
		return &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: c.Owner}
	}
	s.records[c.Key] = idem.Record{Key: c.Key, Status: idem.StatusCompleted, Owner: c.Owner, Result: bytes.Clone(c.Result),
		ExpiresAt: time.Unix(storekit.ExpirySeconds(c.ExpiresAt), 0)}
	return nil
}

func (s *mutant) Release(_ context.Context, key idem.Key, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[key]
	if !ok || rec.Owner != owner || rec.Status != idem.StatusInProgress && s.m != releaseDeletesCompleted {
		return &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: owner}
	}
	delete(s.records, key)
	return nil
}

func (s *mutant) Extend(_ context.Context, e idem.Extension) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[e.Key]
	if !ok || rec.Owner != e.Owner || rec.Status != idem.StatusInProgress {
		return &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: e.Owner}
	}
	rec.LeaseUntil = e.LeaseUntil.Truncate(time.Millisecond)
	if !e.ExpiresAt.IsZero() {
		rec.ExpiresAt = time.Unix(storekit.ExpirySeconds(e.ExpiresAt), 0)
	}
	s.records[e.Key] = rec
	return nil
}

func (s *mutant) Get(_ context.Context, key idem.Key) (idem.Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[key]
	return rec, ok, nil
}
