package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/internal/rie"
)

// The callers of the scoped front door: IAM users of one account. Their
// scope is their ARN (IDEMQ_FRONTDOOR_SCOPE=iam).
const (
	callerAcme  = "arn:aws:iam::123456789012:user/acme"
	callerOther = "arn:aws:iam::123456789012:user/other"
	// scopedKey is the Idempotency-Key caller acme posts.
	scopedKey = "scoped-1"
	// scopedDoc is the document the scoped requests name, keyed by fields.
	scopedDoc = "scoped-doc"
)

// The prompts of the scoped requests: acme's, and a raw producer's aimed
// at acme's key.
const (
	promptAcme = "scoped: acme's request"
	promptRaw  = "scoped: a raw producer's request aimed at acme's key"
)

// scopedDoor is the front door as Lambda runs it behind a function URL
// with AuthType AWS_IAM: the worker in front-door mode under the
// emulator, served function URL events, each caller's keys its own
// (IDEMQ_FRONTDOOR_SCOPE=iam, the default on Lambda).
type scopedDoor struct {
	emu    *rie.Emulator
	logs   *logBuffer
	client *http.Client
}

// startScopedDoor starts the scoped front door, sending through
// sqsEndpoint.
func (f *fdRun) startScopedDoor(ctx context.Context, sqsEndpoint string) (*scopedDoor, error) {
	env := append(f.frontDoorEnv("frontdoor-iam"), envMode+"=frontdoor", envFrontDoorQueue+"="+f.r.queue.URL,
		envSQSEndpoint+"="+sqsEndpoint, "AWS_LAMBDA_FUNCTION_TIMEOUT=30", "LOG_LEVEL=error")
	d := &scopedDoor{logs: &logBuffer{}, client: &http.Client{Timeout: 40 * time.Second}}
	var err error
	if d.emu, err = rie.Start(ctx, rie.Config{RIE: f.r.parts.RIE, Bootstrap: f.r.parts.Bootstrap, Env: env,
		Output: d.logs, Wait: 15 * time.Second, Prepare: ownGroup, Kill: killGroup}); err != nil {
		return nil, fmt.Errorf("pipeline: the scoped front door: %w; its output:\n%s", err, d.logs.tail(2000))
	}
	f.r.cleanups = append(f.r.cleanups, func() { d.emu.Stop(5 * time.Second) })
	return d, nil
}

// do serves one request to the scoped front door as a function URL event
// from caller ("" for none: a request without IAM), the key ("" for none)
// in its Idempotency-Key, and returns the answer's status and body.
func (d *scopedDoor) do(ctx context.Context, caller, method, path, key, body string) (int, string, error) {
	ev := events.LambdaFunctionURLRequest{Version: "2.0", RawPath: path, Body: body,
		Headers: map[string]string{"content-type": "application/json"},
		RequestContext: events.LambdaFunctionURLRequestContext{AccountID: "123456789012",
			HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: method, Path: path}}}
	if key != "" {
		ev.Headers["idempotency-key"] = `"` + key + `"`
	}
	if caller != "" {
		ev.RequestContext.Authorizer = &events.LambdaFunctionURLRequestContextAuthorizerDescription{
			IAM: &events.LambdaFunctionURLRequestContextAuthorizerIAMDescription{UserARN: caller, AccountID: "123456789012"}}
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.emu.URL(), bytes.NewReader(payload))
	if err != nil {
		return 0, "", err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	var answer events.LambdaFunctionURLResponse
	if err := json.Unmarshal(out, &answer); err != nil || answer.StatusCode == 0 {
		return 0, "", fmt.Errorf("the function answered %d %.300s", resp.StatusCode, out)
	}
	return answer.StatusCode, answer.Body, nil
}

// scopedBodies are acme's body and the raw producer's: keyed by the
// body's idempotency_key, the raw one holds acme's scope and key joined
// as an unscoped key ("<scope>:scoped-1", the form acme's key once had);
// keyed by fields, it names acme's document.
func (f *fdRun) scopedBodies() (acme, raw string) {
	if f.cfg.KeyFields {
		doc := `{"document_id":"` + scopedDoc + `","version":1,"model":"test-model","prompt":`
		return doc + quote(promptAcme) + "}", doc + quote(promptRaw) + "}"
	}
	return `{"model":"test-model","prompt":` + quote(promptAcme) + "}",
		`{"idempotency_key":` + quote(callerAcme+":"+scopedKey) + `,"model":"test-model","prompt":` + quote(promptRaw) + "}"
}

