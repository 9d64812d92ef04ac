// Package memstore is an idem.Store kept in process memory, with the same
// semantics as the DynamoDB store (both pass idem/idemtest's conformance
// suite): the default for the demo, for examples and for fast tests.
//
// Records live as long as the process. Nothing is deleted when it expires;
// an expired record is only treated as absent, as DynamoDB does before its
// TTL sweeper runs.
package memstore
