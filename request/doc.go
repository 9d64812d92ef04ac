// Package request says who a request is, once, for every part of idemq:
// where its key comes from, its namespace, the fields its payload is
// checked by, and how a caller's scope joins the key.
//
// An Identity is a plain value, valid when zero (the key is the body's
// "idempotency_key", the payload the whole body). Pass the same one to
// every part that meets the request:
//
//	id := request.Identity{Namespace: "summarise", KeyFields: []string{"document_id", "version"}}
//	h, err := handler.New(store, fn, handler.WithRequest(id))       // claims it
//	p, err := producer.New(client, queueURL, producer.WithRequest(id)) // sends it
//
// A Reader reads an Identity's keys from messages, the same way wherever
// it runs: the handler and the consumer claim the key it reads, the
// producer and the front door put a key where it reads it (Reader.Stamp)
// and check it reads it back, the dispatcher names an execution after it,
// and the command finds a record by it (Reader.ID).
//
// # Keys
//
// A record's key is the namespace, "#" and the value (idem.ClientKey):
//
//	source               message                                    record key
//	KeyField (default)   {"idempotency_key":"req-42", ...}          summarise#req-42
//	KeyFields            {"document_id":"doc-1","version":1, ...}   summarise#document_id:doc-1:version:1
//	KeyAttribute         attribute key = "req-42"                   summarise#req-42
//	KeyFunc              what the function returns                  summarise#<value>
//	any, with a scope    and attribute idemq-scope = "acme"         summarise:acme#req-42
//
// # Typed requests
//
// A request type says who its requests are in its struct tags, next to
// its json tags (IdentityOf):
//
//	type Summarise struct {
//		DocumentID string `json:"document_id" idemq:"key"`
//		Version    int    `json:"version" idemq:"key"`
//		Prompt     string `json:"prompt" idemq:"fingerprint"`
//	}
//
// A Type joins those tags with a part's settings (NewType, Merge) and
// decodes bodies into the type, refusing one whose key members would
// not be what the decoded value holds. The typed handler
// (handler.NewTyped), producer (producer.NewTyped) and front door check
// (frontdoor.BodyCheckOf) are built on it, and NewFunc makes any function of
// a request type idempotent with its own signature, returning
// idem.ErrInProgress as an error (package request holds it because the
// key of a typed request is the key its Reader reads from the request's
// JSON form: a wrapped function and a queue's handler that share a store
// and an Identity name one request by one key).
//
// Every value and scope obeys the key rule (idem.CheckValue): not empty,
// UTF-8, no control characters, at most idem.MaxValueBytes bytes. A
// scoped key (idem.ScopedKey) has a form no unscoped key can take.
//
// NewFunc's settings take the one option shape of every idemq package
// (docs/options.md): FuncConfig's fields, set by the options or whole by
// WithConfig; a zero value is the default; NewFunc reports every bad
// setting at once, each an *idem.ConfigError.
package request
