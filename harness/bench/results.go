package bench

import (
	"fmt"
	"time"
)

// Results is everything one Run measured.
type Results struct {
	Machine        Machine
	Started, Ended time.Time
	LoadBefore     string            // 1, 5 and 15 minute load averages when the run began
	LoadAfter      string            // and when it ended
	Node           string            // the Node version the Powertools side ran on
	Packages       map[string]string // npm package → version, on the Powertools side
	Records, Runs  int               // records per scenario trial, measured trials per condition
	// ThroughputRecords is the records per first-delivery throughput
	// trial; 0 in runs made before it was told apart: Records.
	ThroughputRecords int
	// NoWarmup: nothing was warmed up (Config.NoWarmup, a short run).
	NoWarmup bool
	// CPUOnly: first delivery alone, idemq and Powertools (Config.CPUOnly).
	CPUOnly      bool
	ScenarioSize int            // the batch size of the scenario runs
	Scenarios    []Measurement  // every scenario, idemq and Powertools
	Throughput   []Measurement  // first delivery, every size and model
	Micro        []MicroResult  // from ParseGoBench, filled by the caller
	Startup      *StartupResult // nil: not measured
	// DefaultConcurrency is idemq's default concurrency
	// (handler.DefaultConcurrency) when the run was made.
	DefaultConcurrency int
	// KeepConnections: every Go client that ran records kept as many idle
	// connections as it ran records at once (dynamostore.KeepConnections).
	// False in runs made before, whose clients kept the SDK's 10.
	KeepConnections bool
	// BySize is what a result costs by its size (MeasureSizes); nil: not
	// measured.
	BySize *SizeResults `json:",omitempty"`
	// QuietLoad is the 1-minute load average each round waited to be
	// under before it started (Config.Quiet.Load); 0: it did not wait.
	QuietLoad float64 `json:",omitempty"`
	// QuietBusy is the share of the machine's CPU that could be busy,
	// while the run idled, for a round to start (Config.Quiet.Busy);
	// 0: not checked.
	QuietBusy float64 `json:",omitempty"`
	// Rounds are every round of every condition, in the order run, with
	// the load at their start and end. Empty in runs made before they
	// were kept.
	Rounds []Round `json:",omitempty"`
}

// find returns the measurement of runner in a condition. At batch sizes up
// to idemq's default concurrency the whole-batch runners were not run:
// they are the default ones there, whose measurement stands in.
func (r *Results) find(runner string, s Scenario, size int, model time.Duration) (Measurement, bool) {
	ms := r.Throughput
	if s != First {
		ms = r.Scenarios
	}
	if size <= r.DefaultConcurrency {
		switch runner {
		case RunnerFloorWide:
			runner = RunnerFloor
		case RunnerFloorFencedWide:
			runner = RunnerFloorFenced
		case RunnerIdemqWide:
			runner = RunnerIdemq
		}
	}
	for _, m := range ms {
		if m.Runner == runner && m.Scenario == s && m.BatchSize == size && m.Model == model {
			return m, true
		}
	}
	return Measurement{}, false
}

// Quiet reports whether r's figures may be called a quiet machine's: the
// machine was checked before each round (QuietLoad is not 0) and every
// measured round started quiet. When not, the reason says why.
func (r *Results) Quiet() (bool, string) {
	if len(r.Rounds) == 0 {
		return false, "the load was not recorded per round (a run made before the bench waited for a quiet machine)"
	}
	if r.QuietLoad <= 0 {
		return false, "the load was not checked before each round (-quiet-load 0)"
	}
	measured, loud := 0, 0
	var first Round
	for _, rd := range r.Rounds {
		if !rd.Measured() {
			continue
		}
		measured++
		if !rd.Quiet {
			loud++
			if loud == 1 {
				first = rd
			}
		}
	}
	switch {
	case measured == 0:
		return false, "no measured round was recorded"
	case loud > 0:
		return false, fmt.Sprintf("%d of the %d measured rounds started loud, with the 1-minute load average at or over %.2f or over %.0f %% of the CPU busy (the first: %s, batch %d, model %s, round %d, at load %.2f, %.0f %% busy)",
			loud, measured, r.QuietLoad, 100*r.QuietBusy, first.Scenario, first.BatchSize, fmtModel(first.Model), first.Index, first.LoadBefore.One, 100*first.BusyBefore)
	}
	return true, ""
}

// CPUFiles returns the file names, under the results directory, that a
// -cpu-only run's report (CPUReport) and samples go to: bench-cpu.md and
// bench-cpu.json for a quiet run (Results.Quiet), bench-cpu-loaded.md
// and bench-cpu-loaded.json otherwise, so that a run on a loaded machine
// never replaces the published one. err, for a run that was not quiet,
// says why (errors.Is ErrNotQuiet).
func CPUFiles(r *Results) (md, json string, err error) {
	if ok, why := r.Quiet(); !ok {
		return "bench-cpu-loaded.md", "bench-cpu-loaded.json", fmt.Errorf("%w: %s", ErrNotQuiet, why)
	}
	return "bench-cpu.md", "bench-cpu.json", nil
}
