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
// enqueued once, as posted (only the key put in it), and called once, its
// status must be the provider's answer for it, the reused key's other
// payload must be refused (422) and never run, and the queue must end
// empty (RunFrontDoor's violations). Alongside, hostile callers send keys
// and bodies the front door refuses, status URLs no POST made, and paths
// and methods it does not serve, each answered as docs/frontdoor.md's
// threat model says (4xx, never 5xx or a retry) and none enqueued or run;
// and the front door as Lambda runs it (function URL events under the
// emulator, each IAM caller's keys its own) keeps caller acme's key apart
// from a raw producer's message aimed at it and from another caller. It
// runs twice: the worker keyed by the body's idempotency_key, and by two
// body fields (IDEMQ_KEY_FIELDS), whose status the front door reads by the
// key it kept for each POST.
func testFrontDoor(t *testing.T, parts pipeline.Parts) {
	for _, fields := range []bool{false, true} {
		name := "idempotency_key"
		if fields {
			name = "key-fields"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cfg := pipeline.FrontDoorSmall()
			cfg.KeyFields = fields
			rep, err := pipeline.RunFrontDoor(ctx, parts, cfg)
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
		})
	}
}
