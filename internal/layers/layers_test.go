// Package layers checks the library's architecture as its imports show
// it: every import goes down a layer, never back up.
package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/idemq/idemq"

// layers ranks the library's packages, lowest first: a package may import
// only packages of a lower layer (and the standard library, and its own
// drivers). A package of the repository with no rank here (lambda, the
// harness, infra, internal helpers) is no library package: no library
// package may import it.
var layers = map[string]int{
	// What the model shares with every package above it and no user
	// names: the options kit (the one ConfigError, ApplyOptions), the
	// stores' helpers (the owner token, an expiry's epoch seconds, the
	// stored fingerprint, the encodings) and what a runner tells Do in a
	// context (a default lease, a settle deadline). They import no package
	// of ours.
	"internal/optkit":   -1,
	"internal/storekit": -1,
	"internal/leasectx": -1,
	// What an ordered stream's batch needs: the checkpoint of its
	// records' outcomes, and the mark that tells the handler a batch is a
	// stream's.
	"internal/streamctx": -1,
	// The test servers' variables, and the rule that a test whose server
	// is missing fails (idemtest's kits wrap it).
	"internal/testenv": -1,
	// The model and the deployment arithmetic (with the back-off the
	// consumer and the producer share): no package of ours below.
	"idem":  0,
	"queue": 0,
	// Built on the model: keys from JSON, the stores, the conformance suite.
	"idem/idemjson":   1,
	"idem/memstore":   1,
	"idem/pgstore":    1,
	"idem/redisstore": 1,
	"idem/s3blob":     1,
	"idem/idemtest":   2,
	// A store opened from its settings (and the SDK client's connections
	// the DynamoDB store and the worker size); each store's opener of it.
	"idem/stores":                2,
	"idem/dynamostore":           3,
	"idem/dynamostore/dynamoenv": 4,
	"idem/pgstore/pgenv":         3,
	"idem/redisstore/redisenv":   3,
	// The history check, apart from the suite so that only a test that
	// imports it needs its checker (porcupine).
	"idem/idemtest/linearize": 3,
	// Who a request is: its key and fingerprint from a message, for
	// every part below.
	"request": 2,
	// Every IDEMQ_* variable, parsed and checked: just above what it
	// fills in (the request's identity, the store's settings, the queue's),
	// below every part it configures, which it does not import.
	"idemqenv": 3,
	// A batch of SQS records into claims, and what runs batches.
	"handler":             3,
	"handler/handlertest": 4,
	// Kinesis and DynamoDB Streams batches through a handler, and the kit
	// that drains a shard into one as the event source mapping does.
	"handler/stream":            4,
	"handler/stream/streamtest": 5,
	// The handler run over a store a test passes, recording what it did.
	"handler/handlertest/handlerbundle": 4,
	"consumer":                          4,
	// What sends the requests the handler keys on, what fronts or feeds
	// other runners with its keys, and its tracing.
	"producer":  4,
	"durable":   4,
	"idemqotel": 4,
	// The HTTP front door: it sends through the producer.
	"frontdoor": 5,
	// The front door's suite, run against any store: the front door, the
	// producer and the worker's handler over it.
	"frontdoor/frontdoortest": 6,
	// The one wiring place, above every part it configures: the settings
	// become each part's options, each AWS client is made once, for the
	// worker (a function of your own), the front door and the dispatcher.
	"worker": 6,
}

// The library's modules, whose packages (tests left out) are checked.
var patterns = []string{"./...", "./idem/dynamostore/...", "./idem/pgstore/...", "./idem/redisstore/...", "./idem/s3blob/...", "./durable/...", "./idemqotel/...", "./worker/..."}

func TestImportsGoDown(t *testing.T) {
	t.Parallel()
	args := append([]string{"list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr(err))
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		from, ok := ours(fields[0])
		if !ok {
			continue
		}
		rank, library := layers[from]
		if !library {
			continue // lambda, internal helpers: they may import anything
		}
		checked++
		for _, imp := range fields[1:] {
			to, ok := ours(imp)
			if !ok {
				continue
			}
			toRank, toLibrary := layers[to]
			switch {
			case !toLibrary:
				t.Errorf("%s imports %s, which is no library package", from, to)
			case toRank >= rank:
				t.Errorf("%s (layer %d) imports %s (layer %d): an arrow back up or across", from, rank, to, toRank)
			}
		}
	}
	if checked < len(layers) {
		t.Errorf("checked %d library packages; want all %d of the layers table (did one move?)", checked, len(layers))
	}
}

// ours returns the path of an import inside the module, without the
// module's prefix.
func ours(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok
}

func stderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
