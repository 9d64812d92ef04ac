// Package consumer runs an idemq handler off Lambda: a long-running
// process (ECS, EKS, EC2, a GPU box) receives from an SQS queue itself and
// hands each batch to the same handler.New handler a Lambda function
// would run, so outcomes, back-off, FIFO order and partial failures have
// one code path wherever the worker runs:
//
//	h, err := handler.New(store, fn, handler.WithRequest(request.Identity{Namespace: "summarise"}),
//		handler.WithBackoff(consumer.Backoff(client)))
//	c, err := consumer.New(client, queueURL, h, consumer.WithConfig(consumer.Config{MaxRunTime: time.Hour}))
//	if err != nil {
//		return err // an *idem.ConfigError for each bad setting
//	}
//	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
//	defer stop()
//	err := c.Run(ctx) // until SIGTERM, then a graceful stop
//
// It is a thin loop around the handler, the way Lambda's SQS event source
// mapping is one:
//
//   - It receives with long polling (Config.WaitTime, up to
//     Config.BatchSize messages, every system and message attribute) only
//     when fewer than Config.MaxBatches batches run, so at most
//     MaxBatches × BatchSize messages are in flight.
//   - It turns each batch into the events.SQSEvent Lambda would deliver
//     (messageId, receiptHandle, body, attributes, messageAttributes,
//     md5OfBody, eventSource "aws:sqs", eventSourceARN, awsRegion), in the
//     order SQS gave them: on a FIFO queue SQS hands out a group's
//     messages in order and no more of a group while some are in flight,
//     and the handler keeps that order within the batch.
//   - It calls the handler under a context that ends Config.MaxRunTime
//     after the receive, as an invocation's ends at the function's timeout.
//   - While the handler runs, it extends the visibility of the batch's
//     messages by Config.VisibilityTimeout each time half of it is left,
//     so work longer than the visibility timeout does not come back while
//     it runs.
//   - It deletes, in DeleteMessageBatch calls, every message the response
//     does not list as a batch item failure, and nothing when the handler
//     returns an error or names a message not in the batch (as Lambda).
//     Failed deletes are retried with back-off for Config.DeleteTimeout,
//     then logged and left: the message comes back and replays its key's
//     result. Nothing is acknowledged on a failed call's behalf.
//   - Receive, delete and visibility errors are retried by these loops,
//     with capped exponential back-off (Config.RetryMin to RetryMax), and
//     logged. The loops are the calls' only retries: each call is one
//     request, whatever the client's retryer (the SDK makes one attempt
//     of each).
//
// # Lease and visibility
//
// Two clocks guard a message while its work runs, and they do different
// jobs. The visibility timeout decides when SQS hands the message out
// again; the claim's lease decides whether a worker that receives it may
// run the work. The lease is the safety, the visibility the liveness:
//
//	                          Lambda                      consumer
//	handler's deadline        function timeout            receive + MaxRunTime
//	default lease             time left + LeaseMargin     Config.Lease (1 min), renewed
//	                                                      every Config.Heartbeat (20 s)
//	message hidden for        the queue's timeout         extended every half timeout
//	                          (≥ 6 × function timeout)    until the batch returns
//
// Because each batch's context carries a deadline, the handler's deadline
// guard works as under Lambda: records are not started in the last
// handler.Config.DeadlineReserve before the deadline, and run under a context that
// ends before it. The visibility timeout can therefore be short (30 s is
// fine for an hour's work): the consumer keeps the message hidden as long
// as the batch runs, and if an extension is lost the message that shows
// early finds its key in progress under a live lease, so the second worker
// does not run it (with handler.WithBackoff it hides it again until the
// lease ends; wrap the back-off's client in Backoff so that the batch's
// extensions leave that message alone).
//
// The lease is how long a key stays blocked after its worker dies (kill
// -9, a lost node) before another worker may take it over. A claim the
// handler makes without a lease of its own (idem.Config.Lease unset) takes
// the consumer's short one, Config.Lease, and a heartbeat renews it every
// Config.Heartbeat while its work runs (a default lease in each batch's
// context, which idem.Do reads). So a dead worker's key is free at most a minute
// after its last renewal, whatever MaxRunTime is, and its message, which
// comes back one visibility timeout after the last extension, is retried
// when a retry can succeed. The price is the renewals: one conditional
// write to the store every 20 s per running record, 3 a minute of work
// (an UpdateItem of 1 write unit on DynamoDB: $1.875 per million
// record-minutes on demand); work shorter than 20 s makes none. A store
// unreachable for longer than the lease lets another worker take the key
// over while the work still runs; the first's completion then fails with
// idem.ErrLeaseLost. A negative Config.Lease gives the claims Lambda's lease
// instead (the batch's time left plus idem.Config.LeaseMargin) and no
// renewals; a lease set on the handler (idem.WithLease, with its
// idem.WithHeartbeat) wins over both.
//
// Choose MaxRunTime for the longest batch (plus the deadline reserve), as
// you would a function's timeout. MaxRunTime plus the visibility timeout
// must be at most 12 hours, the longest SQS hides a received message.
//
// # Stopping
//
// Stop stops receiving and waits for the running batches; StopAndCancel
// also cancels their contexts; Run does Stop for Config.GracePeriod and
// then StopAndCancel when its context ends (SIGTERM). No message is ever
// deleted unless the handler acknowledged it: work that did not finish
// leaves its message to come back after its visibility timeout (a
// cancelled record releases its claim, so the retry runs it; a killed
// process leaves the claim to its lease). A batch received while stopping
// is given back at once (visibility 0) without being started: nothing ran
// or was claimed, so that is a give-back, not an acknowledgement.
//
// A process killed with SIGKILL loses nothing either: its messages come
// back after their visibility timeout and their keys' claims stop it from
// running twice. So any number of consumers, in any number of processes,
// may share one queue and one store.
//
// # Health and metrics
//
// Healthy and HealthHandler say whether the consumer runs and can receive;
// Stats counts what it did. The handler logs one line per batch and, with
// handler.WithEMF, writes its CloudWatch metrics, as under Lambda; the
// consumer adds a debug line per batch with its deletes and extensions,
// and warnings for what it retries.
//
// The package reads no environment variable: the reference worker in
// lambda/ does (IDEMQ_CONSUMER_QUEUE_URL runs it as a consumer).
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package consumer
