// Package linearize_test checks dynamostore's histories (here, not in
// dynamostore's own tests, so that a user of dynamostore never needs the
// checker).
package linearize_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/idemtest/linearize"
	"github.com/idemq/idemq/idem/internal/lintest"
)

// The store's histories under concurrent clients, checked against the
// model of a key's record: through an HTTP transport that loses answers
// after DynamoDB Local applied the request (the SDK's retryer sends it
// again) and refuses others, with timeouts, pauses past the lease and
// clocks within the bound (make linearize adds long runs, restarts of a
// server that keeps its tables on disk, and clocks beyond the bound).
func TestLinearizable(t *testing.T) {
	t.Parallel()
	lintest.Run(t, lintest.Store{
		Name:         "dynamodb",
		Layer:        true,
		RestartEnv:   "IDEMQ_TEST_DYNAMODB_RESTART",
		RestartEvery: 30 * time.Second, // the JVM takes seconds to start
		Open: func(t *testing.T, faults *linearize.Faults) idem.Store {
			base := dynamotest.Client(t)
			table := dynamotest.NewTable(t, base)
			opts := base.Options()
			opts.HTTPClient = &faultyHTTP{next: &http.Client{}, faults: faults}
			s, err := dynamostore.New(dynamodb.New(opts), table)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	})
}

// faultyHTTP is the SDK's HTTP client with the faults of a network: a
// request refused before it is sent (a connection refused), or sent and
// its answer lost (the connection reset as the answer came), as Faults
// decides from the request's body.
type faultyHTTP struct {
	next   *http.Client
	faults *linearize.Faults
}

func (f *faultyHTTP) Do(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	switch f.faults.Decide(body) {
	case linearize.FaultRefuse:
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	case linearize.FaultLoseAnswer:
		resp, err := f.next.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	return f.next.Do(req)
}
