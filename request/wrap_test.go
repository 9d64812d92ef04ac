package request_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/storekit"
	"github.com/idemq/idemq/request"
)

type (
	order struct {
		ID    string `json:"id" idemq:"key"`
		Item  string `json:"item"`
		Count int    `json:"count"`
	}
	receipt struct {
		Order  string `json:"order"`
		Total  int    `json:"total"`
		secret string // not stored: a replay has it empty
	}
)

// counted wraps a function that makes a receipt, counting its runs.
func counted(t *testing.T, store idem.Store, opts ...request.FuncOption) (func(context.Context, order) (receipt, error), *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	fn := func(_ context.Context, o order) (receipt, error) {
		runs.Add(1)
		return receipt{Order: o.ID, Total: 3 * o.Count, secret: "fresh"}, nil
	}
	f, err := request.NewFunc(store, fn, append([]request.FuncOption{request.WithRequest(request.Identity{Namespace: "orders"})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return f, &runs
}

func TestWrapRunsOncePerKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := must(memstore.New())
	f, runs := counted(t, store)
	first, err := f(ctx, order{ID: "o-1", Item: "book", Count: 2})
	if err != nil || first != (receipt{Order: "o-1", Total: 6, secret: "fresh"}) {
		t.Fatalf("first call: %+v %v", first, err)
	}
	again, err := f(ctx, order{ID: "o-1", Item: "book", Count: 2})
	if err != nil || again != (receipt{Order: "o-1", Total: 6}) {
		t.Fatalf("a repeat: %+v %v, want the stored result, decoded", again, err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("%d runs, want 1", n)
	}
	rec, ok, err := store.Get(ctx, "orders#o-1")
	if err != nil || !ok || rec.Status != idem.StatusCompleted || string(rec.Result) != `{"order":"o-1","total":6}` {
		t.Errorf("the record: %+v %v %v, want the result as JSON", rec, ok, err)
	}
	// The same key with another payload is another request: refused.
	if _, err := f(ctx, order{ID: "o-1", Item: "pen", Count: 2}); !errors.Is(err, idem.ErrPayloadMismatch) {
		t.Errorf("another payload: %v, want idem.ErrPayloadMismatch", err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("%d runs, want 1", n)
	}
}

// A key another worker holds is an error a caller matches, naming the
// key and the lease's end; the function does not run.
func TestWrapInProgressIsAnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := must(memstore.New())
	f, runs := counted(t, store)
	now := time.Now()
	until := now.Add(time.Minute)
	if c, err := store.Claim(ctx, idem.ClaimRequest{Key: "orders#o-2", Owner: storekit.NewOwner(), Now: now, LeaseUntil: until, ExpiresAt: now.Add(time.Hour)}); err != nil || !c.Claimed {
		t.Fatal(c, err)
	}
	got, err := f(ctx, order{ID: "o-2"})
	if !errors.Is(err, idem.ErrInProgress) {
		t.Fatalf("%+v %v, want idem.ErrInProgress", got, err)
	}
	busy, ok := errors.AsType[*idem.InProgressError](err)
	// When this worker may take the key over: the lease's end plus the
	// clock-skew bound.
	if want := until.Add(idem.DefaultClockSkew); !ok || busy.Key != "orders#o-2" || busy.LeaseUntil.UnixMilli() != want.UnixMilli() {
		t.Errorf("%#v, want the key and the lease's end plus the clock-skew bound, %v", busy, want)
	}
	if runs.Load() != 0 || got != (receipt{}) {
		t.Errorf("ran %d times, returned %+v", runs.Load(), got)
	}
}

// The function's error comes back and frees the key: a retry runs it.
func TestWrapErrorReleases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := must(memstore.New())
	errDown := errors.New("the provider is down")
	var calls atomic.Int32
	f := must(request.NewFunc(store, func(_ context.Context, o order) (receipt, error) {
		if calls.Add(1) == 1 {
			return receipt{}, errDown
		}
		return receipt{Order: o.ID}, nil
	}, request.WithRequest(request.Identity{Namespace: "orders"})))
	if _, err := f(ctx, order{ID: "o-3"}); !errors.Is(err, errDown) {
		t.Fatalf("%v, want the function's error", err)
	}
	if r, err := f(ctx, order{ID: "o-3"}); err != nil || r.Order != "o-3" || calls.Load() != 2 {
		t.Errorf("the retry: %+v %v after %d calls", r, err, calls.Load())
	}
}

// A request without a key never runs: there is no keyless call.
func TestWrapNeedsAKey(t *testing.T) {
	t.Parallel()
	f, runs := counted(t, must(memstore.New()))
	if _, err := f(context.Background(), order{Item: "book"}); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("%v, want idem.ErrNoKey", err)
	}
	if _, err := f(context.Background(), order{ID: "bad\nkey"}); !errors.Is(err, idem.ErrBadKey) {
		t.Errorf("%v, want idem.ErrBadKey", err)
	}
	if runs.Load() != 0 {
		t.Errorf("ran %d times", runs.Load())
	}
}

type event struct {
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Request string            `json:"request_id"`
}

// A key function serves a request type without key fields; the
// fingerprint fields leave out what changes between retries.
func TestWrapKeyOf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	f := must(request.NewFunc(must(memstore.New()), func(_ context.Context, e event) (string, error) {
		runs.Add(1)
		return "done " + e.Body, nil
	},
		request.WithRequest(request.Identity{Namespace: "api", FingerprintFields: []string{"body"}}),
		request.WithKeyOf(func(e event) (string, error) { return e.Headers["Idempotency-Key"], nil })))
	for _, id := range []string{"r-1", "r-2"} {
		got, err := f(ctx, event{Headers: map[string]string{"Idempotency-Key": "k"}, Body: "b", Request: id})
		if err != nil || got != "done b" {
			t.Fatalf("%s: %q %v", id, got, err)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("%d runs, want 1", runs.Load())
	}
	if _, err := f(ctx, event{Body: "b"}); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("no header: %v, want idem.ErrNoKey", err)
	}
}

