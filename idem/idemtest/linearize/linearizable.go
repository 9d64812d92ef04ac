package linearize

import (
	"cmp"
	"os"
	"testing"

	"github.com/idemq/idemq/idem"
)

// Linearizable drives s from Config's clients, records every
// operation's call and return on one clock, and checks the history
// against the sequential model of a key's record (porcupine): every
// answer must be one the record could have given at some moment between
// the call and the return, and no claim may take over a lease its holder
// still counts on. It fails the test, writing the history's picture,
// when the history is not linearizable, and returns what the run did.
//
//	func TestLinearizable(t *testing.T) {
//		linearize.Linearizable(t, mystore.New(...), linearize.Config{})
//	}
//
// s must be empty, or hold no key the clients pick (their keys begin
// "lin-" and a random run name). With Config's defaults a run takes a
// few seconds.
func Linearizable(t *testing.T, s idem.Store, cfg Config) Report {
	t.Helper()
	cfg.Name = cmp.Or(cfg.Name, t.Name())
	cfg.PictureDir = t.ArtifactDir() + string(os.PathListSeparator) + cfg.PictureDir
	h, err := Record(s, cfg)
	if err != nil {
		t.Error(err)
	}
	err = h.Check()
	t.Logf("%s", h.Report)
	if err != nil {
		t.Fatal(err)
	}
	return h.Report
}
