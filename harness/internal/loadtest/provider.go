package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// DefaultCallTime is how long a Provider takes to answer a call.
const DefaultCallTime = 50 * time.Millisecond

// Provider is a fake model provider: an OpenAI-compatible chat completions
// endpoint on a loopback port that takes a set time per call, answers with
// a completion naming the call, and logs every request. It counts calls per
// request key (by default the last user message: one prompt, one request),
// which is what a billed provider charges for.
type Provider struct {
	srv      *httptest.Server
	callTime func(key string) time.Duration
	keyOf    func(ChatRequest) string
	hook     func(Call) error
	content  func(n int, key string) string
	start    func(Call) func()

	mu  sync.Mutex
	log []Call
}

// ChatRequest is the part of a chat completions request the Provider reads.
type ChatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// Call is one request the Provider received.
type Call struct {
	Key      string
	Instance string // the tag of the URL called (URLFor); "" for URL
	Body     []byte
	Received time.Time
	// Answered: the completion was sent. A call is billed (counted) either
	// way: the provider did the work.
	Answered bool
	ID       string // the completion's id, "chatcmpl-N"
	Content  string // the completion's text
}

// ProviderOption configures NewProvider.
type ProviderOption func(*Provider)

// WithCallTime sets how long every call takes. Defaults to
// DefaultCallTime.
func WithCallTime(d time.Duration) ProviderOption {
	return func(p *Provider) { p.callTime = func(string) time.Duration { return d } }
}

// WithCallTimeFunc sets how long a call takes, per request key: make some
// calls outlast the queue's visibility timeout (fault ShortVisibility).
// Defaults to DefaultCallTime for every key.
func WithCallTimeFunc(f func(key string) time.Duration) ProviderOption {
	if f == nil {
		panic("handlertest: nil call time func")
	}
	return func(p *Provider) { p.callTime = f }
}

// WithRequestKey sets how a request's key is found. Defaults to the
// content of its last user message.
func WithRequestKey(f func(ChatRequest) string) ProviderOption {
	if f == nil {
		panic("handlertest: nil request key func")
	}
	return func(p *Provider) { p.keyOf = f }
}

// WithCallHook calls f for every call once its time has passed, before the
// answer is sent; if f returns an error the connection is dropped without
// an answer, as when the caller dies during the call (fault
// CrashDuringCall). The call is billed either way. Defaults to none.
func WithCallHook(f func(Call) error) ProviderOption {
	if f == nil {
		panic("handlertest: nil call hook")
	}
	return func(p *Provider) { p.hook = f }
}

// WithContent sets the text of the n-th call's completion (counted from 1)
// for a request key: answers of the sizes a test needs. It must start
// with what the default says, "completion N for KEY" quoted, so each
// answer stays unique to its call. Defaults to that text alone.
func WithContent(f func(n int, key string) string) ProviderOption {
	if f == nil {
		panic("loadtest: nil content func")
	}
	return func(p *Provider) { p.content = f }
}

// DefaultContent is the completion text of the n-th call for key when no
// WithContent is given.
func DefaultContent(n int, key string) string { return fmt.Sprintf("completion %d for %q", n, key) }

// WithCallStartHook calls f for every call as it arrives, before its
// time passes (internal/pipeline stops a consumer process with SIGTERM
// then), and the function f returns, if not nil, once the call is over:
// answered, dropped, or abandoned by its caller. Defaults to none.
func WithCallStartHook(f func(Call) (done func())) ProviderOption {
	if f == nil {
		panic("handlertest: nil call start hook")
	}
	return func(p *Provider) { p.start = f }
}

// NewProvider starts a provider on a free port of 127.0.0.1. Close it when
// done.
func NewProvider(opts ...ProviderOption) *Provider {
	p := &Provider{
		callTime: func(string) time.Duration { return DefaultCallTime },
		keyOf:    lastUserMessage,
		content:  DefaultContent,
	}
	for _, o := range opts {
		o(p)
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	return p
}

// URL returns the base URL to give an OpenAI client, ending in /v1.
func (p *Provider) URL() string { return p.srv.URL + "/v1" }

// URLFor returns a base URL whose calls are logged with Call.Instance set
// to tag: give each function instance its own to know who called.
func (p *Provider) URLFor(tag string) string { return p.srv.URL + "/i/" + tag + "/v1" }

// Close stops the provider.
func (p *Provider) Close() { p.srv.Close() }

// Calls returns the number of calls per request key.
func (p *Provider) Calls() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for _, c := range p.log {
		out[c.Key]++
	}
	return out
}

// Log returns every call in the order received.
func (p *Provider) Log() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.log...)
}

func lastUserMessage(r ChatRequest) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// serve answers POST [/i/TAG]/v1/chat/completions.
func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	tag, rest := "", r.URL.Path
	if after, ok := strings.CutPrefix(rest, "/i/"); ok {
		tag, rest, _ = strings.Cut(after, "/")
		rest = "/" + rest
	}
	if r.Method != http.MethodPost || rest != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req ChatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"invalid request"}}`, http.StatusBadRequest)
		return
	}
	key := p.keyOf(req)
	p.mu.Lock()
	n := len(p.log) + 1
	c := Call{Key: key, Instance: tag, Body: body, Received: time.Now(), ID: fmt.Sprintf("chatcmpl-%06d", n)}
	p.log = append(p.log, c)
	p.mu.Unlock()
	c.Content = p.content(n, key)
	p.mu.Lock()
	p.log[n-1].Content = c.Content
	p.mu.Unlock()
	if p.start != nil {
		if done := p.start(c); done != nil {
			defer done()
		}
	}

	select {
	case <-time.After(p.callTime(key)):
	case <-r.Context().Done():
		return // the caller went away; the call is billed all the same
	}
	if p.hook != nil {
		if err := p.hook(c); err != nil {
			panic(http.ErrAbortHandler) // drop the connection unanswered
		}
	}
	answer := map[string]any{
		"id": c.ID, "object": "chat.completion", "created": c.Received.Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": c.Content}}},
		"usage": map[string]int{"prompt_tokens": len(body) / 4, "completion_tokens": len(c.Content) / 4,
			"total_tokens": (len(body) + len(c.Content)) / 4},
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(answer); err != nil {
		return
	}
	p.mu.Lock()
	p.log[n-1].Answered = true
	p.mu.Unlock()
}