// A result that cannot be stored as JSON is an error, and frees the key;
// a stored result that is not a Resp is idem.ErrUnreadableResult.
func TestWrapResultMustBeJSON(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := must(memstore.New())
	f := must(request.NewFunc(store, func(context.Context, order) (chan int, error) { return make(chan int), nil }, request.WithRequest(request.Identity{Namespace: "orders"})))
	if _, err := f(ctx, order{ID: "o-4"}); err == nil {
		t.Fatal("a channel was stored")
	}
	g, _ := counted(t, store)
	if _, err := g(ctx, order{ID: "o-4"}); err != nil {
		t.Fatalf("the key was not freed: %v", err)
	}
	h := must(request.NewFunc(store, func(context.Context, order) (int, error) { return 1, nil }, request.WithRequest(request.Identity{Namespace: "orders"})))
	if _, err := h(ctx, order{ID: "o-4"}); !errors.Is(err, idem.ErrUnreadableResult) {
		t.Errorf("a receipt replayed as an int: %v, want idem.ErrUnreadableResult", err)
	}
}

func TestNewFuncRefuses(t *testing.T) {
	t.Parallel()
	store := must(memstore.New())
	fn := func(context.Context, order) (receipt, error) { return receipt{}, nil }
	eventFn := func(context.Context, event) (string, error) { return "", nil }
	ns := request.WithRequest(request.Identity{Namespace: "orders"})
	for _, tc := range []struct {
		name  string
		err   error
		field string
	}{
		{"a nil store", second(request.NewFunc(nil, fn, ns)), "store"},
		{"a nil function", second(request.NewFunc[order, receipt](store, nil, ns)), "fn"},
		{"a nil option", second(request.NewFunc(store, fn, ns, nil)), "options[1]"},
		{"no namespace", second(request.NewFunc(store, fn)), "Namespace"},
		{"a key attribute", second(request.NewFunc(store, eventFn, request.WithRequest(request.Identity{Namespace: "n", KeyAttribute: "k"}))), "KeyAttribute"},
		{"no key member", second(request.NewFunc(store, eventFn, ns)), "KeyField"},
		{"a fingerprint field that is no member", second(request.NewFunc(store, fn, request.WithRequest(request.Identity{Namespace: "n", FingerprintFields: []string{"nope"}}))), "FingerprintFields"},
		{"a key function of another type", second(request.NewFunc(store, eventFn, ns, request.WithKeyOf(func(order) (string, error) { return "", nil }))), "KeyOf"},
		{"a key function and key fields", second(request.NewFunc(store, fn, ns, request.WithKeyOf(func(order) (string, error) { return "", nil }))), "KeyOf"},
		{"a nil key function: none, so the key member is looked for", second(request.NewFunc(store, eventFn, ns, request.WithKeyOf[event](nil))), "KeyField"},
		{"no stored result", second(request.NewFunc(store, fn, ns, request.WithIdem(func(c *idem.Config) { c.DiscardResult = true }))), "DiscardResult"},
		{"a bad idem setting", second(request.NewFunc(store, fn, ns, request.WithIdem(idem.WithExpiry(-time.Second)))), "Expiry"},
		{"a contradiction", second(request.NewFunc(store, fn, request.WithRequest(request.Identity{Namespace: "n", KeyField: "item"}))), "KeyField"},
	} {
		bad, ok := errors.AsType[*idem.ConfigError](tc.err)
		if !ok || bad.Field != tc.field {
			t.Errorf("%s: %v, want a ConfigError for %s", tc.name, tc.err, tc.field)
		}
	}
}

func second[T any](_ T, err error) error { return err }
