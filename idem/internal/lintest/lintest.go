// Package lintest runs idemtest's history check on idemq's own stores,
// each on its real server: the runs every store gets (a short one in
// make test, long ones in make linearize), the flags make linearize sets,
// a netfault filter from linearize.Faults, and the server's restart from
// the scripts/with-*.sh command.
package lintest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest/linearize"
	"github.com/idemq/idemq/internal/netfault"
)

// The flags of make linearize; without them a store gets one short run.
var (
	long     = flag.Int("linearize.ops", 0, "operations of each long run (make linearize); 0: one short run")
	restart  = flag.Bool("linearize.restart", false, "add runs that restart the server (its scripts/with-*.sh restart command), keeping its data")
	beyond   = flag.Bool("linearize.beyond", false, "add a run with the clients' clocks beyond the bound, which the check must find not linearizable")
	pictures = flag.String("linearize.pictures", "", "a directory for the pictures of histories the check finds not linearizable")
	table    = flag.String("linearize.table", "", "a file each run appends its row of the table to (make linearize: results/linearize.md)")
)

// Store is a store on its server, as a run uses it.
type Store struct {
	// Name names the store in the table: dynamodb, postgres, redis, memory.
	Name string
	// Open returns the store on a fresh table (or key space); with
	// Layer, its requests go through a fault layer that asks faults.
	Open func(t *testing.T, faults *linearize.Faults) idem.Store
	// Layer says the store has a fault layer (a proxy before its
	// server); without one the checker loses answers itself.
	Layer bool
	// RestartEnv names the variable holding the server's restart command
	// (scripts/with-*.sh); "" when the store has no server to restart.
	RestartEnv string
	// RestartEvery is how often a restart run restarts the server.
	// Defaults to 2 s.
	RestartEvery time.Duration
}

// run is one history check of a store.
type run struct {
	name   string
	faults string // what the table says of its faults
	cfg    linearize.Config
	layer  bool // through the store's fault layer
	bites  bool // must be found not linearizable
}

// Run checks the store's histories: in make test one short run with
// every fault but restarts; with -linearize.ops long runs, one per kind
// of fault. Under -short a store with a server (Layer) is skipped.
func Run(t *testing.T, s Store) {
	t.Helper()
	if testing.Short() && s.Layer {
		t.Skip("the history check needs the store's server")
	}
	for _, r := range runs(s) {
		t.Run(r.name, func(t *testing.T) {
			var faults *linearize.Faults
			cfg := r.cfg
			if r.layer {
				faults = &linearize.Faults{LoseAnswers: 0.05, Refusals: 0.02}
				cfg.Faults = faults
			}
			cfg.Name = s.Name + "-" + r.name // the picture's file, when the check fails
			store := s.Open(t, faults)
			if !r.bites {
				rep := linearize.Linearizable(t, store, cfg)
				row(t, s.Name, r.faults, rep)
				return
			}
			h, err := linearize.Record(store, cfg)
			if err != nil {
				t.Error(err)
			}
			err = h.Check()
			t.Log(h.Report)
			if !errors.Is(err, linearize.ErrNotLinearizable) {
				t.Fatalf("clocks ±%s with a bound of %s: %v; want the history not linearizable", h.Report.ClockOffset, h.Report.ClockSkew, err)
			}
			row(t, s.Name, r.faults, h.Report)
		})
	}
}

// runs are the store's runs.
func runs(s Store) []run {
	base := linearize.Config{PictureDir: *pictures}
	network := "lost answers, refusals"
	layer := s.Layer
	if !layer {
		base.LoseAnswers = 0.05
		network = "lost answers (in process)"
	}
	common := network + ", timeouts, pauses, clocks ±bound"
	if *long == 0 {
		return []run{{name: "faults", faults: common, cfg: base, layer: layer}}
	}
	base.Operations, base.Clients, base.Keys = *long, 24, 16
	rs := []run{{name: "faults", faults: common, cfg: base, layer: layer}}
	if *restart && s.RestartEnv != "" {
		c := base
		c.RestartEvery = s.RestartEvery
		c.Restart = restarter(s.RestartEnv)
		rs = append(rs, run{name: "restarts", faults: common + ", server restarts", cfg: c, layer: layer})
	}
	if *beyond {
		c := base
		c.Operations = min(*long, 5000)
		c.ClockOffset = 4 * 50 * time.Millisecond // four times the bound (50 ms)
		rs = append(rs, run{name: "beyond-the-bound", faults: network + ", timeouts, pauses, clocks ±4×bound", cfg: c, layer: layer, bites: true})
	}
	return rs
}

// Pictures is -linearize.pictures: where the pictures of failing
// histories go besides the tests' artifacts ("" : nowhere else).
func Pictures() string { return *pictures }

// restarter runs the server's restart command, named by env.
func restarter(env string) func(context.Context) error {
	return func(ctx context.Context) error {
		cmd := os.Getenv(env)
		if cmd == "" {
			return fmt.Errorf("lintest: %s is not set: start the server with scripts/with-*.sh", env)
		}
		out, err := exec.CommandContext(ctx, cmd).CombinedOutput()
		if err != nil {
			return fmt.Errorf("lintest: %s: %w: %s", cmd, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}

// Filter is a netfault filter that asks faults about each request.
func Filter(faults *linearize.Faults) netfault.Filter {
	return func(req []byte) netfault.Verdict {
		switch faults.Decide(req) {
		case linearize.FaultRefuse:
			return netfault.Refuse
		case linearize.FaultLoseAnswer:
			return netfault.LoseAnswer
		}
		return netfault.Pass
	}
}

var tableMu sync.Mutex

// row appends the run's row to -linearize.table: store, faults, clients,
// keys, operations, what the faults did, the verdict, the time.
func row(t *testing.T, store, faults string, r linearize.Report) {
	t.Helper()
	if *table == "" {
		return
	}
	tableMu.Lock()
	defer tableMu.Unlock()
	f, err := os.OpenFile(*table, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	did := fmt.Sprintf("%d lost answers (%d operations sent again), %d refused, %d no answer, %d timeouts, %d pauses (%d late writes refused), %d take-overs, %d expired records claimed again, %d restarts",
		r.LostAnswers, r.Resent, r.Refused, r.NoAnswer, r.Timeouts, r.Pauses, r.PausedRefused, r.TakeOvers, r.Reclaimed, r.Restarts)
	if _, err := fmt.Fprintf(f, "| %s | %s | %d | %d | %d | %s | %s | %s |\n", store, faults, r.Clients, r.Keys, r.Operations, did, r.Verdict,
		(r.Ran + r.Checked).Round(time.Second)); err != nil {
		t.Fatal(err)
	}
}
