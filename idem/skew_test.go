package idem_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// offsetClock is a worker's clock, off the true time by a fixed amount.
type offsetClock struct {
	truth  *setup
	offset time.Duration
}

func (c offsetClock) Now() time.Time { return c.truth.Now().Add(c.offset) }

// The clock-skew bound: with A's clock the bound behind the truth and B's
// the bound ahead (the worst two clocks within it), B cannot take over
// A's claim until A's lease has passed in true time, by A's own count;
// and, its clock as far again ahead (beyond the bound), B takes it over
// while A still counts on it. The expiry is the same: B replaces A's
// completed record only once it has lived its expiry in true time.
func TestClockSkewBound(t *testing.T) {
	t.Parallel()
	const lease, skew = time.Minute, 2 * time.Second
	for _, tc := range []struct {
		name     string
		aheadBy  time.Duration // B's clock, ahead of the truth
		takeOver time.Duration // the first whole millisecond after the claim, in true time, at which B takes over
	}{
		{"within the bound", skew, lease + time.Millisecond},
		{"beyond it", 3 * skew, lease - 2*skew + time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			truth := newSetup(t)
			a := offsetClock{truth, -skew}
			b := offsetClock{truth, tc.aheadBy}
			do := func(clock idem.Clock, value string, opts ...idem.Option) idem.Result {
				r, err := idem.Do(context.Background(), truth.store, "k#skew", "", answer(value),
					append([]idem.Option{func(c *idem.Config) { c.Clock = clock }, func(c *idem.Config) { c.ClockSkew = skew }, idem.WithLease(lease)}, opts...)...)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			start := truth.Now()
			claimed := make(chan struct{})
			proceed := make(chan struct{})
			done := make(chan idem.Result)
			go func() {
				r, _ := idem.Do(context.Background(), truth.store, "k#skew", "", func(context.Context) ([]byte, error) {
					close(claimed)
					<-proceed
					return []byte("a"), nil
				}, func(c *idem.Config) { c.Clock = a }, func(c *idem.Config) { c.ClockSkew = skew }, idem.WithLease(lease))
				done <- r
			}()
			<-claimed
			truth.advance(tc.takeOver - time.Millisecond)
			if r := do(b, "b"); r.Outcome != idem.InProgress {
				t.Fatalf("%s after A's claim: %s, want in progress", tc.takeOver-time.Millisecond, r.Outcome)
			}
			truth.advance(time.Millisecond)
			if r := do(b, "b", idem.WithExpiry(time.Hour)); r.Outcome != idem.Executed || !r.TookOver {
				t.Fatalf("%s after A's claim: %+v, want B to take over", tc.takeOver, r)
			}
			close(proceed)
			if r := <-done; r.Outcome != idem.Superseded {
				t.Fatalf("A's completion: %s, want superseded", r.Outcome)
			}
			if tc.takeOver < lease {
				return // beyond the bound: A counted on its lease when B took over
			}
			// B completed at start+takeOver by the truth: its record lives
			// an hour of true time, whatever A's clock, behind, says (and
			// as long again as B's clock was ahead, and both paddings).
			completed := start.Add(tc.takeOver)
			truth.now.Store(&completed)
			truth.advance(time.Hour + time.Second)
			if r := do(a, "a2"); r.Outcome != idem.Replayed {
				t.Fatalf("an hour and a second after B completed: %s, want replayed", r.Outcome)
			}
			truth.advance(4*skew + 2*time.Second)
			if r := do(a, "a2"); r.Outcome != idem.Executed || !r.TookOver {
				t.Fatalf("once B's record expired on every clock: %+v, want executed", r)
			}
		})
	}
}

// NewClaim makes the claim Do sends: judged the bound before now, its
// lease and expiry padded by it; a zero Config takes the defaults.
func TestNewClaimAppliesTheBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	req := idem.Config{}.NewClaim("k#1", "o", "fp", now, time.Minute)
	skew := idem.DefaultClockSkew
	if !req.Now.Equal(now.Add(-skew)) || !req.LeaseUntil.Equal(now.Add(time.Minute+skew)) || !req.ExpiresAt.Equal(now.Add(idem.DefaultExpiry+skew)) ||
		req.Key != "k#1" || req.Owner != "o" || req.Fingerprint != "fp" {
		t.Errorf("%+v", req)
	}
	x := idem.Config{ClockSkew: time.Second, Expiry: time.Minute}.NewExtension("k#1", "o", now, time.Hour)
	if !x.LeaseUntil.Equal(now.Add(time.Hour+time.Second)) || !x.ExpiresAt.Equal(now.Add(time.Hour+time.Second)) {
		t.Errorf("%+v: want the lease and, never shorter, the expiry padded by the bound", x)
	}
	s := must(memstore.New())
	if c, err := s.Claim(context.Background(), req); err != nil || !c.Claimed {
		t.Fatal(c, err)
	}
}
