package pipeline_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/harness/internal/pipeline"
	"github.com/idemq/idemq/harness/internal/repo"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/idemq/idemq/internal/testenv"
)

// setup starts what a real-pipeline run needs, or fails the test saying
// which part is missing (skips it under -short).
func setup(t *testing.T) pipeline.Parts {
	t.Helper()
	if testing.Short() {
		t.Skip("the real pipeline needs DynamoDB Local, PostgreSQL, Redis, the SQS server and the emulator; -short skips it")
	}
	// Each fails the test with a hint when its server is not running.
	_ = dynamotest.Client(t)
	_ = pgtest.Pool(t)
	_ = redistest.Client(t)
	s3 := idemtest.ServerURL(t, testenv.S3Endpoint, "no local S3 server: use `make test`, or scripts/with-s3.sh")
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	rie, err := pipeline.FindRIE(root)
	if err != nil {
		t.Fatal(err)
	}
	sqs, err := pipeline.StartSQS(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sqs.Stop)
	bootstrap, err := pipeline.BuildBootstrap(ctx, root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Parts{
		DynamoDB: os.Getenv(dynamotest.EndpointEnv), Postgres: pgtest.URL(t), Redis: redistest.URL(t),
		SQS: sqs.Endpoint, S3: s3, RIE: rie, Bootstrap: bootstrap,
	}
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestPipeline runs the real parts with every fault on, through a
// standard queue on each store, then a FIFO queue (sharing the SQS server
// and the built worker).
func TestPipeline(t *testing.T) {
	parts := setup(t)
	for _, b := range pipeline.Backends {
		t.Run("standard/"+string(b), func(t *testing.T) { testStandard(t, parts, b) })
	}
	t.Run("fifo", func(t *testing.T) { testFIFO(t, parts) })
	t.Run("defaults", func(t *testing.T) { testDefaults(t, parts) })
	t.Run("consumer", func(t *testing.T) { testConsumer(t, parts) })
	t.Run("mixed", func(t *testing.T) { testMixed(t, parts) })
	t.Run("frontdoor", func(t *testing.T) { testFrontDoor(t, parts) })
}

// testMixed runs answers of 1 KB to 2 MiB through a standard queue on
// DynamoDB with every fault on, the workers offloading results to a bucket
// on moto's S3: every completed key's result, replayed through the store
// and the bucket as a duplicate reads it, must be the provider's answer
// (run says so), and every duplicate's replay in the workers must have
// succeeded. The other stores get it in `make pipeline`.
func testMixed(t *testing.T, parts pipeline.Parts) {
	rep := run(t, parts, pipeline.SmallMixed(1))
	a := rep.Answers
	if a == nil {
		t.Fatal("no answer report")
	}
	if a.Checked != rep.Keys || a.Inline == 0 || a.Offloaded == 0 || a.Objects < a.Offloaded {
		t.Errorf("answers %+v: want every key checked, some inline, some offloaded, an object for each offloaded one", *a)
	}
	if a.Largest < 1<<20 || a.Smallest > 4<<10 {
		t.Errorf("answers of %d to %d bytes: want the range's two ends", a.Smallest, a.Largest)
	}
	if rep.Worker.Replayed == 0 {
		t.Errorf("worker counts %+v: want replays", rep.Worker)
	}
}

// testDefaults runs the worker with its default settings (only the
// endpoints swapped): a lease longer than max receives × the visibility
// timeout, slow calls and workers killed during the call. The in-progress
// back-off, on by default, must keep every keyed message out of the
// dead-letter queue, with one provider call per key (run says so) and no
// record left in progress, on a standard and a FIFO queue.
func testDefaults(t *testing.T, parts pipeline.Parts) {
	for _, cfg := range []pipeline.Config{pipeline.Defaults(2), pipeline.DefaultsFIFO(2)} {
		rep := run(t, parts, cfg)
		if len(rep.DeadLetters) != rep.Poison {
			t.Errorf("FIFO %v: %d dead letters, want the %d messages without a key", cfg.FIFO, len(rep.DeadLetters), rep.Poison)
		}
		if rep.Worker.BackedOff == 0 || rep.CrashedCalls == 0 {
			t.Errorf("FIFO %v: worker counts %+v, %d killed during a call: want back-offs after crashes", cfg.FIFO, rep.Worker, rep.CrashedCalls)
		}
		if n := rep.Records[string(idem.StatusInProgress)]; n != 0 {
			t.Errorf("FIFO %v: %d records left in progress", cfg.FIFO, n)
		}
	}
}

// testStandard runs a few hundred messages through a standard queue with
// every fault on: the queue's visibility shorter than some calls, crashes
// before the ack and during the call, broker duplicates, producer
// re-sends, and a slow store that refuses requests and loses answers
// (DynamoDB throttles and answers 500; PostgreSQL's and Redis's
// connections are cut). The provider must be billed once per key, every
// key must end COMPLETED with the answer it was billed for, and only the
// keyless messages may reach the dead-letter queue. The producer (package
// producer) loses the answer to some sends after the queue took them and
// sends them again: the key is then twice on the queue, and still called
// once.
func testStandard(t *testing.T, parts pipeline.Parts, b pipeline.Backend) {
	cfg := pipeline.Small(1)
	cfg.Backend = b
	rep := run(t, parts, cfg)
	for _, c := range []loadtest.Cause{loadtest.CauseFirst, loadtest.CauseResend, loadtest.CauseDuplicate,
		loadtest.CauseVisibility, loadtest.CauseCrash, loadtest.CauseRetry} {
		if rep.ESM.Deliveries[c] == 0 {
			t.Errorf("no delivery with cause %q: a fault was not exercised", c)
		}
	}
	w := rep.Worker
	if w.Replayed == 0 || w.InProgress == 0 || w.TookOver == 0 {
		t.Errorf("worker counts %+v: want replays, in-progress retries and take-overs", w)
	}
	if rep.Restarts == 0 || rep.CrashedCalls == 0 {
		t.Errorf("%d instances restarted, %d killed during a call: want both", rep.Restarts, rep.CrashedCalls)
	}
	if len(rep.DeadLetters) != rep.Poison {
		t.Errorf("%d dead letters, want the %d messages without a key", len(rep.DeadLetters), rep.Poison)
	}
	if refused, lost := rep.StoreFaulted(); refused == 0 || lost == 0 {
		t.Errorf("store requests %v: want refused (throttled) ones and lost answers", rep.Store)
	}
	if rep.LostSendAnswers == 0 {
		t.Errorf("no send answer lost: the producer's re-send was not exercised")
	}
}

// testFIFO runs a FIFO queue with message groups, every fault a FIFO queue
// can have (no broker duplicates) and the in-progress back-off on. On top
// of the standard run's guarantees (one provider call per key, every key
// COMPLETED or dead-lettered), the keys of a group must be first executed
// in the order they were sent, the producer's re-sends under the first
// deduplication id must be dropped by the queue, and the back-off must
// have brought in-progress messages back sooner than the visibility
// timeout (Report.Violations says which broke).
func testFIFO(t *testing.T, parts pipeline.Parts) {
	rep := run(t, parts, pipeline.SmallFIFO(1))
	for _, c := range []loadtest.Cause{loadtest.CauseFirst, loadtest.CauseResend,
		loadtest.CauseVisibility, loadtest.CauseCrash, loadtest.CauseRetry} {
		if rep.ESM.Deliveries[c] == 0 {
			t.Errorf("no delivery with cause %q: a fault was not exercised", c)
		}
	}
	if n := rep.ESM.Deliveries[loadtest.CauseDuplicate]; n != 0 {
		t.Errorf("%d broker duplicates on a FIFO queue", n)
	}
	if rep.Worker.InProgress == 0 || rep.Worker.BackedOff == 0 || rep.CrashedCalls == 0 {
		t.Errorf("worker counts %+v, %d killed during a call: want in-progress retries, back-offs and a crash during a call",
			rep.Worker, rep.CrashedCalls)
	}
	if rep.Resent == 0 || rep.DedupDropped != rep.Resent {
		t.Errorf("%d re-sent, %d dropped as duplicates by the queue: want every re-send under the first id dropped", rep.Resent, rep.DedupDropped)
	}
	if rep.LostSendAnswers == 0 {
		t.Errorf("no send answer lost: the producer's re-send under the same deduplication id was not exercised")
	}
	if rep.OrderChecked != rep.Keys {
		t.Errorf("order checked for %d keys of %d", rep.OrderChecked, rep.Keys)
	}
	if len(rep.DeadLetters) != rep.Poison {
		t.Errorf("%d dead letters, want the %d messages without a key", len(rep.DeadLetters), rep.Poison)
	}
}

// run runs cfg and fails the test with every violation.
func run(t *testing.T, parts pipeline.Parts, cfg pipeline.Config) *pipeline.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := pipeline.Run(ctx, parts, cfg, logWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", rep.Summary())
	for _, v := range rep.Violations {
		t.Error(v)
	}
	return rep
}
