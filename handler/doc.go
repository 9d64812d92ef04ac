// Package handler makes an SQS-triggered Lambda function idempotent with
// one call, and answers Lambda with a partial batch response:
//
//	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(handler.DefaultConcurrency))
//	store, err := dynamostore.New(client, "idempotency")
//	if err != nil {
//		log.Fatal(err) // an *idem.ConfigError for each bad setting
//	}
//	h, err := handler.New(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
//		return generate(ctx, msg.Body) // runs once per key, however often the message comes
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	lambda.Start(h)
//
// A function of a request type, whose struct tags say which fields make
// the key (request.IdentityOf), is wrapped by NewTyped: the body decoded,
// the result stored as JSON, the replay hook typed (WithTypedReplayHook).
//
// Each record's idempotency key comes from its body (the JSON field
// "idempotency_key" unless WithRequest's request.Identity names another
// source), never from the message id, which changes on a
// producer's re-send and on a redrive from the dead-letter queue. The key
// is claimed with idem.Do before the function runs. A record's message is
// deleted only when its key is proven settled (executed and stored,
// replayed, or superseded by a claim that completed it); anything else,
// foreseen or not, comes back. docs/outcomes.md lists every situation,
// generated from the code's own table (outcomes.go).
//
// A result too large to store does not free the key: the work has run, so
// the key is completed without the result (see idem.Do) and the message
// acknowledged, with an error logged and counted as result_omitted; the
// result is not cached. A duplicate has nothing to replay: without a
// replay hook it is acknowledged, and with one it fails, wrapping
// idem.ErrResultTooLarge, so that it ends in the dead-letter queue rather
// than hand the hook nil. Copies that wait on the execution, in the same
// batch or another of the process, are handed its fresh result, which is
// still in memory.
//
// The handler fails closed: a record is acknowledged only when its fate
// says so. Each record's fate starts as "retry: no outcome"; so a record
// whose goroutine exits without returning (runtime.Goexit, as t.FailNow
// calls), the records that goroutine would have run next, and any path
// nobody foresaw come back.
//
// Copies of one key in a batch make one claim and one execution; every
// copy adopts its leader's fate (a copy of a leader that failed or is in
// progress comes back too; one whose leader never started, blocked by its
// FIFO group, claims the key itself). Records run in sequences, side by
// side, at most DefaultConcurrency sequences at once, each sequence's
// records in input order in one goroutine: a sequence holds the records
// joined by a message group (FIFO) or by a key, so a copy always comes
// after its leader and no record waits on another sequence. Failures are
// reported in input order, and no goroutine outlives the call.
//
// # Glossary
//
// The package's comments use these words so:
//
//   - claim: the atomic write (idem.Do's first step) that takes a key for
//     one worker, or finds the record that holds it.
//   - lease: how long a claim is the worker's own; after it passes,
//     another worker may take the key over.
//   - settle: to complete a claim (store the result) or release it (free
//     the key); a key is settled when its record is completed.
//   - leader: the record that settles a key for others: the first record
//     of the key that starts in a batch, or one of another batch of the
//     process that is settling the key now (a flight).
//   - copy: a later record of the leader's key in the same batch; it
//     adopts the leader's fate instead of claiming.
//   - adopt: take a leader's, or the local cache's, result (adopt.go): one
//     fingerprint check, one policy for an omitted result, one replay hook
//     call.
//   - superseded: the work ran, but its lease had passed and another claim
//     owns the key; acknowledged only if that claim completed it.
//   - fate: what becomes of a record: acknowledge, retry (with the
//     holder's lease end, for the back-off, when in progress) or skip (not
//     started), with its reason and what the counts need. decide maps a
//     claim's outcome to it; batch.assign is the one place it is written.
//   - sequence: the records that must run one after another, in one
//     goroutine: those joined by a message group (FIFO) or a key.
//   - FIFO gate: what keeps records from starting, and from being
//     acknowledged, after a failure earlier in a FIFO batch (or its
//     message group).
//
// Settings: the batch's are Config's fields, which the options set
// (WithConfig sets them whole); the claim's (lease, expiry, heartbeat,
// clock) are idem.Config's, passed on as Config.Idem (WithIdem). They
// behave as every idemq package's do (docs/options.md): a zero value is
// the default, a negative one is refused unless it turns something off,
// and every setting that cannot be safe is refused at once when the
// handler is wired: New returns an error joining an *idem.ConfigError for
// each (joined), and New panics with that
// error. Size the record expiry for the queue with queue.RecordLifetime,
// giving it the dead-letter queue's retention so that a redrive from it
// replays rather than runs the work again.
//
// The package's files are layered: each uses only files below it. At the
// bottom are the function types (func.go), the tracer's interface
// (tracer.go), the SQS client's part (visibility.go), the errors and the
// fate (fate.go); above them Config and its resolve step (config.go) and
// the options (options.go); then the batch (batch.go) and its steps
// (adopt.go, record.go, step.go, report.go, run.go); the constructors
// (new.go, typed.go) on top.
//
// On a FIFO queue (an event source ARN ending in ".fifo") the records of
// one message group (attribute "MessageGroupId") run in order, and after a
// failure every later record of the batch is reported as a failure, as AWS
// documents for FIFO; Config.FIFOGroupIsolation narrows that to the failed
// record's group.
//
// The handler answers with the records' failures (a store that cannot be
// reached fails the records it touches) and returns an error only when
// Lambda must bring back the whole batch anyway: a failed record has no
// message id, which no partial response can name; or no message of the
// batch is acknowledged and one record at least failed (ErrBatchFailed,
// unless Config.NoBatchError), so that Lambda counts the invocation as an
// error and backs off. Each batch logs one summary line with log/slog, and
// each record that comes back a line of its own (at level ERROR when its
// retry cannot succeed); WithEMF adds CloudWatch metrics, and WithTracer
// spans for each batch, record and store call (idemqotel.WithTracing:
// OpenTelemetry). Payloads and results are never logged.
//
// NewStepHandler is the same batch machinery with a step of the caller's
// in place of the claim: a dispatcher (package durable) answers a batch as
// New's handlers do, from this package's code.
//
// The package reads no environment variable: the reference worker in
// lambda/ does, and passes options.
package handler
