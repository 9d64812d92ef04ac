package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeProvider is an OpenAI-compatible chat completions server on
// loopback that logs every request it gets. A prompt containing "flaky"
// fails with a 500 the first time it is seen; "always-500" always fails.
type fakeProvider struct {
	*httptest.Server
	t *testing.T

	mu       sync.Mutex
	requests []providerRequest
	answers  map[string]string // prompt → content, instead of the echo
}

type providerRequest struct {
	Path   string
	Auth   string
	Body   completionRequest
	Prompt string // the last message's content
}

func newFakeProvider(t *testing.T) *fakeProvider {
	t.Helper()
	f := &fakeProvider{t: t}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	var body completionRequest
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req := providerRequest{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Body: body}
	if n := len(body.Messages); n > 0 {
		req.Prompt = body.Messages[n-1].Content
	}
	f.mu.Lock()
	seen := f.countLocked(req.Prompt)
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	f.t.Logf("fake provider: %s %s model=%s prompt=%q (request %d for it)", r.Method, r.URL.Path, body.Model, req.Prompt, seen+1)

	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if strings.Contains(req.Prompt, "always-500") || (strings.Contains(req.Prompt, "flaky") && seen == 0) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"the model is overloaded","type":"server_error"}}`))
		return
	}
	content := "echo: " + req.Prompt
	f.mu.Lock()
	if a, ok := f.answers[req.Prompt]; ok {
		content = a
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":    "chatcmpl-1",
		"model": body.Model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]string{"role": "assistant", "content": content},
			"finish_reason": "stop",
		}},
		"usage": map[string]int{"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
	})
}

func (f *fakeProvider) countLocked(prompt string) int {
	n := 0
	for _, r := range f.requests {
		if r.Prompt == prompt {
			n++
		}
	}
	return n
}

// answer makes the provider answer prompt with content.
func (f *fakeProvider) answer(prompt, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.answers == nil {
		f.answers = map[string]string{}
	}
	f.answers[prompt] = content
}

// count returns how many requests carried prompt.
func (f *fakeProvider) count(prompt string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.countLocked(prompt)
}

// total returns the number of requests.
func (f *fakeProvider) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeProvider) all() []providerRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]providerRequest{}, f.requests...)
}
