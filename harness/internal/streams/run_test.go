package streams_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/internal/streams"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/testenv"
)

// The stream runs of make pipeline-streams, small: every fault on, one
// call per key, in order per partition key.
func TestRunSmall(t *testing.T) {
	t.Parallel()
	parts := streams.Parts{
		Moto:     testenv.ServerURL(t, testenv.SQSEndpoint, motoHint),
		DynamoDB: testenv.ServerURL(t, dynamotest.EndpointEnv, dynamoHint),
	}
	for _, src := range []streams.Source{streams.Kinesis, streams.DynamoDBStreams} {
		t.Run(string(src), func(t *testing.T) {
			t.Parallel()
			// The mapping retries without end: a run that never drains
			// fails at the deadline rather than hang.
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			rep, err := streams.Run(ctx, parts, streams.RunConfig(src, 1, true))
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() || rep.ProviderCalls != rep.Keys || rep.Invocations == 0 {
				t.Error(rep.Summary())
			}
			t.Log(rep.Summary())
		})
	}
}
