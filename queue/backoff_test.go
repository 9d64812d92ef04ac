package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemq/idemq/queue"
)

// Each wait is the current step plus up to half of it; steps double from
// Min and stop at Max; Reset starts over.
func TestBackoff(t *testing.T) {
	t.Parallel()
	b := queue.Backoff{Min: 100 * time.Millisecond, Max: 400 * time.Millisecond}
	for _, step := range []time.Duration{100, 200, 400, 400} {
		step *= time.Millisecond
		if d := b.Wait(); d < step || d > step+step/2 {
			t.Errorf("wait %v, want within [%v, %v]", d, step, step+step/2)
		}
	}
	b.Reset()
	if d := b.Wait(); d < b.Min || d > b.Min+b.Min/2 {
		t.Errorf("after Reset: wait %v, want within [%v, %v]", d, b.Min, b.Min+b.Min/2)
	}
	var zero queue.Backoff
	if d := zero.Wait(); d != 0 {
		t.Errorf("zero Backoff waits %v, want 0", d)
	}
}

// Sleep reports whether its time passed: not when the context ended first.
func TestSleep(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if queue.Sleep(ctx, time.Hour) {
		t.Error("Sleep on an ended context reported the hour passed")
	}
	if !queue.Sleep(context.Background(), time.Millisecond) {
		t.Error("Sleep of 1 ms on a live context reported it did not pass")
	}
}
