package memstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
)

// Every store reads a record the same way.
var _ idemtest.Getter = (*memstore.Store)(nil)

func TestConformance(t *testing.T) {
	idemtest.Run(t, func(*testing.T) idem.Store { return must(memstore.New()) })
}

// A negative result limit is refused when the store is made, as pgstore
// and redisstore refuse theirs, naming the setting; 0 takes the default.
func TestWithMaxResultBytesRefusesNegative(t *testing.T) {
	t.Parallel()
	_, err := memstore.New(memstore.WithMaxResultBytes(-1))
	if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != "memstore" || bad.Field != "MaxResultBytes" {
		t.Errorf("WithMaxResultBytes(-1): err %v, want an *idem.ConfigError naming memstore's MaxResultBytes", err)
	}
	if _, err := memstore.New(nil); err == nil {
		t.Error("a nil option: no error")
	}
	s, err := memstore.New(memstore.WithMaxResultBytes(0))
	if err != nil {
		t.Fatalf("WithMaxResultBytes(0): %v, want the default", err)
	}
	key := idem.Key("k#default")
	if _, err := idem.Do(context.Background(), s, key, "", func(context.Context) ([]byte, error) {
		return make([]byte, memstore.DefaultMaxResultBytes), nil
	}, func(c *idem.Config) { c.CompressAbove = -1 }); err != nil {
		t.Errorf("a result of DefaultMaxResultBytes under WithMaxResultBytes(0): %v", err)
	}
}

// claimed returns a store with key "k" claimed by owner "o".
func claimed(t *testing.T) (*memstore.Store, time.Time) {
	t.Helper()
	s := must(memstore.New())
	now := time.Now()
	c, err := s.Claim(context.Background(), idem.ClaimRequest{
		Key: "k", Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour),
	})
	if err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	return s, now
}

func put(key, value string) memstore.Write {
	return func(tx *memstore.Tx) error { tx.Put(key, []byte(value)); return nil }
}

// The writes of one completion apply with the record or not at all: a
// write that panics or fails leaves the record IN_PROGRESS, still its
// owner's, and no write's change visible, not even an earlier one's.
func TestStagedWritesAllOrNothing(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for name, last := range map[string]memstore.Write{
		"panics":  func(*memstore.Tx) error { panic("boom") },
		"fails":   func(*memstore.Tx) error { return boom },
		"is nil":  nil,
		"deletes": func(tx *memstore.Tx) error { tx.Delete("a"); panic("after a delete") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, now := claimed(t)
			err := s.Complete(context.Background(), idem.Completion{
				Key: "k", Owner: "o", Result: []byte("r"), ExpiresAt: now.Add(time.Hour),
				Writes: []any{put("a", "1"), put("b", "2"), last},
			})
			if !errors.Is(err, memstore.ErrWriteFailed) {
				t.Fatalf("Complete: %v, want memstore.ErrWriteFailed", err)
			}
			if name == "fails" && !errors.Is(err, boom) {
				t.Errorf("Complete: %v, want the write's own error wrapped", err)
			}
			rec, ok := idemtest.MustGet(t, s, "k")
			if !ok || rec.Status != idem.StatusInProgress || rec.Owner != "o" || rec.Result != nil {
				t.Fatalf("record %+v, %v; want IN_PROGRESS, still owned by o, no result", rec, ok)
			}
			for _, k := range []string{"a", "b"} {
				if v, ok := s.Value(k); ok {
					t.Errorf("value %s = %q after the failed completion, want none", k, v)
				}
			}
			// The owner can still settle the key: release it, or complete it.
			if err := s.Complete(context.Background(), idem.Completion{
				Key: "k", Owner: "o", Result: []byte("r"), ExpiresAt: now.Add(time.Hour), Writes: []any{put("a", "1")},
			}); err != nil {
				t.Fatalf("Complete after the failed one: %v", err)
			}
			if v, _ := s.Value("a"); string(v) != "1" {
				t.Errorf("value a = %q, want 1", v)
			}
		})
	}
}

// The writes of one completion see each other's changes, in order, and
// apply together; a retry of the completion does not run them again.
func TestStagedWritesCommit(t *testing.T) {
	t.Parallel()
	s, now := claimed(t)
	incr := func(tx *memstore.Tx) error {
		v, _ := tx.Get("n")
		tx.Put("n", append(v, '+'))
		return nil
	}
	comp := idem.Completion{
		Key: "k", Owner: "o", Result: []byte("r"), ExpiresAt: now.Add(time.Hour),
		Writes: []any{put("a", "1"), memstore.Write(incr), memstore.Write(incr), memstore.Write(func(tx *memstore.Tx) error {
			if v, ok := tx.Get("a"); !ok || string(v) != "1" {
				t.Errorf("a later write reads a = %q, %v; want the earlier write's 1", v, ok)
			}
			tx.Delete("a")
			return nil
		})},
	}
	for range 2 { // the second is a retry whose answer was lost
		if err := s.Complete(context.Background(), comp); err != nil {
			t.Fatal(err)
		}
	}
	if rec, _ := idemtest.MustGet(t, s, "k"); rec.Status != idem.StatusCompleted {
		t.Fatalf("record %s, want COMPLETED", rec.Status)
	}
	if v, ok := s.Value("n"); string(v) != "++" {
		t.Errorf("n = %q, %v; want ++: two increments, once", v, ok)
	}
	if v, ok := s.Value("a"); ok {
		t.Errorf("a = %q, want deleted", v)
	}
}

// Through idem.Do, a failed staged write is a failed completion: the key is
// released with nothing written, and the next call runs the work again.
func TestStagedWriteFailsDo(t *testing.T) {
	t.Parallel()
	s := must(memstore.New())
	calls := 0
	fail := true
	work := func(ctx context.Context) ([]byte, error) {
		calls++
		if err := idem.Stage(ctx, put("sent", "yes")); err != nil {
			return nil, err
		}
		return []byte("done"), idem.Stage(ctx, memstore.Write(func(*memstore.Tx) error {
			if fail {
				panic("write broke")
			}
			return nil
		}))
	}
	_, err := idem.Do(context.Background(), s, "k#1", "", work)
	if !errors.Is(err, memstore.ErrWriteFailed) {
		t.Fatalf("Do: %v, want memstore.ErrWriteFailed", err)
	}
	if _, ok := idemtest.MustGet(t, s, "k#1"); ok {
		t.Error("the claim was kept after the failed completion; want it released")
	}
	if v, ok := s.Value("sent"); ok {
		t.Errorf("sent = %q after the failed completion, want nothing", v)
	}
	fail = false
	r, err := idem.Do(context.Background(), s, "k#1", "", work)
	if err != nil || r.Outcome != idem.Executed || calls != 2 {
		t.Fatalf("retry: %+v, %v, %d calls; want executed on the second call", r, err, calls)
	}
	if v, _ := s.Value("sent"); string(v) != "yes" {
		t.Errorf("sent = %q, want yes", v)
	}
}
