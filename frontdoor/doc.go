// Package frontdoor is an HTTP front door for an idemq worker: it takes a
// request with an Idempotency-Key (the IETF draft "The Idempotency-Key
// HTTP Header Field"), puts it on the worker's queue once per key, and
// answers the request's status and result by key from the worker's
// records, in the same store.
//
//	id := request.Identity{Namespace: "summarise"} // the worker's, handler.WithRequest(id)
//	q, err := producer.New(sqsClient, queueURL, producer.WithRequest(id))
//	fd, err := frontdoor.New(store, q, frontdoor.WithRequest(id))
//	if err != nil {
//		log.Fatal(err) // an *idem.ConfigError for each bad setting
//	}
//	http.ListenAndServe(":8080", fd)
//
// The front door, its queue (a *producer.Producer) and the worker's
// handler take one request.Identity, which says who a request is: its
// namespace and where its key comes from. New refuses a queue sending by
// another. The front door makes no key by rules of its own:
//
//	key rule (Identity)       what is sent                               the worker's record key
//	KeyField (default)        the body, the key put in the member        ns#key
//	KeyAttribute              the body as posted, the key in the attr.   ns#key
//	KeyFields, KeyFunc        the body as posted                         ns#<what the body makes>
//	any, with Config.Scope    and the scope in request.ScopeAttribute    ns:scope#…
//
// With KeyFields or a KeyFunc the Idempotency-Key is the front door's
// handle for the POST, by which its status is read. The body is sent as
// the caller sent it, every byte, but for the key member put first when
// it is absent (request.Reader.Stamp).
//
// A POST to Config.Path (/requests) with a JSON object body and an
// Idempotency-Key is sent through idem.Do on a record of the front door's
// own (Config.AcceptNamespace: the worker's namespace and "#front", keyed
// by the Idempotency-Key, within the caller's scope), whose stored result
// is the 202 answer and the worker's record key: a repeat of the request
// is answered the same 202 without sending (once the worker has completed
// it, what a GET answers: 200 with the result), a POST while the first is
// still sending gets 409, and one with the same key and another body 422
// (the record holds the body's fingerprint, of its canonical JSON, so
// white space and member order do not count).
//
// A GET of Config.Path/{key} reads the front door's record for the key,
// then the worker's record it names:
//
//	request                                  answer
//	any, Config.Scope names no caller        403 Forbidden; nothing enqueued or read
//	POST, new key                            202 Accepted, Location: the status URL, body {"idempotency_key", "status": "queued", "status_url"}
//	POST, same key and body (a retry)        202, the same answer, not enqueued again
//	POST, the same, the worker completed it  as GET: 200 with the result (204 when too large to store)
//	POST, same key, another body             422 Unprocessable Content
//	POST, same key, first still enqueuing    409 Conflict, Retry-After: 1 (another body: 422)
//	POST, no Idempotency-Key                 400 (unless Config.KeyOptional)
//	POST, malformed key or body              400; 415 not JSON
//	POST, the key "." or ".."                400 (clients remove the dot segment of its status URL)
//	POST, a body that makes no key           400 (KeyFields, KeyFunc), or holds another key
//	POST, a scope the key rule refuses       400
//	POST, too large                          413: over Config.MaxBodyBytes, or its message over the queue's size
//	POST, the enqueue failed                 503, Retry-After: 1 (the key is released)
//	POST, the queue refused the message      500 (the key is released)
//	GET, the worker completed it             200, the result (application/json when it is JSON)
//	GET, completed, result too large         204, Idemq-Result-Omitted: its size
//	GET, a worker runs it                    202 {"status":"in_progress"}
//	GET, accepted, not started               202 {"status":"queued"}
//	GET, being enqueued                      202 {"status":"accepting"}
//	GET, a key or scope no POST can have     404, the store not asked
//	GET, unknown or expired key              404
//	store unreachable                        503, Retry-After: 1
//	another path; another method             404; 405 with Allow
//
// Errors are RFC 9457 problems (application/problem+json), the router's
// 404 and 405 included. Every answer carries Cache-Control: no-store and
// X-Content-Type-Options: nosniff. A status URL is the key escaped as one
// path segment (every byte but RFC 3986's unreserved characters
// percent-encoded); paths are routed segment by segment, each unescaped
// however it is spelled, never cleaned or redirected, so every accepted
// key's URL reads it back.
//
// Whose key is it: set Config.Scope (WithScope) to a function naming each
// request's caller, and every caller's keys are its own. The request is
// sent with the caller's own key and its scope in request.ScopeAttribute,
// and the worker keeps it under idem.ScopedKey(namespace, scope, key), a
// form no unscoped key takes: a producer sending the raw key "acme:k"
// never reaches caller acme's key "k". Another caller's POST of the same
// key is another request; its GET, 404. The client sees its own key
// only. Without Config.Scope every caller shares one key space: a caller
// that posts or reads another's key is answered the other's request.
//
// Exactly once, and where it stops: the front door enqueues a key once
// while its record stands. An enqueue whose answer was lost (the queue
// took the message, the front door saw an error) releases the key and is
// answered 503; the client's retry enqueues it again, and the worker's
// handler runs the two messages once. A 202 whose answer was lost is
// replayed to the client's retry. Neither makes a second provider call.
// A request the worker gave up on (its message in the dead-letter queue)
// stays "queued" until its record expires (Config.Idem.Expiry).
//
// The front door reads results through idem.Config.StoredResult: set
// Config.Idem.Blobs to the worker's blob store for results it offloads.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package frontdoor
