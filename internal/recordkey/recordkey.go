// Package recordkey turns a key an operator gives the idemq command
// (cmd/idemq) into the key of the record the worker's handler claims for
// it, through the request contract: the worker's key settings make a
// request.Identity, and its Reader names the record (Reader.ID for a key
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

// Settings are the worker's key settings as the command reads them, each
// from its variable or flag, as written there.
type Settings struct {
	// Namespace is the worker's namespace (IDEMQ_NAMESPACE). Required,
	// but for a raw key.
	Namespace string
	// KeyField is the body member holding the key (IDEMQ_KEY_FIELD).
	// Defaults to request.DefaultKeyField.
	KeyField string
	// KeyFields are the body members that together make a natural key,
	// separated by commas (IDEMQ_KEY_FIELDS: "document_id,version"); a
	// member whose name holds a comma cannot be named. Defaults to none.
	KeyFields string
	// KeyAttribute is the message attribute holding the key
	// (IDEMQ_KEY_ATTRIBUTE). Defaults to none.
	KeyAttribute string
}

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

// Identity returns the request.Identity of s, checked
// (request.Identity.Validate): the worker's, as far as its variables say
// it. A Settings whose every field is "" but Namespace is the zero
// Identity in that namespace.
func (s Settings) Identity() (request.Identity, error) {
	id := request.Identity{Namespace: s.Namespace, KeyField: s.KeyField, KeyAttribute: s.KeyAttribute}
	if s.KeyFields != "" {
		id.KeyFields = strings.Split(s.KeyFields, ",")
		for _, f := range id.KeyFields {
			if f == "" {
				return request.Identity{}, fmt.Errorf("%w: key fields %q: an empty field name (separate names with single commas)", ErrUsage, s.KeyFields)
			}
		}
	}
	if err := id.Validate(); err != nil {
		return request.Identity{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return id, nil
}

// Key returns the key of the record t names under s: the one the
// worker's handler claims for a message holding it.
//
//   - Value: request.Reader.ID(Value, Scope), the key the handler makes
//     of that value (idem.ClientKey, or idem.ScopedKey with a scope).
//   - Body: request.Reader.ReadKey of a message with that body (and the
//     scope's attribute), read with the worker's key settings.
//   - Raw: Value as it is; when s has a namespace, a key of another
//     namespace is refused.
//
// What cannot name a record is ErrUsage; a key the key rule refuses is
// idem.ErrBadKey or idem.ErrNoKey.
func (s Settings) Key(t Typed) (idem.Key, error) {
	if t.Raw {
		return s.raw(t)
	}
	if s.Namespace == "" {
		return "", fmt.Errorf("%w: the namespace is required to make the stored key, as the worker does; or give the stored key as it is (raw)", ErrUsage)
	}
	id, err := s.Identity()
	if err != nil {
		return "", err
	}
	r, err := request.NewReader(id)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrUsage, err)
	}
	switch {
	case t.Body != "" && t.Value != "":
		return "", fmt.Errorf("%w: a key and a body: give one", ErrUsage)
	case t.Body != "":
		if s.KeyAttribute != "" {
			return "", fmt.Errorf("%w: the key is in the message attribute %s, not in the body: give its value as the key", ErrUsage, s.KeyAttribute)
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

// raw is Key of a stored key given as it is.
func (s Settings) raw(t Typed) (idem.Key, error) {
	switch {
	case t.Body != "" || t.Scope != "":
		return "", fmt.Errorf("%w: a stored key (raw) holds its scope already; give it alone", ErrUsage)
	case t.Value == "":
		return "", fmt.Errorf("%w: the key is empty", ErrUsage)
	}
	key := idem.Key(t.Value)
	if s.Namespace != "" && !key.InNamespace(s.Namespace) {
		own := "it is of no namespace's form (namespace#key)"
		if ns, _, _ := key.Parts(); strings.Contains(t.Value, "#") {
			own = fmt.Sprintf("its namespace is %q", ns)
		}
		return "", fmt.Errorf("%w: key %q is not in namespace %q: %s; the command reads and changes its namespace's records only",
			ErrUsage, t.Value, s.Namespace, own)
	}
	return key, nil
}
