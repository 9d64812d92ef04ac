// Package memstore is an idem.Store kept in process memory, with the same
// semantics as the DynamoDB store (both pass idem/idemtest's conformance
// suite): the default for the demo, for examples and for fast tests.
//
// Records live as long as the process. Nothing is deleted when it expires;
// an expired record is only treated as absent, as DynamoDB does before its
// TTL sweeper runs.
//
// Writes staged with the work (idem.Stage with a Write) change the store's
// own key/value data, read back with Store.Value. They are committed with
// the result or not at all: a Write that fails or panics fails the
// completion, and leaves the record IN_PROGRESS and the data unchanged.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package memstore
