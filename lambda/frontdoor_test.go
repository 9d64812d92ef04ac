package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
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
	"github.com/idemq/idemq/idemqenv"
	idemqrequest "github.com/idemq/idemq/request"
)

// sendSQS answers SendMessage (the JSON protocol) and records the bodies,
// and the scope attribute of each.
type sendSQS struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	scopes []string
}

func newSendSQS(t *testing.T) *sendSQS {
	f := &sendSQS{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			MessageBody       string
			MessageAttributes map[string]struct{ DataType, StringValue string }
		}
		raw, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessage" || json.Unmarshal(raw, &in) != nil {
			http.Error(w, "unexpected call", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, in.MessageBody)
		f.scopes = append(f.scopes, in.MessageAttributes[idemqrequest.ScopeAttribute].StringValue)
		f.mu.Unlock()
		sum := md5.Sum([]byte(in.MessageBody))
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(w).Encode(map[string]string{"MessageId": "m-1", "MD5OfMessageBody": hex.EncodeToString(sum[:])})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *sendSQS) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

func (f *sendSQS) sentScopes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.scopes...)
}

// The worker in front-door mode, wired from its environment (the memory
// store, a fake SQS), served through the function URL adapter: a POST is
// sent to the queue once, with the key in the body, and its status read
// back. Keys are the IAM caller's (IDEMQ_FRONTDOOR_SCOPE=iam, the
// default): the principal rides in the scope attribute, and another role
// posting the same key and body is another request, sent again, in its
// own scope; it reads its own status, and a third caller's read is 404; a
// request without an IAM caller is 403 and sends nothing.
func TestFrontDoorMode(t *testing.T) {
	t.Parallel()
	sqsServer := newSendSQS(t)
	p, err := start(context.Background(), env("IDEMQ_MODE", "frontdoor", "IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "summarise",
		"IDEMQ_FRONTDOOR_QUEUE_URL", sqsServer.URL+"/123456789012/requests", "IDEMQ_SQS_ENDPOINT", sqsServer.URL),
		slog.New(slog.DiscardHandler), fakeAWS(sqsServer.URL)...)
	if err != nil {
		t.Fatal(err)
	}
	if p.frontDoor == nil || p.handler != nil || p.consumer != nil {
		t.Fatalf("program %+v: want a front door only", p)
	}
	serve := functionURLHandler(p.frontDoor)
	// A session of role "writer" (each call its own session name, as
	// renewed credentials have), of role "reader", and no IAM caller.
	session := 0
	writer := func() *iamCaller {
		session++
		return &iamCaller{AccountID: "123456789012", CallerID: "AROAWRITER:s", UserID: "AROAWRITER:s",
			UserARN: "arn:aws:sts::123456789012:assumed-role/writer/session-" + strconv.Itoa(session)}
	}
	reader := &iamCaller{AccountID: "123456789012", UserARN: "arn:aws:sts::123456789012:assumed-role/reader/r1"}
	other := &iamCaller{AccountID: "210987654321", UserARN: "arn:aws:iam::210987654321:user/someone"}
	call := func(caller *iamCaller, method, path, body string) events.LambdaFunctionURLResponse {
		ev := events.LambdaFunctionURLRequest{RawPath: path, Body: body,
			Headers:        map[string]string{"idempotency-key": `"fd-1"`, "content-type": "application/json"},
			RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: method}}}
		if caller != nil {
			ev.RequestContext.Authorizer = &events.LambdaFunctionURLRequestContextAuthorizerDescription{IAM: caller}
		}
		resp, err := serve(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for range 2 {
		if resp := call(writer(), "POST", "/requests", `{"prompt":"p"}`); resp.StatusCode != http.StatusAccepted || resp.Headers["Location"] != "/requests/fd-1" {
			t.Fatalf("POST: %+v", resp)
		}
	}
	if sent, scopes := sqsServer.sent(), sqsServer.sentScopes(); len(sent) != 1 || sent[0] != `{"idempotency_key":"fd-1","prompt":"p"}` ||
		scopes[0] != "arn:aws:sts::123456789012:assumed-role/writer" {
		t.Errorf("sent %q in scopes %q, want one message with the key, in the writer's scope", sent, scopes)
	}
	if resp := call(reader, "GET", "/requests/fd-1", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the reader's GET of the writer's key: %+v, want 404", resp)
	}
	if resp := call(reader, "POST", "/requests", `{"prompt":"p"}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("the reader's POST of the same key: %+v", resp)
	}
	if scopes := sqsServer.sentScopes(); len(scopes) != 2 || scopes[1] != "arn:aws:sts::123456789012:assumed-role/reader" {
		t.Errorf("sent in scopes %q, want a second message, in the reader's scope", scopes)
	}
	for _, caller := range []*iamCaller{writer(), reader} {
		if resp := call(caller, "GET", "/requests/fd-1", ""); resp.StatusCode != http.StatusAccepted || !strings.Contains(resp.Body, `"queued"`) {
			t.Errorf("GET by %s: %+v", caller.UserARN, resp)
		}
	}
	if resp := call(other, "GET", "/requests/fd-1", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another account's GET: %+v, want 404", resp)
	}
	for _, method := range []string{"POST", "GET"} {
		path := map[string]string{"POST": "/requests", "GET": "/requests/fd-1"}[method]
		if resp := call(nil, method, path, `{"prompt":"p"}`); resp.StatusCode != http.StatusForbidden || resp.Headers["Content-Type"] != "application/problem+json" {
			t.Errorf("%s without an IAM caller: %+v, want 403", method, resp)
		}
	}
	if sent := sqsServer.sent(); len(sent) != 2 {
		t.Errorf("sent %d messages, want 2", len(sent))
	}
}

// The scope is the principal: a user, the root, a federated user as
// Lambda names them; an assumed role without its session name; an ARN
// that names no principal is no scope.
func TestPrincipalOf(t *testing.T) {
	t.Parallel()
	for arn, want := range map[string]string{
		"arn:aws:iam::123456789012:user/team/alice":                 "arn:aws:iam::123456789012:user/team/alice",
		"arn:aws:iam::123456789012:root":                            "arn:aws:iam::123456789012:root",
		"arn:aws:sts::123456789012:federated-user/bob":              "arn:aws:sts::123456789012:federated-user/bob",
		"arn:aws:sts::123456789012:assumed-role/writer/botocore-17": "arn:aws:sts::123456789012:assumed-role/writer",
		"arn:aws-cn:sts::123456789012:assumed-role/writer/i-0abc/x": "arn:aws-cn:sts::123456789012:assumed-role/writer",
		"arn:aws:sts::123456789012:assumed-role/writer":             "arn:aws:sts::123456789012:assumed-role/writer",
		"":                         "",
		"AROAWRITER:session":       "",
		"arn:aws:s3:::bucket/key":  "",
		"arn:aws:iam:::user/alice": "",
		"arn:aws:sts::123456789012:assumed-role//session": "",
	} {
		got, err := principalOf(arn, false)
		if want == "" {
			if !errors.Is(err, frontdoor.ErrNoScope) {
				t.Errorf("principalOf(%q) = %q, %v; want ErrNoScope", arn, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("principalOf(%q) = %q, %v; want %q", arn, got, err, want)
		}
	}
}

// With IDEMQ_FRONTDOOR_SCOPE=iam-session each session of a role is a
// caller of its own: two sessions posting one key and body are two
// requests, each reads its own status and not the other's; a session's
// retry under its own name is answered its 202 without another send.
func TestFrontDoorSessionScope(t *testing.T) {
	t.Parallel()
	sqsServer := newSendSQS(t)
	p, err := start(context.Background(), env("IDEMQ_MODE", "frontdoor", "IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "summarise",
		"IDEMQ_FRONTDOOR_QUEUE_URL", sqsServer.URL+"/123456789012/requests", "IDEMQ_SQS_ENDPOINT", sqsServer.URL, "IDEMQ_FRONTDOOR_SCOPE", "iam-session"),
		slog.New(slog.DiscardHandler), fakeAWS(sqsServer.URL)...)
	if err != nil {
		t.Fatal(err)
	}
	serve := functionURLHandler(p.frontDoor)
	session := func(name string) *iamCaller {
		return &iamCaller{AccountID: "123456789012", UserARN: "arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Writer_0a1b/" + name}
	}
	call := func(caller *iamCaller, method, path string) events.LambdaFunctionURLResponse {
		ev := events.LambdaFunctionURLRequest{RawPath: path, Body: `{"prompt":"p"}`,
			Headers:        map[string]string{"idempotency-key": `"fd-1"`, "content-type": "application/json"},
			RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: method}}}
		ev.RequestContext.Authorizer = &events.LambdaFunctionURLRequestContextAuthorizerDescription{IAM: caller}
		resp, err := serve(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	alice, bob := session("alice@example.com"), session("bob@example.com")
	for _, caller := range []*iamCaller{alice, bob, alice} {
		if resp := call(caller, "POST", "/requests"); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST by %s: %+v", caller.UserARN, resp)
		}
	}
	sent, scopes := sqsServer.sent(), sqsServer.sentScopes()
	if len(sent) != 2 || len(scopes) != 2 || !strings.HasSuffix(scopes[0], "assumed-role/AWSReservedSSO_Writer_0a1b/alice@example.com") ||
		!strings.HasSuffix(scopes[1], "/bob@example.com") || !strings.Contains(sent[0], `"idempotency_key":"fd-1"`) {
		t.Errorf("sent %q with scopes %q, want one message per session, each the caller's key in its session's scope", sent, scopes)
	}
	for _, caller := range []*iamCaller{alice, bob} {
		if resp := call(caller, "GET", "/requests/fd-1"); resp.StatusCode != http.StatusAccepted {
			t.Errorf("GET by %s: %+v", caller.UserARN, resp)
		}
	}
	if resp := call(session("carol@example.com"), "GET", "/requests/fd-1"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a third session's GET: %+v, want 404", resp)
	}
	// An assumed role's ARN without a session names no caller.
	if resp := call(&iamCaller{UserARN: "arn:aws:sts::123456789012:assumed-role/writer"}, "GET", "/requests/fd-1"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a role without a session: %+v, want 403", resp)
	}
}

// With the session, an assumed role's caller is its whole ARN; every
// other principal is as principalOf names it without.
func TestPrincipalOfWithSession(t *testing.T) {
	t.Parallel()
	for arn, want := range map[string]string{
		"arn:aws:iam::123456789012:user/team/alice":                       "arn:aws:iam::123456789012:user/team/alice",
		"arn:aws:sts::123456789012:federated-user/bob":                    "arn:aws:sts::123456789012:federated-user/bob",
		"arn:aws:sts::123456789012:assumed-role/writer/alice@example.com": "arn:aws:sts::123456789012:assumed-role/writer/alice@example.com",
		"arn:aws:sts::123456789012:assumed-role/writer":                   "",
		"arn:aws:sts::123456789012:assumed-role/writer/":                  "",
		"arn:aws:sts::123456789012:assumed-role//alice":                   "",
		"arn:aws:s3:::bucket/key":                                         "",
	} {
		got, err := principalOf(arn, true)
		if want == "" {
			if !errors.Is(err, frontdoor.ErrNoScope) {
				t.Errorf("principalOf(%q, true) = %q, %v; want ErrNoScope", arn, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("principalOf(%q, true) = %q, %v; want %q", arn, got, err, want)
		}
	}
}

// A front door refuses a worker's setting it would ignore (a lease, a
// provider), as the worker refuses the front door's: a setting that
// changes nothing is a mistake, not a setting. The names are spelled out,
// as an operator writes them.
func TestFrontDoorRefusesWorkerSettings(t *testing.T) {
	t.Parallel()
	base := []string{"IDEMQ_MODE", "frontdoor", "IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "n",
		"IDEMQ_FRONTDOOR_QUEUE_URL", "http://127.0.0.1:1/123456789012/requests"}
	for _, kv := range [][]string{{"IDEMQ_LEASE", "1m"}, {"IDEMQ_PROVIDER_URL", "http://127.0.0.1:1/v1"}, {"IDEMQ_CONCURRENCY", "5"}} {
		_, err := start(context.Background(), env(append(append([]string{}, base...), kv...)...), slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
		if err == nil || !strings.Contains(err.Error(), kv[0]+" is set but IDEMQ_MODE is frontdoor") {
			t.Errorf("front door with %s=%s: %v; want it refused, named", kv[0], kv[1], err)
		}
	}
}

// With IDEMQ_KEY_FIELDS the worker's key is the body's own fields: one
// request.Identity for the handler, the front door and its producer. The
// body is sent as posted, nothing put in it, and the Idempotency-Key is
// the POST's handle. IDEMQ_KEY_FIELDS with IDEMQ_KEY_FIELD, or with an
// empty field, is refused.
func TestFrontDoorModeKeyFields(t *testing.T) {
	t.Parallel()
	sqsServer := newSendSQS(t)
	p, err := start(context.Background(), env("IDEMQ_MODE", "frontdoor", "IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "summarise", "IDEMQ_KEY_FIELDS", "document_id,version",
		"IDEMQ_FRONTDOOR_QUEUE_URL", sqsServer.URL+"/123456789012/requests", "IDEMQ_SQS_ENDPOINT", sqsServer.URL, "IDEMQ_FRONTDOOR_SCOPE", "none"),
		slog.New(slog.DiscardHandler), fakeAWS(sqsServer.URL)...)
	if err != nil {
		t.Fatal(err)
	}
	serve := functionURLHandler(p.frontDoor)
	call := func(method, path, body string) events.LambdaFunctionURLResponse {
		resp, err := serve(context.Background(), events.LambdaFunctionURLRequest{RawPath: path, Body: body,
			Headers:        map[string]string{"idempotency-key": `"handle-1"`, "content-type": "application/json"},
			RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: method}}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	body := `{"document_id":"doc-1","version":9,"prompt":"p"}`
	if resp := call("POST", "/requests", body); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST: %+v", resp)
	}
	if resp := call("POST", "/requests", `{"prompt":"no key"}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("POST of a body that makes no key: %+v, want 400", resp)
	}
	if sent := sqsServer.sent(); len(sent) != 1 || sent[0] != body {
		t.Errorf("sent %q, want the body as posted", sent)
	}
	if resp := call("GET", "/requests/handle-1", ""); resp.StatusCode != http.StatusAccepted || !strings.Contains(resp.Body, `"queued"`) {
		t.Errorf("GET: %+v, want queued", resp)
	}
	c, err := idemqenv.Read(env("IDEMQ_STORE", "memory", "IDEMQ_PROVIDER_URL", "http://p", "IDEMQ_NAMESPACE", "n", "IDEMQ_KEY_FIELDS", "a.b,c"))
	if want := []string{"a.b", "c"}; err != nil || !slices.Equal(c.Request.KeyFields, want) || c.Request.KeyField != "" {
		t.Errorf("IDEMQ_KEY_FIELDS=a.b,c: %+v, %v; want the fields %v", c.Request, err, want)
	}
	for _, e := range []func(string) string{
		env("IDEMQ_STORE", "memory", "IDEMQ_PROVIDER_URL", "http://p", "IDEMQ_KEY_FIELDS", "a,b", "IDEMQ_KEY_FIELD", "k"),
		env("IDEMQ_STORE", "memory", "IDEMQ_PROVIDER_URL", "http://p", "IDEMQ_KEY_FIELDS", "a,,b"),
	} {
		if err := startErr(e); err == nil || !strings.Contains(err.Error(), "IDEMQ_KEY_FIELDS") {
			t.Errorf("%v, want an error naming IDEMQ_KEY_FIELDS", err)
		}
	}
	if _, err := start(context.Background(), env("IDEMQ_STORE", "memory", "IDEMQ_PROVIDER_URL", "http://p", "IDEMQ_NAMESPACE", "n", "IDEMQ_KEY_FIELDS", "a..b"),
		slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "IDEMQ_KEY_FIELDS") {
		t.Errorf("a malformed field: %v, want an error naming IDEMQ_KEY_FIELDS", err)
	}
}
