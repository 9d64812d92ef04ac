// Package handler makes an SQS-triggered Lambda function idempotent with
// one call, and answers Lambda with a partial batch response:
//
//	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(handler.DefaultConcurrency))
//	store := dynamostore.New(client, "idempotency")
//	lambda.Start(handler.WrapSQS(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
//		return generate(ctx, msg.Body) // runs once per key, however often the message comes
//	}))
//
// Each record's idempotency key comes from its body (the JSON field
// "idempotency_key" unless WithKeyField, WithKeyAttribute or WithKeyFunc
// says otherwise), never from the message id, which changes on a
// producer's re-send and on a redrive from the dead-letter queue. The key
// is claimed with idem.Do before the function runs:
//
//	record                        function        reported to Lambda   counted as
//	none, expired, lease passed   runs; stored    success (deleted)    executed (took over)
//	COMPLETED                     not run         success (deleted)    replayed; replay hook
//	result too large to store     ran; omitted    success (deleted)    executed, result_omitted; error logged
//	COMPLETED, result omitted     not run         success; see below   replayed; see below
//	IN_PROGRESS, lease live       not run         batch item failure   in progress; back-off
//	function error or panic       released        batch item failure   failed
//	ran; completion failed        released        batch item failure   failed (idem.NotStored)
//	ran; taken over, completed    not stored      success (deleted)    executed, superseded; warning
//	ran; taken over, in progress  not stored      batch item failure   failed; warning
//	no key, body not JSON         not run         batch item failure   failed (or keyless: WithKeyless)
//	other payload, same key       not run         batch item failure   failed (idem.ErrPayloadMismatch)
//	store unreachable             -               batch item failure   failed
//	deadline near (not started)   not run         batch item failure   skipped
//	no outcome (runtime.Goexit)   left to lease   batch item failure   failed (ErrNoOutcome)
//
// A result too large to store does not free the key: the work has run, so
// the key is completed without the result (see idem.Do) and the message
// acknowledged, with an error logged and counted as result_omitted; the
// result is not cached. A duplicate has nothing to replay: without a
// replay hook it is acknowledged, and with one it fails, wrapping
// idem.ErrResultTooLarge, so that it ends in the dead-letter queue rather
// than hand the hook nil. Copies in the same batch as the execution are
// handed its fresh result, which is still in memory.
//
// The handler fails closed: a record is acknowledged only when its result
// proves it may be. Each record's result starts as "no outcome", which is
// reported as a failure; so a record whose goroutine exits without
// returning (runtime.Goexit, as t.FailNow calls), the records that
// goroutine would have run next, and any path nobody foresaw come back.
//
// Copies of one key in a batch make one claim and one execution; every
// copy gets that record's outcome (a copy of a record that failed or is in
// progress fails too; one whose first record never started, blocked by its
// FIFO group, claims the key itself). Records run in lanes, side by side,
// at most DefaultConcurrency lanes at once, each lane's records in input
// order in one goroutine: a lane holds the records joined by a message
// group (FIFO) or by a key, so a copy always comes after the record that
// claims its key and no record waits on another lane. Failures are
// reported in input order, and no goroutine outlives the call.
//
// Settings: the batch's are this package's options; the claim's (lease,
// expiry, heartbeat, clock) are idem.Config's, passed on with WithIdem.
// Each is defaulted and checked in one place, and one that cannot be safe
// panics when the handler is wired. Size the record expiry for the queue
// with queue.RecordLifetime, giving it the dead-letter queue's retention so that
// a redrive from it replays rather than runs the work again.
//
// On a FIFO queue (an event source ARN ending in ".fifo") the records of
// one message group (attribute "MessageGroupId") run in order, and after a
// failure every later record of the batch is reported as a failure, as AWS
// documents for FIFO; WithFIFOGroupIsolation narrows that to the failed
// record's group.
//
// The handler returns a nil error whatever happens to the records (a store
// that cannot be reached fails the records, not the invocation), except
// when a failed record has no message id, which no partial response can
// name. Each batch logs one summary line with log/slog; WithEMF adds
// CloudWatch metrics. Payloads and results are never logged.
//
// The package reads no environment variable: the reference worker in
// lambda/ does, and passes options.
package handler
