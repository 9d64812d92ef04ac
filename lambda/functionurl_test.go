package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/frontdoor"
)

// An event becomes the request it describes (method, escaped path, query,
// headers, cookies, a base64 body), and what the handler writes the
// response (status, headers, cookies, a binary body in base64).
func TestFunctionURLHandler(t *testing.T) {
	t.Parallel()
	var got struct {
		method, path, rawPath, query, key, cookie, host string
		body                                            []byte
		caller                                          iamCaller
		hasCaller                                       bool
	}
	caller := iamCaller{AccessKey: "ASIAEXAMPLE", AccountID: "123456789012", CallerID: "AROAEXAMPLE:alice",
		UserARN: "arn:aws:sts::123456789012:assumed-role/writer/alice", UserID: "AROAEXAMPLE:alice"}
	var scope string
	var scopeErr error
	h := functionURLHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scope, scopeErr = iamScope(r)
		got.method, got.path, got.rawPath, got.query = r.Method, r.URL.Path, r.URL.EscapedPath(), r.URL.RawQuery
		got.key, got.cookie, got.host = r.Header.Get("Idempotency-Key"), r.Header.Get("Cookie"), r.Host
		got.body, _ = io.ReadAll(r.Body)
		got.caller, got.hasCaller = iamCallerOf(r.Context())
		w.Header().Set("Location", "/requests/a%2Fb")
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Vary", "Accept")
		w.Header().Add("Vary", "Idempotency-Key")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte{0xff, 0x00, 0x01})
	}))
	resp, err := h(context.Background(), events.LambdaFunctionURLRequest{
		RawPath:         "/requests/a%2Fb",
		RawQueryString:  "x=1&y=2",
		Headers:         map[string]string{"idempotency-key": `"k-1"`, "content-type": "application/json", "host": "abc.lambda-url.us-east-1.on.aws"},
		Cookies:         []string{"s=1", "t=2"},
		Body:            base64.StdEncoding.EncodeToString([]byte(`{"prompt":"p"}`)),
		IsBase64Encoded: true,
		RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: "POST", SourceIP: "203.0.113.9"},
			Authorizer: &events.LambdaFunctionURLRequestContextAuthorizerDescription{IAM: &caller}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.method != "POST" || got.path != "/requests/a/b" || got.rawPath != "/requests/a%2Fb" || got.query != "x=1&y=2" ||
		got.key != `"k-1"` || got.cookie != "s=1; t=2" || got.host != "abc.lambda-url.us-east-1.on.aws" || string(got.body) != `{"prompt":"p"}` {
		t.Errorf("request %+v", got)
	}
	// The IAM caller reaches the request's context, and the front door's
	// scope (iamScope) names its principal.
	if !got.hasCaller || got.caller != caller {
		t.Errorf("IAM caller %+v (%t), want %+v", got.caller, got.hasCaller, caller)
	}
	body, _ := base64.StdEncoding.DecodeString(resp.Body)
	if resp.StatusCode != http.StatusAccepted || resp.Headers["Location"] != "/requests/a%2Fb" || resp.Headers["Vary"] != "Accept,Idempotency-Key" ||
		len(resp.Cookies) != 1 || resp.Cookies[0] != "a=1" || !resp.IsBase64Encoded || string(body) != "\xff\x00\x01" {
		t.Errorf("response %+v", resp)
	}

	if scopeErr != nil || scope != "arn:aws:sts::123456789012:assumed-role/writer" {
		t.Errorf("iamScope: %q, %v; want the role", scope, scopeErr)
	}
	// Without an authorizer (AuthType NONE) there is no caller, and no
	// IAM scope.
	if _, _ = h(context.Background(), events.LambdaFunctionURLRequest{RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: "GET"}}}); got.hasCaller || !errors.Is(scopeErr, frontdoor.ErrNoScope) {
		t.Errorf("no authorizer: caller %+v (%t), scope %q, %v; want none, ErrNoScope", got.caller, got.hasCaller, scope, scopeErr)
	}

	// A text body is answered as text; a handler that writes nothing, 200.
	text := functionURLHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"ok":true}`)) }))
	if resp, _ := text(context.Background(), events.LambdaFunctionURLRequest{RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: "GET"}}}); resp.StatusCode != 200 || resp.IsBase64Encoded || resp.Body != `{"ok":true}` {
		t.Errorf("text response %+v", resp)
	}
	empty := functionURLHandler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	if resp, _ := empty(context.Background(), events.LambdaFunctionURLRequest{RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: "GET"}}}); resp.StatusCode != 200 {
		t.Errorf("empty response %+v", resp)
	}
	// A body that is not base64 is the client's error, answered as the
	// front door answers errors (a problem, not to be cached or sniffed)
	// without calling the handler.
	resp, err = empty(context.Background(), events.LambdaFunctionURLRequest{Body: "!!", IsBase64Encoded: true,
		RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: "POST"}}})
	var p struct{ Status int }
	if err != nil || resp.StatusCode != http.StatusBadRequest || resp.Headers["Content-Type"] != "application/problem+json" ||
		json.Unmarshal([]byte(resp.Body), &p) != nil || p.Status != http.StatusBadRequest ||
		resp.Headers["Cache-Control"] != "no-store" || resp.Headers["X-Content-Type-Options"] != "nosniff" {
		t.Errorf("bad base64: %+v, %v", resp, err)
	}
}
