package deploylocal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

// The request whose answer is large: its completion, kept gzipped, is far
// over the worker's offload size (idem.DefaultOffloadAbove, 6,000 bytes), so the
// deployed worker puts it in the deployed bucket and its record keeps a
// pointer.
const (
	// LargeKey is its idempotency key.
	LargeKey = "deploy-local-large"
	// LargePrompt is its prompt, the provider's request key.
	LargePrompt = "deploy-local large prompt"
	// LargeAnswerBytes is the length of the provider's answer to it: real
	// prose, as a long model answer is (gzip keeps about a third).
	LargeAnswerBytes = 512 << 10
)

// largeBody is the large request's message body.
func largeBody() string {
	return fmt.Sprintf(`{"idempotency_key":%q,"model":"local","prompt":%q}`, LargeKey, LargePrompt)
}

// largeAnswer is LargeAnswerBytes (or a little less, cut at a line's end)
// of the prose that ships with Go, Newton's Opticks.
func largeAnswer() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("deploylocal: go env GOROOT: %w", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "src", "testdata", "Isaac.Newton-Opticks.txt")
	text, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("deploylocal: the large answer's prose: %w", err)
	}
	if len(text) < LargeAnswerBytes {
		return "", fmt.Errorf("deploylocal: %s holds %d bytes, fewer than the large answer's %d", path, len(text), LargeAnswerBytes)
	}
	text = text[:LargeAnswerBytes]
	if i := bytes.LastIndexByte(text, '\n'); i > 0 {
		text = text[:i+1]
	}
	if !utf8.Valid(text) {
		return "", fmt.Errorf("deploylocal: %s is not UTF-8", path)
	}
	return string(text), nil
}

// largeProvider is the fake provider the deployed worker calls: it answers
// LargePrompt itself with the large answer, counting the calls, and passes
// every other request on to a loadtest.Provider.
type largeProvider struct {
	srv    *httptest.Server
	small  *loadtest.Provider
	answer string

	mu    sync.Mutex
	calls int
}

func newLargeProvider(small *loadtest.Provider, answer string) (*largeProvider, error) {
	target, err := url.Parse(small.URL())
	if err != nil {
		return nil, err
	}
	p := &largeProvider{small: small, answer: answer}
	pass := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = target.Scheme, target.Host, ""
	}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, `{"error":{"message":"invalid request"}}`, http.StatusBadRequest)
			return
		}
		var req loadtest.ChatRequest
		if r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions" && json.Unmarshal(body, &req) == nil &&
			len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Content == LargePrompt {
			p.serveLarge(w, req)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		pass.ServeHTTP(w, r)
	}))
	return p, nil
}

// URL is the base URL the stack gives the worker.
func (p *largeProvider) URL() string { return p.srv.URL + "/v1" }

// Close stops the front (not the provider behind it).
func (p *largeProvider) Close() { p.srv.Close() }

// Calls is the provider's calls per request key, LargePrompt's included.
func (p *largeProvider) Calls() map[string]int {
	calls := p.small.Calls()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls > 0 {
		calls[LargePrompt] = p.calls
	}
	return calls
}

func (p *largeProvider) serveLarge(w http.ResponseWriter, req loadtest.ChatRequest) {
	p.mu.Lock()
	p.calls++
	n := p.calls
	p.mu.Unlock()
	answer := map[string]any{
		"id": fmt.Sprintf("chatcmpl-large-%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": p.answer}}},
		"usage": map[string]int{"prompt_tokens": 8, "completion_tokens": len(p.answer) / 4, "total_tokens": 8 + len(p.answer)/4},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}
