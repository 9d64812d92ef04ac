// Package producer sends requests to an SQS queue with their idempotency
// key in the body, where package handler reads it, so that every copy of
// a request (a re-send after a lost answer, a producer's retry, a
// redrive) is one request to the handler: a duplicate message, never a
// duplicate execution.
//
//	p, err := producer.New(sqs.NewFromConfig(cfg), queueURL)
//	if err != nil {
//		log.Fatal(err) // an *idem.ConfigError for each bad setting
//	}
//	sent, err := p.Send(ctx, producer.Message{Key: "order-1042", Body: []byte(`{"prompt":"summarise"}`)})
//	// sends {"idempotency_key":"order-1042","prompt":"summarise"}
//
// The key is made where the work is decided, once, and sent with every
// copy. Config.Request is the handler's own request.Identity: Send puts
// the key where it reads it (the body member KeyField, request.
// DefaultKeyField unless set, or the attribute KeyAttribute), or lets the
// message make it (KeyFields, KeyFunc). Either way the message sent is
// read back with the handler's own request.Reader, so Sent.Key is the key
// the handler will claim (Sent.RecordKey, with a namespace); a message
// that already holds another key is refused (ErrKeyMismatch), and one
// whose body and attributes exceed Config.MaxMessageBytes as they will be
// sent, ErrTooLarge; a body or attribute value SQS would refuse (empty,
// not UTF-8, a character outside XML's: queue.CheckText), ErrBadMessage.
//
// # A lost answer
//
// An attempt that gets no answer (a timeout, a connection cut after the
// request went out, a server error, a throttle) may or may not have put
// the message on the queue. Send sends it again, the same body with the
// same key, up to Config.MaxAttempts times with a back-off, while the
// context lasts. These attempts are the send's only retries: each is one
// request, whatever the client's retryer (the SDK makes one attempt of
// each). On a standard queue the request may then be there twice,
// under two message ids: the handler keys on the body, so the second
// copy replays the first's result instead of running the work again. On
// a FIFO queue every attempt carries the same MessageDeduplicationId
// (DeduplicationID of the key), so within the queue's 5-minute
// deduplication window the queue keeps one copy; after it, the handler
// still catches the second. An error wrapping ErrUnconfirmed says no
// answer came back: the message may be on the queue, and sending it again
// later with the same key is safe. ErrRejected says SQS refused it.
//
// # Batches
//
// SendBatch splits its messages into SendMessageBatch calls of at most 10
// entries and Config.MaxBatchBytes bytes (1 MiB), and reports each
// message's outcome (Sent.Err, a *MessageError naming it). A message
// above Config.MaxMessageBytes fails alone, before anything is sent; of a
// batch SQS partly failed only the failed entries are sent again.
//
// Program errors are *idem.ConfigError values from New; the package reads
// no environment variables. See docs/producer.md.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package producer
