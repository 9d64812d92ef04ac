package deploylocal

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

// TestLargeProvider checks the provider the deployed worker calls: the
// large prompt is answered with the large answer whole, other prompts by
// the provider behind, and each is counted once per call.
func TestLargeProvider(t *testing.T) {
	answer, err := largeAnswer()
	if err != nil {
		t.Fatal(err)
	}
	if len(answer) > LargeAnswerBytes || len(answer) < LargeAnswerBytes-1000 {
		t.Fatalf("large answer of %d bytes, want about %d", len(answer), LargeAnswerBytes)
	}
	small := loadtest.NewProvider(loadtest.WithCallTime(0))
	defer small.Close()
	p, err := newLargeProvider(small, answer)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ask := func(prompt string) string {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"model": "local", "messages": []map[string]string{{"role": "user", "content": prompt}}})
		resp, err := http.Post(p.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c struct {
			Choices []struct {
				Message struct{ Content string }
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != http.StatusOK || len(c.Choices) != 1 {
			t.Fatalf("%q: HTTP %d, %v", prompt, resp.StatusCode, err)
		}
		return c.Choices[0].Message.Content
	}
	if got := ask(LargePrompt); got != answer {
		t.Errorf("the large prompt's answer: %d bytes, want the %d of the large answer", len(got), len(answer))
	}
	if got := ask("small one"); !strings.Contains(got, `"small one"`) {
		t.Errorf("a small prompt's answer %q is not the provider's behind", got)
	}
	ask(LargePrompt)
	if calls := p.Calls(); len(calls) != 2 || calls[LargePrompt] != 2 || calls["small one"] != 1 {
		t.Errorf("calls %v, want the large prompt 2 and the small one 1", calls)
	}
}

// TestCountReplayGets checks that a late duplicate's S3 requests count
// only the object's successful GETs, and that any other request (a PUT
// would be a second execution) is an error.
func TestCountReplayGets(t *testing.T) {
	l := &LargeResult{Bucket: "b", Object: "idemq/k/o", Size: 10}
	get := s3Request{Method: "GET", Path: "/b/idemq/k/o", Status: 200, Bytes: 10}
	if err := l.countReplayGets([]s3Request{get, get}); err != nil || l.ReplayGets != 2 || l.ReplayGetBytes != 20 {
		t.Errorf("two GETs: %d GETs of %d bytes, %v", l.ReplayGets, l.ReplayGetBytes, err)
	}
	for _, other := range []s3Request{
		{Method: "PUT", Path: "/b/idemq/k/other", Status: 200},
		{Method: "GET", Path: "/b/idemq/k/o", Status: 404, Bytes: 120},
		{Method: "GET", Path: "/b/idemq/k/other", Status: 200, Bytes: 10},
	} {
		l := &LargeResult{Bucket: "b", Object: "idemq/k/o", Size: 10}
		if err := l.countReplayGets([]s3Request{get, other}); err == nil {
			t.Errorf("%s: no error", other)
		}
	}
}
