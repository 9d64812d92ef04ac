package frontdoor

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/idemq/idemq/idem"
)

// acceptFormat is the format of the accept records this front door
// writes (acceptRecord). Format 0 is the 202 answer alone, which front
// doors before it wrote.
const acceptFormat = 1

// acceptRecord is the stored result of the front door's record for an
// accepted request: the 202 answer, replayed to every repeat of the POST,
// and the key of the worker's record, which a status read reads.
type acceptRecord struct {
	// Format is acceptFormat.
	Format int `json:"format"`
	// RecordKey is the key the worker's handler claims for the message
	// sent: what request.Reader.Stamp returned, and the queue's send
	// confirmed (producer.Sent.RecordKey).
	RecordKey idem.Key `json:"record_key"`
	// Answer is the 202 answer's body, an acceptedBody.
	Answer json.RawMessage `json:"answer"`
}

// acceptKey is the key of the front door's record for the Idempotency-Key
// key posted within scope ("" for none): idem.ClientKey or, with a scope,
// idem.ScopedKey in Config.AcceptNamespace. Neither can be a worker's
// key: the accept namespace is another, and "#" in it is escaped.
func (fd *frontDoor) acceptKey(scope, key string) (idem.Key, error) {
	if scope == "" {
		return idem.ClientKey(fd.c.AcceptNamespace, key)
	}
	return idem.ScopedKey(fd.c.AcceptNamespace, scope, key)
}

// encodeAccept is the stored result of a request accepted with answer,
// whose worker's record is recordKey.
func encodeAccept(recordKey idem.Key, answer []byte) []byte {
	v, _ := json.Marshal(acceptRecord{Format: acceptFormat, RecordKey: recordKey, Answer: answer})
	return v
}

// decodeAccept reads the stored result of the front door's record for
// key, posted within scope. A record of format 0 (the 202 answer alone,
// written by a front door before format 1) was written for a request
// whose key the worker read from the body member idempotency_key, without
// a scope: its worker's record is idem.ClientKey(namespace, key), as that
// front door made it. Anything else is idem.ErrUnreadableResult.
func (fd *frontDoor) decodeAccept(value []byte, scope, key string) (acceptRecord, error) {
	var rec struct {
		acceptRecord
		acceptedBody
	}
	dec := json.NewDecoder(bytes.NewReader(value))
	if err := dec.Decode(&rec); err != nil {
		return acceptRecord{}, fmt.Errorf("%w: the accept record for %q: %w", idem.ErrUnreadableResult, key, err)
	}
	ar := rec.acceptRecord
	switch {
	case ar.Format == 0 && rec.Status == StateQueued && rec.acceptedBody.Key == key && scope == "":
		ar.Answer = value
		k, err := idem.ClientKey(fd.c.Request.Namespace, key)
		if err != nil {
			return acceptRecord{}, fmt.Errorf("%w: the accept record for %q (format 0): %w", idem.ErrUnreadableResult, key, err)
		}
		ar.RecordKey = k
	case ar.Format != acceptFormat:
		return acceptRecord{}, fmt.Errorf("%w: the accept record for %q is of format %d, which this front door does not know", idem.ErrUnreadableResult, key, ar.Format)
	case len(ar.Answer) == 0 || ar.RecordKey == "":
		return acceptRecord{}, fmt.Errorf("%w: the accept record for %q holds no answer or no worker's record key", idem.ErrUnreadableResult, key)
	}
	return ar, nil
}
