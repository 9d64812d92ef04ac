// Package linearize checks the history a store makes under many
// concurrent clients, recording each operation's call and return on one
// clock, against the sequential model of one key's record — absent,
// IN_PROGRESS (owner, lease, expiry), COMPLETED (owner, result, expiry),
// expired — with porcupine (github.com/anishathalye/porcupine),
// partitioned by key. Run it beside the conformance suite
// (idemtest.Run):
//
//	func TestLinearizable(t *testing.T) {
//		linearize.Linearizable(t, mystore.New(...), linearize.Config{})
//	}
//
// Every answer must be one the record could have given at a moment
// between the call and the return. An operation with no answer (a
// timeout, a restart) may have taken effect or not; a request the store's
// client sent again after its answer was lost is checked with its first
// send, which may have applied. The clients (Config: 12 by default, each
// with a clock of its own, on 8 keys at a time) make their requests as
// idem.Do does (idem.Config.NewClaim, NewExtension, CompletionExpiry),
// pause past their leases and write late, send stray writes after a
// completion (a release, the completion again, another result), time
// out, and let records expire. The check finds a claim that ignores a
// lease, a completion that ignores the owner, a release that deletes a
// completed record, a refusal that names the wrong holder. And it holds
// the clock-skew bound (idem.Config.ClockSkew): with every client's
// clock within Config.ClockSkew of the truth, no claim may take over a
// lease its holder still counts on; with clocks further apart
// (Config.ClockOffset) it finds the key executed twice.
//
// A failing history is written as porcupine's HTML page (the test's
// artifact directory, go test -artifacts; Config.PictureDir), which
// shows the overlapping operations, with a text file beside it listing
// the operations of each key whose history fails.
//
// Faults come from the store's own fault layer (a proxy in front of its
// server that calls Faults.Decide for each request: idemq's stores use a
// TCP proxy for PostgreSQL and Redis and an HTTP transport for
// DynamoDB), from Config.LoseAnswers (answers the checker loses itself),
// Timeouts, Pauses, and Restart (the server restarted, keeping its data).
//
// It is a package of its own, apart from idemtest, so that only a test
// that imports it needs porcupine: put a store's history check in a
// test-only package (idemq's stores keep theirs in internal/linearize),
// and a user of the store never downloads the checker.
package linearize
