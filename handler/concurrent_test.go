package handler_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem/memstore"
)

// Each invocation keeps its own deadline guard: one invocation too close
// to its deadline to start a record skips it, while another, running at
// the same time in the same process through the same handler, runs its
// records.
func TestConcurrentInvocationsKeepTheirDeadlines(t *testing.T) {
	t.Parallel()
	b := setup(t)
	started, lateDone := make(chan struct{}), make(chan struct{})
	h := b.wrap(func(ctx context.Context, m events.SQSMessage) ([]byte, error) {
		if m.MessageId == "roomy-1" {
			close(started)
			<-lateDone // the late invocation runs while this one is mid-record
		}
		return []byte("ok"), nil
	}, func(c *handler.Config) { c.DeadlineReserve = 30 * time.Second })

	var late events.SQSEventResponse
	var lateErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(lateDone)
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // under the 30 s reserve
		defer cancel()
		late, lateErr = h(ctx, events.SQSEvent{Records: []events.SQSMessage{handlerbundle.Msg("late-1", "kl1"), handlerbundle.Msg("late-2", "kl2")}})
	})
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("roomy-1", "kr1"), handlerbundle.Msg("roomy-2", "kr2")))
	wg.Wait()
	if lateErr != nil {
		t.Fatal(lateErr)
	}
	handlerbundle.WantIDs(t, handlerbundle.IDs(late), "late-1", "late-2")
	for _, id := range []string{"late-1", "late-2"} {
		if err := b.Failure(id); !errors.Is(err, handler.ErrDeadline) {
			t.Errorf("%s: %v, want ErrDeadline", id, err)
		}
		if n := b.CallCount(id); n != 0 {
			t.Errorf("%s ran %d times past its invocation's guard", id, n)
		}
	}
}

// waitLogged waits until the bundle's logs hold a line with msg, or stop
// is closed.
func (b *bundle) waitLogged(msg string, stop <-chan struct{}) {
	for len(b.Logged(msg)) == 0 {
		select {
		case <-stop:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

const waitingLine = "idemq: key in flight in another batch of this process; waiting for its outcome"

// overlap invokes h with first, and, once first's record firstID is
// running, with second: first's work blocks until release is closed, which
// happens once the second batch logs that it waits for the key in flight
// (or, should it not wait, once it is done). It returns each batch's
// failed message ids.
func (b *bundle) overlap(h handler.Handler, release chan struct{}, firstID string, first, second []events.SQSMessage) (firstFailed, secondFailed []string) {
	secondDone := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { firstFailed = b.Invoke(h, first...) })
	wg.Go(func() {
		b.waitLogged(waitingLine, secondDone)
		close(release)
	})
	for b.CallCount(firstID) < 1 {
		time.Sleep(time.Millisecond)
	}
	secondFailed = b.Invoke(h, second...)
	close(secondDone)
	wg.Wait()
	return firstFailed, secondFailed
}

// A batch that meets a key another batch of the process is running waits
// for it and takes its outcome: one claim, one execution, and the copy
// acknowledged with the first batch's result, not given back to the queue
// in progress until the lease ends.
func TestConcurrentInvocationsShareAKeyInFlight(t *testing.T) {
	t.Parallel()
	b := setup(t)
	store := &countingStore{Store: b.store}
	release := make(chan struct{})
	h := b.WrapStore(store, func(_ context.Context, m events.SQSMessage) ([]byte, error) {
		<-release
		return []byte("result:" + m.MessageId), nil
	})
	// Once the first batch runs the key, the second meets it.
	first, second := b.overlap(h, release, "a1",
		[]events.SQSMessage{handlerbundle.Msg("a1", "shared"), handlerbundle.Msg("a2", "own-a")}, []events.SQSMessage{handlerbundle.Msg("b1", "shared")})
	handlerbundle.WantIDs(t, first)
	handlerbundle.WantIDs(t, second)
	if got, _ := b.Replayed("b1"); got != "result:a1" {
		t.Errorf("b1 replayed %q, want a1's result", got)
	}
	if n := b.CallCount("a1") + b.CallCount("b1"); n != 1 {
		t.Errorf("the shared key ran %d times, want 1", n)
	}
	if n := store.claimCount(); n != 2 { // shared (once) and own-a
		t.Errorf("%d claims, want 2: the waiting batch must not claim", n)
	}
	// The waiting batch counts b1 as a copy: no store request answered it.
	for _, line := range b.Logged("idemq: batch") {
		if line["records"] == 1.0 && (line["copies"] != 1.0 || line["stored_replays"] != 0.0 || line["provider_calls_avoided"] != 1.0) {
			t.Errorf("the waiting batch's summary %v; want b1 counted as a copy", line)
		}
	}
}

// When the batch running the key fails it, the waiting batch claims the
// key itself and runs it, as it would had it come a moment later.
func TestConcurrentInvocationsRetryAFailedFlight(t *testing.T) {
	t.Parallel()
	b := setup(t)
	release := make(chan struct{})
	h := b.wrap(func(_ context.Context, m events.SQSMessage) ([]byte, error) {
		if m.MessageId == "a1" {
			<-release
			return nil, errors.New("the model is overloaded")
		}
		return []byte("result:" + m.MessageId), nil
	})
	first, second := b.overlap(h, release, "a1", []events.SQSMessage{handlerbundle.Msg("a1", "shared")}, []events.SQSMessage{handlerbundle.Msg("b1", "shared")})
	handlerbundle.WantIDs(t, first, "a1")
	handlerbundle.WantIDs(t, second)
	if b.CallCount("b1") != 1 {
		t.Errorf("b1 ran %d times, want 1 (after a1 failed)", b.CallCount("b1"))
	}
}

// A result too large to store is handed to a batch waiting for the key in
// flight, as to a copy in the same batch: its leader ran here and holds
// the fresh result, so the replay hook gets it rather than nothing.
func TestConcurrentInvocationsShareAnOmittedResultInFlight(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.store = must(memstore.New(memstore.WithMaxResultBytes(4)))
	release := make(chan struct{})
	h := b.wrap(func(_ context.Context, m events.SQSMessage) ([]byte, error) {
		<-release
		return []byte("result:" + m.MessageId), nil
	})
	first, second := b.overlap(h, release, "a1", []events.SQSMessage{handlerbundle.Msg("a1", "shared")}, []events.SQSMessage{handlerbundle.Msg("b1", "shared")})
	handlerbundle.WantIDs(t, first)
	handlerbundle.WantIDs(t, second)
	if got, ok := b.Replayed("b1"); !ok || got != "result:a1" {
		t.Errorf("b1 replayed %q (%v), want a1's fresh result", got, ok)
	}
	if n := b.CallCount("a1") + b.CallCount("b1"); n != 1 {
		t.Errorf("the shared key ran %d times, want 1", n)
	}
}
