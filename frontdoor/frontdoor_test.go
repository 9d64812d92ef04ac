package frontdoor_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/frontdoorsuite"
)

func TestNewRefusesBadSettings(t *testing.T) {
	t.Parallel()
	store := must(memstore.New())
	q := &frontdoorsuite.Queue{}
	ns := frontdoor.WithNamespace("w")
	for _, tc := range []struct {
		name  string
		store frontdoor.Store
		q     frontdoor.Enqueuer
		opts  []frontdoor.Option
		field string
	}{
		{"nil store", nil, q, []frontdoor.Option{ns}, "store"},
		{"nil enqueuer", store, nil, []frontdoor.Option{ns}, "enqueuer"},
		{"nil option", store, q, []frontdoor.Option{ns, nil}, "options[1]"},
		{"no namespace", store, q, nil, "Namespace"},
		{"accept namespace is the worker's", store, q, []frontdoor.Option{ns, frontdoor.WithAcceptNamespace("w")}, "AcceptNamespace"},
		{"dotted key field", store, q, []frontdoor.Option{ns, frontdoor.WithKeyField("request.id")}, "KeyField"},
		{"relative path", store, q, []frontdoor.Option{ns, frontdoor.WithPath("requests")}, "Path"},
		{"path ending in a slash", store, q, []frontdoor.Option{ns, frontdoor.WithPath("/requests/")}, "Path"},
		{"negative body size", store, q, []frontdoor.Option{ns, frontdoor.WithMaxBodyBytes(-1)}, "MaxBodyBytes"},
		{"negative timeout", store, q, []frontdoor.Option{ns, frontdoor.WithEnqueueTimeout(-1)}, "EnqueueTimeout"},
		{"idem setting", store, q, []frontdoor.Option{ns, frontdoor.WithIdem(idem.WithExpiry(-1))}, "Expiry"},
	} {
		_, err := frontdoor.New(tc.store, tc.q, tc.opts...)
		bad, ok := errors.AsType[*idem.ConfigError](err)
		if !ok || bad.Field != tc.field {
			t.Errorf("%s: %v, want a ConfigError for %s", tc.name, err, tc.field)
		}
	}
	if _, err := frontdoor.New(store, q, ns); err != nil {
		t.Errorf("only a namespace: %v", err)
	}
}

// With KeyOptional a POST without a key is enqueued under a key of its
// own, which the answer names; each such POST is a new request.
func TestKeyOptional(t *testing.T) {
	t.Parallel()
	q := &frontdoorsuite.Queue{}
	fd := must(frontdoor.New(must(memstore.New()), q, frontdoor.WithNamespace("w"), frontdoor.WithKeyOptional()))
	var keys []string
	for range 2 {
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/requests", strings.NewReader(`{"prompt":"p"}`)))
		if w.Code != http.StatusAccepted {
			t.Fatalf("%d %s, want 202", w.Code, w.Body)
		}
		key, err := strconv.Unquote(w.Header().Get(frontdoor.HeaderKey))
		if err != nil || key == "" || w.Header().Get("Location") != "/requests/"+key {
			t.Fatalf("Idempotency-Key %q, Location %q", w.Header().Get(frontdoor.HeaderKey), w.Header().Get("Location"))
		}
		keys = append(keys, key)
	}
	msgs := q.Messages()
	if len(msgs) != 2 || keys[0] == keys[1] || msgs[0].Key != keys[0] || msgs[1].Key != keys[1] {
		t.Errorf("keys %v, enqueued %v: want two requests under their own keys", keys, msgs)
	}
}

// memBlobs is an idem.Blobs in memory.
type memBlobs struct {
	mu      sync.Mutex
	objects map[string][]byte
}

func (b *memBlobs) Put(_ context.Context, name string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.objects[name] = slices.Clone(data)
	return nil
}

func (b *memBlobs) Get(_ context.Context, name string, size int) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, ok := b.objects[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, idem.ErrBlobMissing)
	}
	return slices.Clone(data), nil
}

// A result the worker offloaded to its blob store is read from there; a
// front door without the blob store cannot read it (500), and a result
// the store could not keep is 204 with its size.
func TestStatusReadsEveryStoredForm(t *testing.T) {
	t.Parallel()
	store := must(memstore.New(memstore.WithMaxResultBytes(20_000)))
	blobs := &memBlobs{objects: map[string][]byte{}}
	results := map[string][]byte{
		"big":     []byte(hex.EncodeToString(random(8000))), // 16,000 bytes, offloaded
		"huge":    []byte(strings.Repeat("x", 30_000)),      // kept inline, uncompressed: too large, omitted
		"inline":  []byte(`{"summary":"s"}`),
		"unknown": nil,
	}
	work := func(_ context.Context, msg events.SQSMessage) ([]byte, error) { return results[msg.MessageId], nil }
	quiet := handler.WithLogger(slog.New(slog.DiscardHandler))
	offloading := must(handler.New(store, work, handler.WithNamespace("w"), quiet, handler.WithIdem(idem.WithBlobs(blobs), idem.WithOffloadAbove(100))))
	inline := must(handler.New(store, work, handler.WithNamespace("w"), quiet, handler.WithIdem(idem.WithoutCompression())))
	for key, worker := range map[string]handler.Handler{"big": offloading, "huge": inline, "inline": offloading} {
		resp, err := worker(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: key, Body: `{"idempotency_key":"` + key + `"}`}}})
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("worker on %s: %v %v", key, err, resp)
		}
	}
	get := func(fd http.Handler, key string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/requests/"+key, nil))
		return w
	}
	withBlobs := must(frontdoor.New(store, &frontdoorsuite.Queue{}, frontdoor.WithNamespace("w"), frontdoor.WithIdem(idem.WithBlobs(blobs))))
	for _, key := range []string{"big", "inline"} {
		if w := get(withBlobs, key); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), results[key]) {
			t.Errorf("%s: %d, %d bytes; want 200 with the %d bytes stored", key, w.Code, w.Body.Len(), len(results[key]))
		}
	}
	if w := get(withBlobs, "huge"); w.Code != http.StatusNoContent || w.Header().Get(frontdoor.HeaderOmitted) != "30000" {
		t.Errorf("omitted result: %d %s=%q, want 204 with its size", w.Code, frontdoor.HeaderOmitted, w.Header().Get(frontdoor.HeaderOmitted))
	}
	if w := get(withBlobs, "unknown"); w.Code != http.StatusNotFound {
		t.Errorf("unknown: %d, want 404", w.Code)
	}
	without := must(frontdoor.New(store, &frontdoorsuite.Queue{}, frontdoor.WithNamespace("w"), frontdoor.WithLogger(slog.New(slog.DiscardHandler))))
	if w := get(without, "big"); w.Code != http.StatusInternalServerError {
		t.Errorf("offloaded result without the blob store: %d, want 500", w.Code)
	}
}

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
