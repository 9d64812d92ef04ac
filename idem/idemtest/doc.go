// Package idemtest holds the conformance suite every idem.Store must pass.
// Run it from a store's tests:
//
//	func TestConformance(t *testing.T) {
//		idemtest.Run(t, func(t *testing.T) idem.Store { return mystore.New(...) })
//	}
//
// newStore is called once per subtest and must return an empty store (for a
// database, a fresh table) that stays usable until the subtest ends.
//
// The conformance suite checks answers by example; package
// idem/idemtest/linearize checks the histories a store makes under many
// concurrent clients, with lost answers, pauses and skewed clocks,
// against the model of a key's record (it is a package of its own so
// that a store's conformance tests pull in no checker for its users).
//
// ServerURL, Unavailable and Shared connect a store's tests to its server
// (pgtest, redistest): a missing server fails the test, and skips it only
// under -short.
package idemtest
