package streams

import (
	"context"
	"sync"
)

// dying is an invocation that dies at its first provider call: its
// context is cancelled there, so nothing it does after reaches the
// store (the claim stays in progress until its lease ends), and the
// mapping learns at once that the invocation ended without an answer.
type dying struct {
	cancel context.CancelFunc
	once   sync.Once
	died   chan struct{}
}

type dyingKey struct{}

// withDying returns ctx carrying a dying invocation, and the invocation.
func withDying(ctx context.Context) (context.Context, *dying) {
	ctx, cancel := context.WithCancel(ctx)
	d := &dying{cancel: cancel, died: make(chan struct{})}
	return context.WithValue(ctx, dyingKey{}, d), d
}

// die kills the invocation of ctx, if it is a dying one, and reports
// whether it did (the first time only).
func die(ctx context.Context) bool {
	d, ok := ctx.Value(dyingKey{}).(*dying)
	if !ok {
		return false
	}
	killed := false
	d.once.Do(func() {
		d.cancel()
		close(d.died)
		killed = true
	})
	return killed
}

// dead reports whether ctx belongs to an invocation that died.
func dead(ctx context.Context) bool {
	d, ok := ctx.Value(dyingKey{}).(*dying)
	if !ok {
		return false
	}
	select {
	case <-d.died:
		return true
	default:
		return false
	}
}