// scopedKeyOf is the key the front door's sends are counted under for
// acme's request (sentKey).
func (f *fdRun) scopedKeyOf() string {
	if f.cfg.KeyFields {
		return scopedDoc
	}
	return scopedKey
}

// scoped runs the scoped callers while the normal traffic runs: a raw
// producer sends a message aimed at acme's key straight to the queue; a
// caller without IAM posts (403); acme posts its key (202); another
// caller reads acme's key and a normal key (404 each); acme reads the raw
// producer's key as its own (404), then its own key until 200.
func (f *fdRun) scoped(ctx context.Context, d *scopedDoor) {
	acmeBody, rawBody := f.scopedBodies()
	note := func(what string, want, status int, err error) {
		f.mu.Lock()
		f.scopedAnswers = append(f.scopedAnswers, scopedAnswer{what: what, want: want, status: status, err: err})
		f.mu.Unlock()
	}
	if err := f.r.queue.Send(ctx, rawBody); err != nil {
		note("the raw producer's send", 0, 0, err)
		return
	}
	status, _, err := d.do(ctx, "", http.MethodPost, frontDoorPath, scopedKey, acmeBody)
	note("a POST without an IAM caller", http.StatusForbidden, status, err)
	status, _, err = d.do(ctx, callerAcme, http.MethodPost, frontDoorPath, scopedKey, acmeBody)
	note("acme's POST", http.StatusAccepted, status, err)
	status, _, err = d.do(ctx, callerOther, http.MethodGet, frontDoorPath+"/"+scopedKey, "", "")
	note("another caller's GET of acme's key", http.StatusNotFound, status, err)
	status, _, err = d.do(ctx, callerOther, http.MethodGet, frontDoorPath+"/"+f.reqs[0].Key, "", "")
	note("a scoped caller's GET of a key posted without a scope", http.StatusNotFound, status, err)
	status, _, err = d.do(ctx, callerAcme, http.MethodGet, frontDoorPath+"/"+url.PathEscape(callerAcme+":"+scopedKey), "", "")
	note("acme's GET of the raw producer's key", http.StatusNotFound, status, err)
	for {
		status, body, err := d.do(ctx, callerAcme, http.MethodGet, frontDoorPath+"/"+scopedKey, "", "")
		if err == nil && status == http.StatusOK {
			f.mu.Lock()
			f.scopedResult = []byte(body)
			f.mu.Unlock()
			return
		}
		if err == nil && status != http.StatusAccepted {
			note("acme's GET of its key", http.StatusOK, status, err)
			return
		}
		select {
		case <-ctx.Done():
			note("acme's GET of its key", http.StatusOK, 0, ctx.Err())
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// checkScoped checks the scoped callers: each answer as the threat model
// says; acme's request enqueued once and run once, its status the
// provider's answer for it; the raw producer's message run under its own
// key, apart from acme's.
func (f *fdRun) checkScoped(calls map[string]int, answered func(prompt string, result []byte) error) {
	rep := &f.rep
	for _, a := range f.scopedAnswers {
		switch {
		case a.err != nil:
			rep.violate("scoped: %s: %v", a.what, a.err)
		case a.status != a.want:
			rep.violate("scoped: %s: answered %d, want %d", a.what, a.status, a.want)
		}
	}
	if n := f.sends[f.scopedKeyOf()]; n != 1 {
		rep.violate("scoped: acme's request was enqueued %d times, want 1", n)
	}
	for _, p := range []string{promptAcme, promptRaw} {
		if calls[p] != 1 {
			rep.violate("scoped: %d provider calls for %q, want 1: a raw key reached a scoped one", calls[p], p)
		}
	}
	if f.scopedResult == nil {
		rep.violate("scoped: acme's status never read 200")
	} else if err := answered(promptAcme, f.scopedResult); err != nil {
		rep.violate("scoped: acme's status: %v", err)
	}
	rep.Scoped = map[int]int{}
	for _, a := range f.scopedAnswers {
		rep.Scoped[a.status]++
	}
}

// scopedSummary is the scoped callers' line of the report.
func scopedSummary(rep *FrontDoorReport) string {
	if len(rep.Scoped) == 0 {
		return ""
	}
	return fmt.Sprintf("  scoped front door (function URL events under the emulator, IDEMQ_FRONTDOOR_SCOPE=iam): acme, another caller and no caller answered %s before acme's 200; a raw producer's message aimed at acme's key ran apart\n", formatSorted(rep.Scoped, "%d ×%d"))
}
