// Package idemtest holds the conformance suite every idem.Store must pass,
// and the history check every store's record should pass under
// concurrent clients and faults. Run the suite from a store's tests:
//
//	func TestConformance(t *testing.T) {
//		idemtest.Run(t, func(t *testing.T) idem.Store { return mystore.New(...) })
//	}
//
// newStore is called once per subtest and must return an empty store (for a
// database, a fresh table) that stays usable until the subtest ends.
//
// # Histories
//
// The suite checks answers by example. Linearizable checks the history a
// store makes under many concurrent clients (Linearity: 12 by default,
// each with a clock of its own, on 8 keys at a time), recording each
// operation's call and return on one clock, against the sequential model
// of one key's record — absent, IN_PROGRESS (owner, lease, expiry),
// COMPLETED (owner, result, expiry), expired — with porcupine
// (github.com/anishathalye/porcupine), partitioned by key:
//
//	func TestLinearizable(t *testing.T) {
//		idemtest.Linearizable(t, mystore.New(...), idemtest.Linearity{})
//	}
//
// Every answer must be one the record could have given at a moment
// between the call and the return. An operation with no answer (a
// timeout, a restart) may have taken effect or not; a request the store's
// client sent again after its answer was lost is checked with its first
// send, which may have applied. The clients pause past their leases and
// write late, send stray writes after a completion (a release, the
// completion again, another result), and let records expire; the check
// finds a claim that ignores a lease, a completion that ignores the
// owner, a release that deletes a completed record. And it holds the
// clock-skew bound (idem.Config.ClockSkew): with every client's clock
// within Linearity.ClockSkew of the truth, no claim may take over a lease
// its holder still counts on; with clocks further apart (ClockOffset) it
// finds the key executed twice. A failing history is written as
// porcupine's HTML page (the test's artifact directory, go test
// -artifacts; Linearity.PictureDir), which shows the overlapping
// operations.
//
// Faults come from the store's own fault layer (a proxy in front of its
// server that calls Faults.Decide for each request: idemq's stores use a
// TCP proxy for PostgreSQL and Redis and an HTTP transport for
// DynamoDB), from Linearity.LoseAnswers (answers the checker loses
// itself), Timeouts, Pauses, and Restart (the server restarted, keeping
// its data).
package idemtest
