package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/internal/pipeline"
)

// testFrontDoor runs the reference worker in front-door mode (plain HTTP)
// and in consumer mode over DynamoDB Local and the SQS server, driven by
// concurrent HTTP clients: each key posted by 10 clients at once, every
// 4th key's answers cut by a TCP proxy after the front door handled the
// request (the client posts again), one key reused with another payload,
// and a client per key reading its status until 200. Each key must be
// enqueued once and called once, its status must be the provider's
// answer for it, the reused key's other payload must be refused (422) and
// never run, and the queue must end empty (RunFrontDoor's violations).
func testFrontDoor(t *testing.T, parts pipeline.Parts) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := pipeline.RunFrontDoor(ctx, parts, pipeline.FrontDoorSmall())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", rep.Summary())
	for _, v := range rep.Violations {
		t.Error(v)
	}
	if rep.Answers[409] == 0 {
		t.Logf("no POST found its key's claim in progress (409) this run")
	}
}
