package streams

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/request"
)

// Run puts cfg's requests on a real stream while its shards are drained
// into idemq's stream handler (its records on DynamoDB Local) by
// streamtest.Drain, with the faults on, then checks the provider's calls:
// one per key, and per partition key the order of first calls the order
// of the records.
func Run(ctx context.Context, parts Parts, cfg Config) (*Report, error) {
	if parts.DynamoDB == "" {
		return nil, fmt.Errorf("streams: no DynamoDB Local endpoint (%s): run under scripts/with-dynamodb.sh", dynamotest.EndpointEnv)
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 43))
	p := newPlan(cfg, r)
	prov := newProvider(p, cfg.CallTime)
	f := &faults{cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, 44))}
	suffix := dynamotest.Suffix()

	db, sc := NewDynamoDBClients(parts.DynamoDB)
	records := "idemq-streams-records-" + suffix
	if err := dynamotest.CreateTable(ctx, db, records); err != nil {
		return nil, fmt.Errorf("streams: %w", err)
	}
	defer deleteTable(db, records)
	store, err := dynamostore.New(db, records)
	if err != nil {
		return nil, err
	}
	id := request.Identity{Namespace: "streams-" + string(cfg.Source)}
	if cfg.Source == DynamoDBStreams {
		// The writer's retry changes its write counter: the payload
		// check reads the request's own fields.
		id.FingerprintFields = []string{"idempotency_key", "prompt"}
	}
	// One record at a time: a function that dies during a call leaves no
	// other call's answer computed and lost (the one duplicate no claim
	// prevents). A short lease and clock skew bound: a dead invocation's
	// key comes free within the run.
	h, err := handler.New(deadStore{store}, prov.fn, handler.WithRequest(id), handler.WithConcurrency(1),
		handler.WithIdem(idem.WithConfig(idem.Config{Lease: cfg.Lease, ClockSkew: clockSkew})),
		handler.WithFailureHook(func(_ context.Context, _ events.SQSMessage, err error) {
			if errors.Is(err, idem.ErrInProgress) {
				f.mu.Lock()
				f.inProgress++
				f.mu.Unlock()
			}
		}),
		handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, err
	}
	s := stream.New(h)

	var src source
	switch cfg.Source {
	case Kinesis:
		src, err = newKinesisSource(ctx, parts, cfg, suffix, s, f)
	case DynamoDBStreams:
		src, err = newTableSource(ctx, db, sc, suffix, s, f)
	default:
		err = fmt.Errorf("streams: unknown source %q", cfg.Source)
	}
	if err != nil {
		return nil, err
	}
	defer src.close()

	start := time.Now()
	produced := make(chan struct{})
	var wg sync.WaitGroup
	drains := src.drains()
	totals := make([]totals, len(drains))
	errs := make([]error, len(drains))
	for i, d := range drains {
		wg.Go(func() { totals[i], errs[i] = d(ctx, cfg.Mapping, produced) })
	}
	var putErr error
	for i, q := range p.puts {
		if putErr = src.put(ctx, q, i); putErr != nil {
			break
		}
	}
	close(produced)
	wg.Wait()
	f.zombies.Wait()
	if putErr != nil {
		return nil, putErr
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	rep := &Report{Config: cfg, Records: len(p.puts), Keys: len(p.keys), Resent: p.resent(), Elapsed: time.Since(start)}
	for _, t := range totals {
		rep.GivenUp += t.givenUp
	}
	f.mu.Lock()
	rep.Invocations, rep.FunctionErrors, rep.Crashes, rep.Died, rep.Bisections, rep.ItemFailures, rep.InProgress =
		f.invocations, f.errors, f.crashes, f.died, f.bisections, f.itemFailures, f.inProgress
	f.mu.Unlock()
	check(rep, p, prov)
	return rep, nil
}

// clockSkew is the claims' clock skew bound: every clock of the run is
// this machine's.
const clockSkew = 20 * time.Millisecond

// source is a run's stream: where the producer puts, and a drain per
// shard.
type source interface {
	put(ctx context.Context, q put, n int) error
	drains() []drainFunc
	close()
}
