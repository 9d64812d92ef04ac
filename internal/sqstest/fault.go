package sqstest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Fault is how a FaultServer answers one request.
type Fault int

// The faults.
const (
	// Answer passes the request to the server's answer function.
	Answer Fault = iota
	// ServerError answers 500 InternalFailure.
	ServerError
	// Throttle answers 400 ThrottlingException.
	Throttle
	// Drop reads the request and cuts the connection without an answer.
	Drop
	// Skewed answers 403 RequestTimeTooSkewed, dated an hour ahead: the
	// client's clock is off, and a request signed by a corrected one
	// would pass.
	Skewed
)

func (f Fault) String() string {
	return [...]string{"answer", "500", "throttle", "dropped connection", "clock skew"}[f]
}

// FaultServer is an SQS endpoint (its JSON protocol) that counts the HTTP
// requests of each operation and answers them by a script: it tells the
// retries of a call by the SDK from those of its caller, which a fake
// client cannot. Faults gives each operation's n-th request (from 0) its
// fault; one that is Answer goes to Reply, whose value is written as the
// JSON answer.
type FaultServer struct {
	URL    string
	Faults func(op string, n int) Fault
	Reply  func(ctx context.Context, op string, in map[string]any) any

	mu       sync.Mutex
	requests map[string]int
}

// NewFaultServer starts a FaultServer, closed when the test ends.
func NewFaultServer(t testing.TB, faults func(op string, n int) Fault, reply func(ctx context.Context, op string, in map[string]any) any) *FaultServer {
	s := &FaultServer{Faults: faults, Reply: reply, requests: map[string]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Client returns a client of the server as a user builds one: the SDK's
// standard retryer, 3 attempts a call.
func (s *FaultServer) Client() *sqs.Client {
	return sqs.New(sqs.Options{
		Region: Region, BaseEndpoint: aws.String(s.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// Requests returns how many requests of op reached the server.
func (s *FaultServer) Requests(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[op]
}

func (s *FaultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.mu.Lock()
	n := s.requests[op]
	s.requests[op]++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	switch s.Faults(op, n) {
	case ServerError:
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.sqs#InternalFailure","message":"injected"}`)
	case Throttle:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.sqs#ThrottlingException","message":"injected"}`)
	case Drop:
		panic(http.ErrAbortHandler)
	case Skewed:
		w.Header().Set("Date", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.sqs#RequestTimeTooSkewed","message":"injected"}`)
	default:
		var in map[string]any
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(s.Reply(r.Context(), op, in))
	}
}
