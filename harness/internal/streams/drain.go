package streams

import (
	"context"
	"time"

	"github.com/idemq/idemq/handler/stream/streamtest"
)

// drainFunc drains a shard until the producer is done and the shard has
// nothing past its checkpoint.
type drainFunc func(ctx context.Context, m streamtest.Mapping, produced <-chan struct{}) (totals, error)

type totals struct{ givenUp int }

// pollInterval is how long a drained shard waits before it is read
// again while the producer puts (Lambda polls a shard about once a
// second; a run is seconds long).
const pollInterval = 20 * time.Millisecond

// drainLoop drives streamtest.Drain over shard from its checkpoint until
// the producer is done and a drain that began after it found the shard
// read to its end.
func drainLoop[R streamtest.Record, H streamtest.Handler](ctx context.Context, shard streamtest.Reader[R], h H, m streamtest.Mapping, produced <-chan struct{}) (totals, error) {
	var t totals
	from := resumed[R]{r: shard}
	for {
		done := false
		select {
		case <-produced:
			done = true
		default:
		}
		res, err := streamtest.Drain(ctx, from, h, m)
		t.givenUp += len(res.OnFailure)
		if res.Checkpoint != "" {
			from.start = res.Checkpoint
		}
		if err != nil || done {
			return t, err
		}
		select {
		case <-ctx.Done():
			return t, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// resumed reads a shard from a checkpoint a previous Drain left.
type resumed[R streamtest.Record] struct {
	r     streamtest.Reader[R]
	start string
}

func (f resumed[R]) Read(ctx context.Context, after string, max int) ([]R, error) {
	if after == "" {
		after = f.start
	}
	return f.r.Read(ctx, after, max)
}
