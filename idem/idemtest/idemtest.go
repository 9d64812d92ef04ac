package idemtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
)

// Contenders is how many goroutines race for one key in the concurrency
// cases.
const Contenders = 64

// Run runs the conformance suite against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) idem.Store) {
	t.Helper()
	for _, c := range slices.Concat(cases, encodingCases, adminCases) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, &bundle{store: newStore(t), now: base()})
		})
	}
}

var cases = []testCase{
	{"ClaimAbsentKey", func(t *testing.T, b *bundle) {
		c, _ := b.claim(t, "t#absent", b.now, time.Minute, time.Hour, "fp1")
		wantState(t, c, claimed)
		if c.Previous != nil {
			t.Fatalf("claim of an absent key reports a take-over: %+v", c)
		}
	}},
	{"DuplicateWhileInProgress", func(t *testing.T, b *bundle) {
		lease := 90*time.Second + 123*time.Millisecond
		_, owner := b.claim(t, "t#busy", b.now, lease, time.Hour, "fp1")
		c, _ := b.claim(t, "t#busy", b.now.Add(time.Second), time.Minute, time.Hour, "fp1")
		wantState(t, c, inProgress)
		r := c.Record
		if r.Status != idem.StatusInProgress || r.Owner != owner || r.Fingerprint != "fp1" || r.Key != "t#busy" {
			t.Fatalf("held record %+v, want IN_PROGRESS owned by %s with fingerprint fp1", r, owner)
		}
		if !r.LeaseUntil.Equal(b.now.Add(lease)) {
			t.Fatalf("lease until %s, want %s (millisecond resolution)", r.LeaseUntil, b.now.Add(lease))
		}
	}},
	{"LeaseBoundaryIsStillHeld", func(t *testing.T, b *bundle) {
		b.mustClaim(t, "t#edge", b.now, 5*time.Second)
		c, _ := b.claim(t, "t#edge", b.now.Add(5*time.Second), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		c, _ = b.claim(t, "t#edge", b.now.Add(5*time.Second+time.Millisecond), time.Minute, time.Hour, "")
		wantState(t, c, claimed)
	}},
	{"CompletedResultRoundTrips", func(t *testing.T, b *bundle) {
		results := map[idem.Key][]byte{
			"t#binary": append([]byte{0, 1, 0xff, 0xfe, '\n', 0}, randomBytes(64<<10)...),
			"t#text":   []byte(`{"answer":"ünïcödé ✓"}`),
			"t#empty":  {},
		}
		for key, want := range results {
			owner := b.mustClaim(t, key, b.now, time.Minute)
			if err := b.complete(key, owner, want, b.now.Add(2*time.Hour)); err != nil {
				t.Fatalf("complete %q: %v", key, err)
			}
			c, _ := b.claim(t, key, b.now.Add(time.Hour), time.Minute, time.Hour, "")
			wantState(t, c, completed)
			if !bytes.Equal(c.Record.Result, want) {
				t.Fatalf("%q: stored result differs: got %d bytes, want %d", key, len(c.Record.Result), len(want))
			}
			if c.Record.Status != idem.StatusCompleted || !c.Record.LeaseUntil.IsZero() {
				t.Fatalf("%q: completed record %+v has status %s and lease %s", key, c.Record, c.Record.Status, c.Record.LeaseUntil)
			}
			if c.Record.Encoding != idem.EncodingRaw {
				t.Fatalf("%q: a result stored as it is reads with encoding %q, want none", key, c.Record.Encoding)
			}
			if !c.Record.ExpiresAt.Equal(b.now.Add(2 * time.Hour)) {
				t.Fatalf("%q: expiry %s, want %s", key, c.Record.ExpiresAt, b.now.Add(2*time.Hour))
			}
		}
	}},
	{"ExpiryRoundsUpToTheSecond", func(t *testing.T, b *bundle) {
		owner := b.mustClaim(t, "t#round", b.now, time.Minute)
		if err := b.complete("t#round", owner, []byte("r"), b.now.Add(10*time.Second+time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		c, _ := b.claim(t, "t#round", b.now.Add(11*time.Second), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		if !c.Record.ExpiresAt.Equal(b.now.Add(11 * time.Second)) {
			t.Fatalf("expiry %s, want it rounded up to %s", c.Record.ExpiresAt, b.now.Add(11*time.Second))
		}
	}},
	{"CompletedOutlivesItsLease", func(t *testing.T, b *bundle) {
		owner := b.mustClaim(t, "t#done", b.now, time.Second)
		if err := b.complete("t#done", owner, []byte("r"), b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		c, _ := b.claim(t, "t#done", b.now.Add(59*time.Minute), time.Minute, time.Hour, "")
		wantState(t, c, completed)
	}},
	{"ExpiredCompletedIsReclaimable", func(t *testing.T, b *bundle) {
		owner := b.mustClaim(t, "t#old", b.now, time.Minute)
		if err := b.complete("t#old", owner, []byte("old"), b.now.Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		c, fresh := b.claim(t, "t#old", b.now.Add(time.Hour), time.Minute, time.Hour, "")
		wantState(t, c, claimed)
		if c.Previous == nil || c.Previous.Status != idem.StatusCompleted || string(c.Previous.Result) != "old" {
			t.Fatalf("re-claim of an expired record: %+v, want a take-over of the COMPLETED record", c)
		}
		if err := b.complete("t#old", fresh, []byte("new"), b.now.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}},
	{"TakeOverAfterLease", func(t *testing.T, b *bundle) {
		first := b.mustClaim(t, "t#crash", b.now, time.Second)
		c, second := b.claim(t, "t#crash", b.now.Add(2*time.Second), time.Minute, time.Hour, "")
		wantState(t, c, claimed)
		if c.Previous == nil || c.Previous.Owner != first || c.Previous.Status != idem.StatusInProgress {
			t.Fatalf("take-over: %+v, want a take-over of the previous owner %s", c, first)
		}
		c, _ = b.claim(t, "t#crash", b.now.Add(3*time.Second), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		if c.Record.Owner != second {
			t.Fatalf("owner %s, want the new owner %s", c.Record.Owner, second)
		}
	}},
	{"StaleOwnerIsFenced", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		first := b.mustClaim(t, "t#fence", b.now, time.Second)
		second := b.mustClaim(t, "t#fence", b.now.Add(2*time.Second), time.Minute)
		wantLeaseLost(t, "stale complete", b.complete("t#fence", first, []byte("stale"), b.now.Add(time.Hour)), true)
		wantLeaseLost(t, "stale extend", b.extend("t#fence", first, b.now.Add(time.Hour), b.now.Add(2*time.Hour)), true)
		wantLeaseLost(t, "stale release", b.store.Release(ctx, "t#fence", first), true)
		c, _ := b.claim(t, "t#fence", b.now.Add(3*time.Second), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		if c.Record.Owner != second || !c.Record.LeaseUntil.Equal(b.now.Add(2*time.Second+time.Minute)) {
			t.Fatalf("the stale owner changed the new owner's record: %+v", c.Record)
		}
		if err := b.complete("t#fence", second, []byte("fresh"), b.now.Add(time.Hour)); err != nil {
			t.Fatalf("the new owner cannot complete: %v", err)
		}
		c, _ = b.claim(t, "t#fence", b.now.Add(4*time.Second), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		if string(c.Record.Result) != "fresh" {
			t.Fatalf("result %q, want the new owner's", c.Record.Result)
		}
	}},
	{"ReleaseFreesTheKey", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		owner := b.mustClaim(t, "t#rel", b.now, time.Hour)
		wantLeaseLost(t, "release by another owner", b.store.Release(ctx, "t#rel", idem.NewOwner()), true)
		if err := b.store.Release(ctx, "t#rel", owner); err != nil {
			t.Fatalf("release: %v", err)
		}
		c, _ := b.claim(t, "t#rel", b.now.Add(time.Second), time.Minute, time.Hour, "")
		wantState(t, c, claimed)
		if c.Previous != nil {
			t.Fatalf("claim after release reports a take-over")
		}
		wantLeaseLost(t, "second release", b.store.Release(ctx, "t#rel", owner), true)
	}},
	{"CompletedCannotBeReleasedOrRedone", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		owner := b.mustClaim(t, "t#final", b.now, time.Minute)
		if err := b.complete("t#final", owner, []byte("one"), b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantLeaseLost(t, "release of a completed record", b.store.Release(ctx, "t#final", owner), false)
		wantLeaseLost(t, "second complete with another result", b.complete("t#final", owner, []byte("two"), b.now.Add(time.Hour)), false)
		if err := b.complete("t#final", owner, []byte("one"), b.now.Add(time.Hour)); err != nil {
			t.Fatalf("a retried complete (same owner, same result) must succeed: %v", err)
		}
		wantLeaseLost(t, "another owner's complete with the same result", b.complete("t#final", idem.NewOwner(), []byte("one"), b.now.Add(time.Hour)), true)
		wantLeaseLost(t, "extend of a completed record", b.extend("t#final", owner, b.now.Add(time.Hour), time.Time{}), false)
		c, _ := b.claim(t, "t#final", b.now.Add(time.Second), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		if string(c.Record.Result) != "one" {
			t.Fatalf("result %q, want the first", c.Record.Result)
		}
	}},
	{"AbsentKeyCannotBeSettled", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		owner := idem.NewOwner()
		wantLeaseLost(t, "complete", b.complete("t#none", owner, []byte("x"), b.now.Add(time.Hour)), false)
		wantLeaseLost(t, "release", b.store.Release(ctx, "t#none", owner), false)
		wantLeaseLost(t, "extend", b.extend("t#none", owner, b.now.Add(time.Hour), b.now.Add(2*time.Hour)), false)
		c, _ := b.claim(t, "t#none", b.now, time.Minute, time.Hour, "")
		wantState(t, c, claimed)
	}},
	{"ExtendKeepsTheKey", func(t *testing.T, b *bundle) {
		owner := b.mustClaim(t, "t#long", b.now, time.Second)
		if err := b.extend("t#long", owner, b.now.Add(time.Hour), time.Time{}); err != nil {
			t.Fatalf("extend: %v", err)
		}
		c, _ := b.claim(t, "t#long", b.now.Add(time.Minute), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		if !c.Record.LeaseUntil.Equal(b.now.Add(time.Hour)) {
			t.Fatalf("lease until %s, want %s", c.Record.LeaseUntil, b.now.Add(time.Hour))
		}
	}},
	{"ExtendMovesTheExpiry", func(t *testing.T, b *bundle) {
		// Claimed with a record that expires in 10 s; the extension moves
		// the lease and the expiry an hour on, so a claim after the first
		// expiry still finds the key held.
		_, owner := b.claim(t, "t#renew", b.now, 5*time.Second, 10*time.Second, "")
		if err := b.extend("t#renew", owner, b.now.Add(time.Hour), b.now.Add(2*time.Hour)); err != nil {
			t.Fatalf("extend: %v", err)
		}
		c, _ := b.claim(t, "t#renew", b.now.Add(time.Minute), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		if !c.Record.ExpiresAt.Equal(b.now.Add(2 * time.Hour)) {
			t.Fatalf("expires at %s, want %s", c.Record.ExpiresAt, b.now.Add(2*time.Hour))
		}
	}},
	{"RetriedClaimIsStillClaimed", func(t *testing.T, b *bundle) {
		// A claim applied whose answer was lost, sent again by the SDK.
		req := idem.ClaimRequest{Key: "t#retry", Owner: idem.NewOwner(), Now: b.now, LeaseUntil: b.now.Add(time.Minute), ExpiresAt: b.now.Add(time.Hour)}
		for i := range 2 {
			c, err := b.store.Claim(context.Background(), req)
			if err != nil || !c.Claimed {
				t.Fatalf("attempt %d: %+v, %v; want claimed", i+1, c, err)
			}
		}
		c, _ := b.claim(t, "t#retry", b.now.Add(time.Second), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		if c.Record.Owner != req.Owner {
			t.Fatalf("owner %s, want %s", c.Record.Owner, req.Owner)
		}
	}},
	{"KeysAreIndependent", func(t *testing.T, b *bundle) {
		b.mustClaim(t, "t#a", b.now, time.Hour)
		b.mustClaim(t, "t#b", b.now, time.Hour)
		b.mustClaim(t, "u#a", b.now, time.Hour)
	}},
	{"ResultTooLarge", func(t *testing.T, b *bundle) {
		owner := b.mustClaim(t, "t#big", b.now, time.Minute)
		err := b.complete("t#big", owner, make([]byte, 1<<20), b.now.Add(time.Hour))
		if !errors.Is(err, idem.ErrResultTooLarge) {
			t.Fatalf("complete with 1 MiB: err %v, want idem.ErrResultTooLarge", err)
		}
		// The claim is still the caller's: nothing was lost.
		if err := b.store.Release(context.Background(), "t#big", owner); err != nil {
			t.Fatalf("release after a too-large result: %v", err)
		}
	}},
	{"CompletedWithoutResult", func(t *testing.T, b *bundle) {
		const size = 3 << 20
		owner := b.mustClaim(t, "t#omit", b.now, time.Minute)
		// A result and an encoding given with the marker are ignored.
		omit := idem.Completion{Key: "t#omit", Owner: owner, OmittedBytes: size, ExpiresAt: b.now.Add(2 * time.Hour),
			Result: []byte("ignored"), Encoding: idem.EncodingGzip}
		if err := b.store.Complete(context.Background(), omit); err != nil {
			t.Fatalf("complete without the result: %v", err)
		}
		if err := b.store.Complete(context.Background(), omit); err != nil {
			t.Fatalf("a retried complete (same owner, same marker) must succeed: %v", err)
		}
		wantLeaseLost(t, "complete with a result after the marker", b.complete("t#omit", owner, nil, b.now.Add(2*time.Hour)), false)
		c, _ := b.claim(t, "t#omit", b.now.Add(time.Hour), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		r := c.Record
		if r.OmittedBytes != size || len(r.Result) != 0 || r.Encoding != idem.EncodingRaw || r.Status != idem.StatusCompleted || !r.LeaseUntil.IsZero() {
			t.Fatalf("record %+v: want COMPLETED with OmittedBytes %d, no result and no encoding", r, size)
		}
		if !r.ExpiresAt.Equal(b.now.Add(2 * time.Hour)) {
			t.Fatalf("expiry %s, want %s", r.ExpiresAt, b.now.Add(2*time.Hour))
		}
		// A stored result, even an empty one, carries no marker.
		owner = b.mustClaim(t, "t#kept", b.now, time.Minute)
		if err := b.complete("t#kept", owner, []byte{}, b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantLeaseLost(t, "the marker after a stored result",
			b.store.Complete(context.Background(), idem.Completion{Key: "t#kept", Owner: owner, OmittedBytes: 1, ExpiresAt: b.now.Add(time.Hour)}), false)
		c, _ = b.claim(t, "t#kept", b.now.Add(time.Second), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		if c.Record.OmittedBytes != 0 {
			t.Fatalf("a stored result reads as omitted: %+v", c.Record)
		}
	}},
	{"CompletedWithoutResultIsFenced", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		omit := func(owner string) error {
			return b.store.Complete(ctx, idem.Completion{Key: "t#omitfence", Owner: owner, OmittedBytes: 1 << 20, ExpiresAt: b.now.Add(time.Hour)})
		}
		wantLeaseLost(t, "marker on an absent key", omit(idem.NewOwner()), false)
		first := b.mustClaim(t, "t#omitfence", b.now, time.Second)
		second := b.mustClaim(t, "t#omitfence", b.now.Add(2*time.Second), time.Minute)
		wantLeaseLost(t, "stale marker", omit(first), true)
		c, _ := b.claim(t, "t#omitfence", b.now.Add(3*time.Second), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		if c.Record.Owner != second || c.Record.OmittedBytes != 0 {
			t.Fatalf("the stale owner's marker changed the new owner's record: %+v", c.Record)
		}
		if err := omit(second); err != nil {
			t.Fatalf("the owner cannot complete without the result: %v", err)
		}
		wantLeaseLost(t, "release of a record completed without its result", b.store.Release(ctx, "t#omitfence", second), false)
	}},
	{"ConcurrentClaimsOneWinner", func(t *testing.T, b *bundle) {
		var wins, held atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, Contenders)
		start := make(chan struct{})
		for range Contenders {
			wg.Go(func() {
				<-start
				c, err := b.store.Claim(context.Background(), idem.ClaimRequest{
					Key: "t#race", Owner: idem.NewOwner(), Now: b.now,
					LeaseUntil: b.now.Add(time.Minute), ExpiresAt: b.now.Add(time.Hour),
				})
				switch {
				case err != nil:
					errs <- err
				case c.Claimed:
					wins.Add(1)
				case c.Record.Status == idem.StatusInProgress:
					held.Add(1)
				default:
					errs <- fmt.Errorf("unexpected state %s", c)
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if wins.Load() != 1 || held.Load() != Contenders-1 {
			t.Fatalf("%d claims won and %d saw the key held, want 1 and %d", wins.Load(), held.Load(), Contenders-1)
		}
	}},
	{"ConcurrentTakeOverOneWinner", func(t *testing.T, b *bundle) {
		b.mustClaim(t, "t#crashed", b.now, time.Second)
		later := b.now.Add(time.Minute)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range Contenders {
			wg.Go(func() {
				c, err := b.store.Claim(context.Background(), idem.ClaimRequest{
					Key: "t#crashed", Owner: idem.NewOwner(), Now: later,
					LeaseUntil: later.Add(time.Minute), ExpiresAt: later.Add(time.Hour),
				})
				if err != nil {
					t.Error(err)
					return
				}
				if c.Claimed {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d workers took over one expired lease, want 1", wins.Load())
		}
	}},
	{"DoRunsOncePerKey", func(t *testing.T, b *bundle) {
		var calls atomic.Int32
		var wg sync.WaitGroup
		var executed, replayed, inProgress atomic.Int32
		clock := idem.ClockFunc(func() time.Time { return b.now })
		for range Contenders {
			wg.Go(func() {
				r, err := idem.Do(context.Background(), b.store, "t#do", "fp", func(context.Context) ([]byte, error) {
					calls.Add(1)
					return []byte("answer"), nil
				}, idem.WithClock(clock), idem.WithLease(time.Minute))
				if err != nil {
					t.Error(err)
					return
				}
				switch r.Outcome {
				case idem.Executed:
					executed.Add(1)
				case idem.Replayed:
					replayed.Add(1)
					if string(r.Value) != "answer" {
						t.Errorf("replayed %q", r.Value)
					}
				case idem.InProgress:
					inProgress.Add(1)
				}
			})
		}
		wg.Wait()
		if calls.Load() != 1 || executed.Load() != 1 {
			t.Fatalf("the work ran %d times (%d executed), want once", calls.Load(), executed.Load())
		}
		if replayed.Load()+inProgress.Load() != Contenders-1 {
			t.Fatalf("%d replayed + %d in progress, want %d", replayed.Load(), inProgress.Load(), Contenders-1)
		}
		r, err := idem.Do(context.Background(), b.store, "t#do", "fp", func(context.Context) ([]byte, error) {
			t.Fatal("the work ran again")
			return nil, nil
		}, idem.WithClock(clock))
		if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "answer" {
			t.Fatalf("after completion: %+v, %v; want the stored answer replayed", r, err)
		}
	}},
	{"DoReleasesOnFailure", func(t *testing.T, b *bundle) {
		clock := idem.ClockFunc(func() time.Time { return b.now })
		boom := errors.New("provider said 500")
		_, err := idem.Do(context.Background(), b.store, "t#retry", "", func(context.Context) ([]byte, error) {
			return nil, boom
		}, idem.WithClock(clock))
		var ie *idem.Error
		if !errors.Is(err, boom) || !errors.As(err, &ie) || ie.Key != "t#retry" {
			t.Fatalf("err %v, want the work's error wrapped in *idem.Error for the key", err)
		}
		r, err := idem.Do(context.Background(), b.store, "t#retry", "", func(context.Context) ([]byte, error) {
			return []byte("second try"), nil
		}, idem.WithClock(clock))
		if err != nil || r.Outcome != idem.Executed {
			t.Fatalf("retry after a failure: %+v, %v; want executed", r, err)
		}
	}},
	{"ALostCompletionSentAgainSucceeds", func(t *testing.T, b *bundle) {
		// The first completion is applied and its answer lost; the
		// store's client, a completion's one retry layer, sends it again,
		// and the store must answer success: the result is stored,
		// nothing is released, the work does not run again.
		clock := idem.ClockFunc(func() time.Time { return b.now })
		for key, result := range map[idem.Key][]byte{"t#lostraw": []byte("answer"), "t#lostgzip": Prose(8 << 10)} {
			s := &loseFirstCompletion{Store: b.store}
			r, err := idem.Do(context.Background(), s, key, "", func(context.Context) ([]byte, error) {
				return result, nil
			}, idem.WithClock(clock))
			if err != nil || r.Outcome != idem.Executed {
				t.Fatalf("%s: %+v, %v; want executed", key, r.Outcome, err)
			}
			if s.completes != 2 || s.releases != 0 {
				t.Fatalf("%s: %d completions and %d releases sent, want 2 and none", key, s.completes, s.releases)
			}
			r, err = idem.Do(context.Background(), b.store, key, "", func(context.Context) ([]byte, error) {
				t.Errorf("%s: the work ran again", key)
				return nil, nil
			}, idem.WithClock(clock))
			if err != nil || r.Outcome != idem.Replayed || !bytes.Equal(r.Value, result) {
				t.Fatalf("%s: next call: %s, %v; want the result replayed", key, r.Outcome, err)
			}
		}
	}},
	{"DoSettlesTooLargeResult", func(t *testing.T, b *bundle) {
		clock := idem.ClockFunc(func() time.Time { return b.now })
		var calls atomic.Int32
		// Random bytes: gzip cannot shrink them under any store's limit.
		result := randomBytes(1 << 20)
		big := func(context.Context) ([]byte, error) {
			calls.Add(1)
			return result, nil
		}
		r, err := idem.Do(context.Background(), b.store, "t#huge", "fp", big, idem.WithClock(clock))
		var ie *idem.Error
		if !errors.Is(err, idem.ErrResultTooLarge) || !errors.As(err, &ie) || ie.Key != "t#huge" {
			t.Fatalf("err %v, want idem.ErrResultTooLarge in an *idem.Error for the key", err)
		}
		if r.Outcome != idem.Executed || !r.Omitted || len(r.Value) != 1<<20 {
			t.Fatalf("first call: outcome %s, omitted %v, %d bytes; want executed, omitted, the fresh result", r.Outcome, r.Omitted, len(r.Value))
		}
		for range 2 {
			r, err = idem.Do(context.Background(), b.store, "t#huge", "fp", big, idem.WithClock(clock))
			if err != nil || r.Outcome != idem.Replayed || !r.Omitted || r.Value != nil {
				t.Fatalf("later call: %s, omitted %v, %d bytes, %v; want replayed, omitted, no value", r.Outcome, r.Omitted, len(r.Value), err)
			}
		}
		if calls.Load() != 1 {
			t.Fatalf("the work ran %d times, want once", calls.Load())
		}
		if _, err := idem.Do(context.Background(), b.store, "t#huge", "other", big, idem.WithClock(clock)); !errors.Is(err, idem.ErrPayloadMismatch) {
			t.Fatalf("another payload under the key: err %v, want idem.ErrPayloadMismatch", err)
		}
	}},
	{"DoRejectsPayloadMismatch", func(t *testing.T, b *bundle) {
		clock := idem.ClockFunc(func() time.Time { return b.now })
		work := func(context.Context) ([]byte, error) { return []byte("for A"), nil }
		if _, err := idem.Do(context.Background(), b.store, "t#fp", "A", work, idem.WithClock(clock)); err != nil {
			t.Fatal(err)
		}
		_, err := idem.Do(context.Background(), b.store, "t#fp", "B", work, idem.WithClock(clock))
		if !errors.Is(err, idem.ErrPayloadMismatch) {
			t.Fatalf("a different payload under the same key: err %v, want idem.ErrPayloadMismatch", err)
		}
		r, err := idem.Do(context.Background(), b.store, "t#fp", "A", work, idem.WithClock(clock))
		if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "for A" {
			t.Fatalf("the same payload again: %+v, %v; want a replay", r, err)
		}
	}},
}

// loseFirstCompletion is a store whose first completion is applied, its
// answer lost as when a connection breaks after the server applied it,
// and sent again, as a store's client does (the AWS SDK's retryer,
// go-redis, pgstore's own): the caller gets the second answer. It counts
// the completions sent to the store, and the releases.
type loseFirstCompletion struct {
	idem.Store
	completes, releases int
}

func (s *loseFirstCompletion) Complete(ctx context.Context, c idem.Completion) error {
	s.completes++
	err := s.Store.Complete(ctx, c)
	if s.completes == 1 && err == nil {
		s.completes++
		return s.Store.Complete(ctx, c)
	}
	return err
}

func (s *loseFirstCompletion) Release(ctx context.Context, key idem.Key, owner string) error {
	s.releases++
	return s.Store.Release(ctx, key, owner)
}
