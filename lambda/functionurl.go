package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// functionURLHandler serves h to a Lambda function URL, or an API Gateway
// HTTP API with payload format 2.0 (the same event): each event becomes an
// *http.Request under the invocation's context, and what h writes becomes
// the response. A header sent more than once arrives joined by commas, as
// Lambda passes it; cookies are the Cookie header. A body is answered as
// text when it is UTF-8, else base64-encoded (IsBase64Encoded).
func functionURLHandler(h http.Handler) func(context.Context, events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
	return func(ctx context.Context, ev events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
		r, err := functionURLRequest(ctx, ev)
		if err != nil { // answered as the front door answers errors
			body, _ := json.Marshal(map[string]any{"type": "about:blank", "title": "Request could not be read", "status": http.StatusBadRequest, "detail": err.Error()})
			return events.LambdaFunctionURLResponse{StatusCode: http.StatusBadRequest, Body: string(body),
				Headers: map[string]string{"Content-Type": "application/problem+json", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}}, nil
		}
		w := &responseRecorder{header: http.Header{}}
		h.ServeHTTP(w, r)
		return w.response(), nil
	}
}

// functionURLRequest makes the request an event carries; its context
// carries the event's IAM caller, if any (iamCallerOf).
func functionURLRequest(ctx context.Context, ev events.LambdaFunctionURLRequest) (*http.Request, error) {
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
			return nil, fmt.Errorf("the body is not valid base64: %v", err)
		}
	}
	path := ev.RawPath
	if path == "" {
		path = "/"
	}
	u, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("the path is not valid: %v", err)
	}
	u.RawQuery = ev.RawQueryString
	r, err := http.NewRequestWithContext(withIAMCaller(ctx, ev), ev.RequestContext.HTTP.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for name, value := range ev.Headers {
		r.Header.Set(name, value)
	}
	if len(ev.Cookies) > 0 {
		r.Header.Set("Cookie", strings.Join(ev.Cookies, "; "))
	}
	r.Host = ev.RequestContext.DomainName
	if host := r.Header.Get("Host"); host != "" {
		r.Host = host
	}
	r.RemoteAddr = ev.RequestContext.HTTP.SourceIP
	r.RequestURI = u.RequestURI()
	return r, nil
}

// responseRecorder is the http.ResponseWriter an event's response is
// written to.
type responseRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *responseRecorder) Header() http.Header { return w.header }

func (w *responseRecorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *responseRecorder) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// response is what was written, as Lambda takes it.
func (w *responseRecorder) response() events.LambdaFunctionURLResponse {
	resp := events.LambdaFunctionURLResponse{StatusCode: w.status, Headers: map[string]string{}}
	if resp.StatusCode == 0 {
		resp.StatusCode = http.StatusOK
	}
	for name, values := range w.header {
		if name == "Set-Cookie" {
			resp.Cookies = append(resp.Cookies, values...)
			continue
		}
		resp.Headers[name] = strings.Join(values, ",")
	}
	if utf8.Valid(w.body.Bytes()) {
		resp.Body = w.body.String()
	} else {
		resp.Body, resp.IsBase64Encoded = base64.StdEncoding.EncodeToString(w.body.Bytes()), true
	}
	return resp
}
