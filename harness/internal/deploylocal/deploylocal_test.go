package deploylocal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/internal/deploylocal"
	"github.com/idemq/idemq/harness/internal/repo"
	"github.com/idemq/idemq/internal/rie"
)

// TestDeployLocal deploys the stack to moto with the pinned CDK CLI, runs
// the uploaded bootstrap on duplicated requests, and destroys the stack
// (then the example app, examples/existing-app, deployed first without
// idemq, with orders in flight, then with idemq attached):
// every check of Run must pass, every key must cost one provider call, and
// no message may end in the dead-letter queue. The large request's result
// must be in the deployed bucket (Run checks the object against its
// record's pointer), and a late duplicate of it acknowledged after reading
// that object whole, with no second provider call. It needs moto_server, the
// CDK CLI (make deps-cdk), the RIE (make rie) and, on a machine other than
// arm64, qemu-aarch64-static: `make deploy-local` gets them all.
func TestDeployLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("deploys a stack to moto_server and runs the worker: not with -short")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	rieBin, err := rie.Find(filepath.Join(root, rie.BinPath))
	if err != nil {
		t.Fatal(err)
	}
	logPath := os.Getenv("IDEMQ_DEPLOYLOCAL_LOG") // where to keep the log; default a temporary file
	if logPath == "" {
		logPath = filepath.Join(t.TempDir(), "deploylocal.log")
	}
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	const keys, copies = 8, 3
	res, err := deploylocal.Run(ctx, deploylocal.Config{
		Root: root, CDK: filepath.Join(root, "node_modules/.bin/cdk"), RIE: rieBin,
		Keys: keys, Copies: copies, Log: log,
	})
	if res != nil {
		for _, s := range res.Steps {
			t.Logf("%-28s %s", s.Name, s.Took.Round(time.Millisecond))
		}
	}
	if err != nil {
		tail, _ := os.ReadFile(log.Name())
		if len(tail) > 6000 {
			tail = tail[len(tail)-6000:]
		}
		t.Fatalf("%v\nthe log's end:\n%s", err, tail)
	}
	// The default stack deploys the bucket: the large key goes once with
	// the others, and once more late.
	if res.Sent != keys*copies+2 {
		t.Errorf("sent %d messages, want %d", res.Sent, keys*copies+2)
	}
	prompts := []string{deploylocal.LargePrompt}
	for k := range keys {
		prompts = append(prompts, fmt.Sprintf("deploy-local prompt %d", k))
	}
	for _, prompt := range prompts {
		if n := res.Calls[prompt]; n != 1 {
			t.Errorf("%q: %d provider calls, want 1", prompt, n)
		}
	}
	if len(res.Calls) != len(prompts) {
		t.Errorf("provider calls for %d request keys, want %d: %v", len(res.Calls), len(prompts), res.Calls)
	}
	if l := res.Large; l == nil {
		t.Error("no large result: the stack deployed no bucket")
	} else {
		t.Log(l)
		if l.LateDuplicate.TotalDeliveries() != 1 || l.LateDuplicate.Deleted != 1 || l.LateDuplicate.ItemFailures != 0 {
			t.Errorf("the late duplicate: %d deliveries, %d acknowledged, %d batch item failures; want it delivered and acknowledged once",
				l.LateDuplicate.TotalDeliveries(), l.LateDuplicate.Deleted, l.LateDuplicate.ItemFailures)
		}
		// The replay reads the object whole: the worker's result comes
		// from the bucket, checked against the pointer's size and SHA-256.
		if l.ReplayGets < 1 || l.ReplayGetBytes != l.ReplayGets*l.Size {
			t.Errorf("the late duplicate made %d GETs of the object, returning %d bytes; want at least 1 of %d bytes each", l.ReplayGets, l.ReplayGetBytes, l.Size)
		}
		if l.Size <= 8<<10 || l.ResultBytes < deploylocal.LargeAnswerBytes/2 {
			t.Errorf("the object holds %d bytes of a %d-byte result: not a large result offloaded", l.Size, l.ResultBytes)
		}
	}
	if res.DeadLetters != 0 {
		t.Errorf("%d messages in the dead-letter queue, want none", res.DeadLetters)
	}
	t.Logf("sent %d messages for %d keys; provider calls per key %v; %d invocations, %d deliveries, %d deleted",
		res.Sent, keys, res.Calls, res.Stats.Invocations, res.Stats.TotalDeliveries(), res.Stats.Deleted)

	// The example app: deployed first as the team had it, its own
	// SqsEventSource feeding its function; then with idemq attached, while
	// orders arrive. The team's mapping is updated in place (moto does not
	// refuse a second mapping from one queue to one function, as Lambda
	// does, so the test counts them), and the function, run with its
	// deployed environment, does each order's work once, whenever it was
	// sent, the other copies replayed, each key's record completed.
	ex := res.Example
	if ex == nil {
		t.Fatal("the example app was not run")
	}
	t.Log(ex)
	per := keys / 2 // orders first sent before, during and after the deploy
	orders := 3 * per
	if ex.Before != per || ex.During != per || ex.After != per || ex.InFlight < 1 {
		t.Errorf("example: orders sent %d before the deploy (%d in flight), %d during it, %d after; want %d each, some in flight",
			ex.Before, ex.InFlight, ex.During, ex.After, per)
	}
	m := ex.Mapping
	if m.Before == "" || m.After != m.Before || m.FromQueue != 1 || m.ReportsBefore || !m.ReportsAfter {
		t.Errorf("example: the mapping %s was %s, is %s, %d from the queue to the function, ReportBatchItemFailures %v then %v; "+
			"want it updated in place (one physical id), alone, ReportBatchItemFailures turned on", m.LogicalID, m.Before, m.After, m.FromQueue, m.ReportsBefore, m.ReportsAfter)
	}
	if ex.Sent != 2*orders { // each order, and each again once the first copies were done
		t.Errorf("example: sent %d messages, want %d", ex.Sent, 2*orders)
	}
	for k := range orders {
		if n := ex.Confirmed[fmt.Sprintf("order-%d", k)]; n != 1 {
			t.Errorf("example: order-%d confirmed %d times, want once", k, n)
		}
	}
	// SQS delivers at least once: under load a held message can come back
	// once more than it was sent (moto redelivers it when its visibility
	// ends), so every delivery beyond the first of each order must be a
	// replay, and every delivery acknowledged; none runs the work again.
	if len(ex.Confirmed) != orders || ex.Executed != orders || ex.Replayed < orders || ex.Completed != orders {
		t.Errorf("example: %d orders confirmed, the handler executed %d and replayed %d, %d records completed; want %d, %d, at least %d, %d",
			len(ex.Confirmed), ex.Executed, ex.Replayed, ex.Completed, orders, orders, orders, orders)
	}
	if ex.DeadLetters != 0 || ex.Stats.Deleted < 2*orders || ex.Stats.Deleted != ex.Executed+ex.Replayed {
		t.Errorf("example: %d dead letters, %d messages acknowledged of %d executed and %d replayed; want none, and each delivery (at least %d) acknowledged",
			ex.DeadLetters, ex.Stats.Deleted, ex.Executed, ex.Replayed, 2*orders)
	}
	if extra := ex.Stats.Deleted - 2*orders; extra > 0 {
		t.Logf("example: %d deliveries more than the %d messages sent (SQS's at-least-once), each replayed", extra, 2*orders)
	}
}
