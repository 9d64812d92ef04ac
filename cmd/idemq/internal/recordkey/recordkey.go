// Package recordkey turns a key an operator gives the idemq command
// (cmd/idemq) into the key of the record the worker's handler claims for
// it, through the request contract: the worker's request.Identity, as its
// variables say it, and its Reader name the record (Reader.ID for a key
// typed as the handler reads it, Reader.ReadKey for a message body). It is
// apart from the command so that a test outside package main (the
// cross-part property test, harness/internal/contract) runs the very code
// the command runs.
package recordkey

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// Typed is the key an operator gave: Value, or Body, with a Scope; or a
// stored key as it is (Raw).
type Typed struct {
	// Value is the key within the namespace, as the handler reads it from
	// a message: the body member's or the attribute's value, or what the
	// key fields make ("document_id:doc-1:version:1"); with Raw, the
	// stored key.
	Value string
	// Body is a message body to read the key from, with the worker's key
	// settings (the command's --body), instead of Value.
	Body string
	// Scope is the scope of a front door's caller the request was made
	// for (request.ScopeAttribute); "" for none.
	Scope string
	// Raw takes Value as a stored key, as it is (copied from a log or a
	// listing, or made by a worker's KeyFunc).
	Raw bool
}

// ErrUsage means what was typed cannot name a record: no key, two ways of
// naming it at once, or a setting it needs is missing or bad.
var ErrUsage = errors.New("recordkey: cannot name a record")

// Key returns the key of the record t names under id, the worker's
// request.Identity as its variables say it (idemqenv.Settings.Request,
// read by request.Fields' table): the key the worker's handler claims for
// a message holding it.
//
//   - Value: request.Reader.ID(Value, Scope), the key the handler makes
//     of that value (idem.ClientKey, or idem.ScopedKey with a scope).
//   - Body: request.Reader.ReadKey of a message with that body (and the
//     scope's attribute), read with the worker's key settings.
//   - Raw: Value as it is; when id has a namespace, a key of another
//     namespace is refused.
//
// What cannot name a record is ErrUsage; a key the key rule refuses is
// idem.ErrBadKey or idem.ErrNoKey.
func Key(id request.Identity, t Typed) (idem.Key, error) {
	if t.Raw {
		return raw(id.Namespace, t)
	}
	if id.Namespace == "" {
		return "", fmt.Errorf("%w: the namespace is required to make the stored key, as the worker does; or give the stored key as it is (raw)", ErrUsage)
	}
	r, err := request.NewReader(id)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrUsage, err)
	}
	switch {
	case t.Body != "" && t.Value != "":
		return "", fmt.Errorf("%w: a key and a body: give one", ErrUsage)
	case t.Body != "":
		if id.KeyAttribute != "" {
			return "", fmt.Errorf("%w: the key is in the message attribute %s, not in the body: give its value as the key", ErrUsage, id.KeyAttribute)
		}
		msg := events.SQSMessage{Body: t.Body}
		if t.Scope != "" {
			msg.MessageAttributes = map[string]events.SQSMessageAttribute{
				request.ScopeAttribute: {DataType: "String", StringValue: &t.Scope},
			}
		}
		got, err := r.ReadKey(msg)
		if err != nil {
			return "", fmt.Errorf("the body, read by %s: %w", id.Source(), err)
		}
		return got.Key, nil
	case t.Value == "":
		return "", fmt.Errorf("%w: no key: give the key, or a body to read it from", ErrUsage)
	}
	got, err := r.ID(t.Value, t.Scope)
	if err != nil {
		return "", err
	}
	return got.Key, nil
}

// raw is Key of a stored key given as it is, within namespace ns if set.
func raw(ns string, t Typed) (idem.Key, error) {
	switch {
	case t.Body != "" || t.Scope != "":
		return "", fmt.Errorf("%w: a stored key (raw) holds its scope already; give it alone", ErrUsage)
	case t.Value == "":
		return "", fmt.Errorf("%w: the key is empty", ErrUsage)
	}
	key := idem.Key(t.Value)
	if ns != "" && !key.InNamespace(ns) {
		own := "it is of no namespace's form (namespace#key)"
		if ns, _, _ := key.Parts(); strings.Contains(t.Value, "#") {
			own = fmt.Sprintf("its namespace is %q", ns)
		}
		return "", fmt.Errorf("%w: key %q is not in namespace %q: %s; the command reads and changes its namespace's records only",
			ErrUsage, t.Value, ns, own)
	}
	return key, nil
}
