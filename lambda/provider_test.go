package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestProviderRequest(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", "/v1", "/v1/"} {
		t.Run("base"+base, func(t *testing.T) {
			t.Parallel()
			f := newFakeProvider(t)
			p := newProvider(f.URL+base, "sk-test", 1)
			c, err := p.complete(context.Background(), completionRequest{
				Model: "m1", Messages: []chatMessage{{Role: "user", Content: "hello"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Content != "echo: hello" || c.Model != "m1" || c.FinishReason != "stop" || len(c.Usage) == 0 {
				t.Errorf("completion %+v", c)
			}
			r := f.all()
			if len(r) != 1 || r[0].Path != "/v1/chat/completions" || r[0].Auth != "Bearer sk-test" {
				t.Errorf("requests %+v", r)
			}
		})
	}
}

func TestProviderDoesNotRetry(t *testing.T) {
	t.Parallel()
	t.Run("server error", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t)
		_, err := newProvider(f.URL, "", 1).complete(context.Background(), completionRequest{
			Model: "m", Messages: []chatMessage{{Role: "user", Content: "always-500"}},
		})
		var st *errStatus
		if !errors.As(err, &st) || st.Code != http.StatusInternalServerError || st.Message != "the model is overloaded" {
			t.Errorf("error %v, want an HTTP 500 errStatus", err)
		}
		if n := f.total(); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("connection dropped", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) == 1 {
				_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"ok"}}]}`))
				return
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close() // no answer: the generation may have been billed
			}
		}))
		defer srv.Close()
		p := newProvider(srv.URL, "", 1)
		// The first call leaves a pooled connection: the case where
		// net/http retries an idempotent request that fails on it.
		if _, err := p.complete(context.Background(), completionRequest{Model: "m"}); err != nil {
			t.Fatal(err)
		}
		if _, err := p.complete(context.Background(), completionRequest{Model: "m"}); err == nil {
			t.Fatal("no error for a dropped connection")
		}
		if n := hits.Load() - 1; n != 1 {
			t.Errorf("%d requests reached the server for one call, want 1", n)
		}
	})
}

// The provider's client keeps one idle connection for each record that runs
// at once, so a batch does not open and close connections per record.
func TestProviderKeepsConnections(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 100} {
		tr := newProvider("http://127.0.0.1:1", "", n).client.Transport.(*http.Transport)
		if want := max(n, http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost); tr.MaxIdleConnsPerHost != want {
			t.Errorf("newProvider(..., %d): %d idle connections per host, want %d", n, tr.MaxIdleConnsPerHost, want)
		}
		if tr.MaxIdleConns != 0 && tr.MaxIdleConns < n {
			t.Errorf("newProvider(..., %d): %d idle connections in all, want at least %d", n, tr.MaxIdleConns, n)
		}
	}
}
