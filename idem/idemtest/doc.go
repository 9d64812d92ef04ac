// Package idemtest holds the conformance suite every idem.Store must pass.
// Run it from a store's tests:
//
//	func TestConformance(t *testing.T) {
//		idemtest.Run(t, func(t *testing.T) idem.Store { return mystore.New(...) })
//	}
//
// newStore is called once per subtest and must return an empty store (for a
// database, a fresh table) that stays usable until the subtest ends.
package idemtest
