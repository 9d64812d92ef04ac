package durabletest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Fault is what the server does with one Invoke request instead of, or
// besides, answering it.
type Fault int

const (
	// Answer answers the request: no fault.
	Answer Fault = iota
	// Throttle answers 429 TooManyRequestsException without starting
	// anything.
	Throttle
	// ServerError answers 500 ServiceException without starting anything.
	ServerError
	// DropBefore closes the connection without starting anything or
	// answering.
	DropBefore
	// DropAfter applies the request (starts the execution if it is new),
	// then closes the connection without answering: the answer is lost.
	DropAfter
)

// Execution is a durable execution the server started.
type Execution struct {
	Name      string // the execution name
	Function  string // the function's name, unqualified
	Qualifier string // the version or alias it was started on
	Arn       string // the durable execution ARN
	Payload   []byte // the input payload
}

// Request is an Invoke request as the server read it.
type Request struct {
	Function       string // the function's name, unqualified
	Qualifier      string
	Name           string // X-Amz-Durable-Execution-Name, "" when absent
	InvocationType string // X-Amz-Invocation-Type, "" when absent
	Payload        []byte
}

// Server is the fake. Its zero value is not usable; call NewServer.
type Server struct {
	// URL is the server's base URL, for lambda.Options.BaseEndpoint.
	URL string

	http       *httptest.Server
	mu         sync.Mutex
	fault      func(Request) Fault
	executions map[string]*Execution // by function + "/" + name
	order      []*Execution
	requests   []Request
	seq        int
}

// NewServer starts a fake on a loopback port, closed when t ends.
func NewServer(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake on a loopback port; Close stops it.
func Start() *Server {
	s := &Server{executions: make(map[string]*Execution)}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	return s
}

// Close stops the server, waiting for the requests under way.
func (s *Server) Close() { s.http.Close() }

// SetFault sets the function choosing each request's fault (nil: answer
// every request). f is called under the server's lock, from the
// goroutines serving requests.
func (s *Server) SetFault(f func(Request) Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// Executions returns the executions started, in the order they were.
func (s *Server) Executions() []Execution {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Execution, len(s.order))
	for i, e := range s.order {
		out[i] = *e
	}
	return out
}

// Execution returns the execution of function (unqualified) named name.
func (s *Server) Execution(function, name string) (Execution, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.executions[function+"/"+name]
	if !ok {
		return Execution{}, false
	}
	return *e, true
}

// Requests returns the Invoke requests received, faulted ones included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

var (
	invokePath = regexp.MustCompile(`^/2015-03-31/functions/([^/]+)/invocations$`)
	validName  = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	m := invokePath.FindStringSubmatch(r.URL.EscapedPath())
	if r.Method != http.MethodPost || m == nil {
		apiError(w, http.StatusNotFound, "ResourceNotFoundException", "not an Invoke request: "+r.Method+" "+r.URL.Path)
		return
	}
	fn, qualifier, err := splitFunction(m[1], r.URL.Query().Get("Qualifier"))
	if err != nil {
		apiError(w, http.StatusBadRequest, "InvalidParameterValueException", err.Error())
		return
	}
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := Request{Function: fn, Qualifier: qualifier, Name: r.Header.Get("X-Amz-Durable-Execution-Name"),
		InvocationType: r.Header.Get("X-Amz-Invocation-Type"), Payload: payload}

	s.mu.Lock()
	s.requests = append(s.requests, req)
	fault := Answer
	if s.fault != nil {
		fault = s.fault(req)
	}
	s.mu.Unlock()

	switch fault {
	case Throttle:
		w.Header().Set("Retry-After", "0")
		apiError(w, http.StatusTooManyRequests, "TooManyRequestsException", "Rate exceeded")
		return
	case ServerError:
		apiError(w, http.StatusInternalServerError, "ServiceException", "internal error")
		return
	case DropBefore:
		drop(w)
		return
	}
	switch {
	case qualifier == "":
		apiError(w, http.StatusBadRequest, "InvalidParameterValueException", "durable functions must be invoked with a qualified ARN (a version or alias)")
		return
	case req.Name != "" && !validName.MatchString(req.Name):
		apiError(w, http.StatusBadRequest, "InvalidParameterValueException", "invalid durable execution name")
		return
	case !json.Valid(payload):
		apiError(w, http.StatusBadRequest, "InvalidRequestContentException", "could not parse request body into json")
		return
	}
	e, status, errType := s.start(req)
	if fault == DropAfter {
		drop(w)
		return
	}
	if errType != "" {
		apiError(w, status, errType, fmt.Sprintf("durable execution %s already started with another payload: %s", req.Name, e.Arn))
		return
	}
	w.Header().Set("X-Amz-Durable-Execution-Arn", e.Arn)
	w.Header().Set("X-Amz-Executed-Version", e.Qualifier)
	if req.InvocationType == "Event" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("null"))
}

// start applies a start: a new execution, the one already named with the
// same payload (and version), or a conflict.
func (s *Server) start(req Request) (e *Execution, status int, errType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := req.Name
	if name == "" {
		name = fmt.Sprintf("generated-%d", s.seq+1)
	}
	if old, ok := s.executions[req.Function+"/"+name]; ok {
		if old.Qualifier != req.Qualifier || !bytes.Equal(old.Payload, req.Payload) {
			return old, http.StatusConflict, "DurableExecutionAlreadyStartedException"
		}
		return old, http.StatusOK, ""
	}
	s.seq++
	e = &Execution{Name: name, Function: req.Function, Qualifier: req.Qualifier, Payload: req.Payload,
		Arn: fmt.Sprintf("arn:aws:lambda:us-east-1:123456789012:function:%s:%s/durable-execution/%s/%08d", req.Function, req.Qualifier, name, s.seq)}
	s.executions[req.Function+"/"+name] = e
	s.order = append(s.order, e)
	return e, http.StatusOK, ""
}

// splitFunction reads the function's name and qualifier from the path's
// FunctionName (a name, name:qualifier, or an ARN, percent-encoded) and
// the Qualifier query parameter.
func splitFunction(escaped, query string) (fn, qualifier string, err error) {
	name := strings.ReplaceAll(escaped, "%3A", ":")
	name = strings.ReplaceAll(name, "%3a", ":")
	parts := strings.Split(name, ":")
	switch {
	case strings.HasPrefix(name, "arn:") && (len(parts) == 7 || len(parts) == 8):
		parts = parts[6:]
	case len(parts) >= 3 && parts[1] == "function":
		parts = parts[2:]
	}
	switch len(parts) {
	case 1:
		return parts[0], query, nil
	case 2:
		if query != "" && query != parts[1] {
			return "", "", fmt.Errorf("the qualifier %q and the function's %q differ", query, parts[1])
		}
		return parts[0], parts[1], nil
	}
	return "", "", fmt.Errorf("bad function name %q", name)
}

// apiError answers as Lambda's REST-JSON protocol does.
func apiError(w http.ResponseWriter, status int, errType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", errType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": errType, "Type": "User", "Message": msg})
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("durabletest: the connection cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}
