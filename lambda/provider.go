package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxResponseBytes bounds what is read of a provider's answer.
const maxResponseBytes = 8 << 20

// provider calls an OpenAI-compatible chat completions endpoint.
//
// It makes exactly one HTTP request per call, never retrying: every retry
// can be a billed generation, and the providers document no idempotency
// key. The retry is the queue's redelivery, behind the claim: a failed call
// releases the key and the message comes back. The client is plain
// net/http, which does not retry a POST by itself (it would only for a
// request carrying an Idempotency-Key header, which is not sent), and it
// has no timeout of its own: the invocation's context bounds each call.
type provider struct {
	endpoint string // the chat completions URL
	apiKey   string
	client   *http.Client
}

// newProvider makes a client for the base URL: with or without the /v1
// part, as OpenAI's own SDKs take it ("https://api.openai.com/v1"). It keeps
// up to conns idle connections to the provider (Go's default keeps 2), one
// for each record that runs at once.
func newProvider(baseURL, apiKey string, conns int) *provider {
	base := strings.TrimRight(baseURL, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, conns)
	if t.MaxIdleConns != 0 {
		t.MaxIdleConns = max(t.MaxIdleConns, conns)
	}
	return &provider{
		endpoint: base + "/chat/completions",
		apiKey:   apiKey,
		client:   &http.Client{Transport: t},
	}
}

// completionRequest is the part of a chat completions request the worker
// sends.
type completionRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   *int          `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// completion is what the worker keeps of the provider's answer: the stored
// result of the record.
type completion struct {
	ID           string          `json:"id,omitempty"`
	Model        string          `json:"model,omitempty"`
	Content      string          `json:"content"`
	FinishReason string          `json:"finish_reason,omitempty"`
	Usage        json.RawMessage `json:"usage,omitempty"`
}

// errStatus is a provider's non-2xx answer.
type errStatus struct {
	Code    int
	Message string // the provider's error message, shortened
}

func (e *errStatus) Error() string {
	return fmt.Sprintf("provider: HTTP %d: %s", e.Code, e.Message)
}

// complete sends one chat completions request.
func (p *provider) complete(ctx context.Context, req completionRequest) (completion, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return completion{}, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return completion{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if p.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	resp, err := p.client.Do(hreq)
	if err != nil {
		return completion{}, fmt.Errorf("provider: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return completion{}, fmt.Errorf("provider: reading the answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return completion{}, &errStatus{Code: resp.StatusCode, Message: errorMessage(raw)}
	}
	var out struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Choices []struct {
			Message      chatMessage `json:"message"`
			FinishReason string      `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return completion{}, fmt.Errorf("provider: answer is not JSON: %w", err)
	}
	if len(out.Choices) == 0 {
		return completion{}, errors.New("provider: answer has no choices")
	}
	return completion{ID: out.ID, Model: out.Model, Content: out.Choices[0].Message.Content,
		FinishReason: out.Choices[0].FinishReason, Usage: out.Usage}, nil
}

// errorMessage picks the message out of an OpenAI-style error body,
// shortened; the rest of the body is not kept (it could echo the prompt).
func errorMessage(raw []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := "(no error message)"
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
