package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

// Config says what Run measures.
type Config struct {
	// Endpoint is DynamoDB Local's URL. Defaults to $IDEMQ_DYNAMODB_ENDPOINT.
	Endpoint string
	// Root is the repository's root: harness/bench/powertools (with
	// node_modules installed) and tools/ (DynamoDB Local) are found from
	// it. Defaults to the current directory.
	Root string
	// Sizes are the batch sizes of the throughput runs (even numbers).
	// Defaults to 10, 100 and 1000.
	Sizes []int
	// Models are the simulated model call's durations. Defaults to 0 and
	// 20 ms.
	Models []time.Duration
	// Records is how many records each scenario trial runs, in batches
	// of the size; at least the largest size. Defaults to 1000.
	Records int
	// ThroughputRecords is how many records each first-delivery
	// throughput trial runs; at least the largest size. Defaults to 3 ×
	// Records. Longer trials average out more of a shared machine's
	// noise: measured on 2 vCPUs, trials of 1000 records (one batch of
	// 1000) ran the same floor at 350 to 880 records/s, trials of 4000 at
	// 880 to 1070.
	ThroughputRecords int
	// Runs is how many measured trials each implementation runs per
	// condition, one per round; medians are reported, and ratios as
	// medians of the per-round ratios. Defaults to 7.
	Runs int
	// NoWarmup skips the discarded warm-up trial each implementation
	// otherwise runs first in each condition, and the server's warm-up.
	NoWarmup bool
	// ServerWarmup is how long DynamoDB Local is loaded before anything is
	// measured (unless NoWarmup): its JVM runs requests several times
	// slower until its JIT has compiled them, over some 30,000 of them.
	// Defaults to 60 s.
	ServerWarmup time.Duration
	// ScenarioSize is the batch size of the scenario runs (model 0 ms).
	// Defaults to 100 (or the largest of Sizes, if smaller).
	ScenarioSize int
	// Startup, when set, measures the worker's start-up (MeasureStartup).
	Startup *StartupConfig
	// Price, when set, also measures what a result costs by size
	// (MeasureSizes; its Endpoint and Log are this Config's).
	Price *SizeConfig
	// CPUOnly measures first delivery alone, idemq and Powertools alone
	// (and idemq with the whole batch at once past its default
	// concurrency): no scenarios, no floors, no start-up. CPUReport
	// reports it.
	CPUOnly bool
	// Quiet says whether each round waits for a quiet machine first.
	// Defaults to no waiting (the load of every round is recorded all
	// the same, and Results.Quiet is false).
	Quiet Quiet
	// Log receives progress lines. Defaults to io.Discard.
	Log io.Writer
}

func (c *Config) defaults() {
	if len(c.Sizes) == 0 {
		c.Sizes = []int{10, 100, 1000}
	}
	if len(c.Models) == 0 {
		c.Models = []time.Duration{0, 20 * time.Millisecond}
	}
	if c.Records == 0 {
		c.Records = 1000
	}
	if c.Runs == 0 {
		c.Runs = 7
	}
	if c.ServerWarmup == 0 {
		c.ServerWarmup = time.Minute
	}
	largest := 0
	for _, s := range c.Sizes {
		largest = max(largest, s)
	}
	c.Records = max(c.Records, largest)
	if c.ThroughputRecords == 0 {
		c.ThroughputRecords = 3 * c.Records
	}
	c.ThroughputRecords = max(c.ThroughputRecords, largest)
	if c.ScenarioSize == 0 {
		c.ScenarioSize = min(100, largest)
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// Run measures everything Config asks for against one DynamoDB Local and
// one Powertools driver.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	cfg.defaults()
	if cfg.Endpoint == "" {
		cfg.Endpoint = getenv(EndpointEnv)
	}
	if err := reach(ctx, cfg.Endpoint); err != nil {
		return nil, err
	}
	res := &Results{Machine: ReadMachine(cfg.Root), Started: time.Now(), LoadBefore: loadavg(),
		Records: cfg.Records, ThroughputRecords: cfg.ThroughputRecords, NoWarmup: cfg.NoWarmup, CPUOnly: cfg.CPUOnly, Runs: cfg.Runs, ScenarioSize: cfg.ScenarioSize,
		DefaultConcurrency: handler.DefaultConcurrency, KeepConnections: true}
	pt, err := StartPowertools(ctx, filepath.Join(cfg.Root, PowertoolsDir), cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	defer pt.Close()
	res.Node, res.Packages = pt.Node, pt.Versions

	s := &suite{cfg: cfg, admin: newClient(cfg.Endpoint, nil, 0), quiet: newWaiter(cfg.Quiet, cfg.Log)}
	if s.quiet.q.Load > 0 {
		res.QuietLoad, res.QuietBusy = s.quiet.q.Load, s.quiet.q.Busy
	}
	floor := FloorRunner(RunnerFloor, false, handler.DefaultConcurrency, cfg.Endpoint)
	fenced := FloorRunner(RunnerFloorFenced, true, handler.DefaultConcurrency, cfg.Endpoint)
	idemq := IdemqRunner(RunnerIdemq, handler.DefaultConcurrency, cfg.Endpoint)
	floorWide := FloorRunner(RunnerFloorWide, false, 0, cfg.Endpoint)
	fencedWide := FloorRunner(RunnerFloorFencedWide, true, 0, cfg.Endpoint)
	idemqWide := IdemqRunner(RunnerIdemqWide, 0, cfg.Endpoint)

	if !cfg.NoWarmup {
		if err := s.warmServer(ctx, fencedWide); err != nil {
			return nil, err
		}
	}
	scenarios := Scenarios
	if cfg.CPUOnly {
		scenarios = nil
	}
	for _, sc := range scenarios {
		ms, err := s.measure(ctx, trialCondition{sc, cfg.ScenarioSize, 0}, []Runner{idemq, pt}, func(run string) Trial {
			return NewTrial(sc, run, cfg.Records, cfg.ScenarioSize, 0)
		})
		if err != nil {
			return nil, err
		}
		res.Scenarios = append(res.Scenarios, ms...)
	}
	for _, model := range cfg.Models {
		for _, size := range cfg.Sizes {
			runners := []Runner{floor, fenced, idemq, pt}
			if size > handler.DefaultConcurrency {
				runners = append(runners, floorWide, fencedWide, idemqWide)
			}
			if cfg.CPUOnly {
				runners = []Runner{idemq, pt}
				if size > handler.DefaultConcurrency {
					runners = append(runners, idemqWide)
				}
			}
			ms, err := s.measure(ctx, trialCondition{First, size, model}, runners, func(run string) Trial {
				return NewTrial(First, run, cfg.ThroughputRecords, size, model)
			})
			if err != nil {
				return nil, err
			}
			res.Throughput = append(res.Throughput, ms...)
		}
	}
	if cfg.Startup != nil && !cfg.CPUOnly {
		fmt.Fprintln(cfg.Log, "bench: start-up under the Lambda Runtime Interface Emulator")
		st := *cfg.Startup
		st.Endpoint, st.Root = cfg.Endpoint, cfg.Root
		if res.Startup, err = s.startup(ctx, st); err != nil {
			return nil, err
		}
	}
	if cfg.Price != nil {
		pc := *cfg.Price
		pc.Endpoint, pc.Log = cfg.Endpoint, cfg.Log
		if res.BySize, err = MeasureSizes(ctx, pc, pt); err != nil {
			return nil, err
		}
	}
	res.Ended, res.LoadAfter, res.Rounds = time.Now(), loadavg(), s.rounds
	return res, nil
}

// trialCondition is what every trial of a measurement shares.
type trialCondition struct {
	Scenario  Scenario
	BatchSize int
	Model     time.Duration
}

// suite runs trials, each on a table of its own.
type suite struct {
	cfg    Config
	admin  *dynamodb.Client
	quiet  *waiter
	rounds []Round // every round measure ran, in order
	// runTrial runs one trial; nil: suite.trial (tests replace it).
	runTrial func(ctx context.Context, r Runner, run string, t *Trial) (Sample, error)
}

// measure runs one warm-up trial per runner (discarded, unless NoWarmup),
// then cfg.Runs measured trials per runner, interleaved and in a rotating
// order, each on a fresh table with fresh keys. Each round (every runner
// once) first waits for a quiet machine (cfg.Quiet) and is recorded in
// s.rounds with the load at its start and end; c names the condition
// the trials build runs.
func (s *suite) measure(ctx context.Context, c trialCondition, runners []Runner, build func(run string) Trial) ([]Measurement, error) {
	out := make([]Measurement, len(runners))
	first := -1
	if s.cfg.NoWarmup {
		first = 0
	}
	runTrial := s.runTrial
	if runTrial == nil {
		runTrial = s.trial
	}
	for i := first; i < s.cfg.Runs; i++ {
		rd := Round{Scenario: c.Scenario, BatchSize: c.BatchSize, Model: c.Model, Index: i + 1}
		label := fmt.Sprintf("%s, batch %d, model %s, round %d of %d", c.Scenario, c.BatchSize, fmtModel(c.Model), rd.Index, s.cfg.Runs)
		if !rd.Measured() {
			label = fmt.Sprintf("%s, batch %d, model %s, the warm-up round", c.Scenario, c.BatchSize, fmtModel(c.Model))
		}
		st, err := s.quiet.wait(ctx, label)
		if err != nil {
			return nil, err
		}
		rd.LoadBefore, rd.BusyBefore, rd.Waited, rd.Quiet = st.load, st.busy, st.waited, st.quiet
		for j := range runners {
			k := (j + max(i, 0)) % len(runners)
			r := runners[k]
			run := newRunID()
			t := build(run)
			smp, err := runTrial(ctx, r, run, &t)
			if err != nil {
				return nil, fmt.Errorf("bench: %s, %s, batch %d, model %s: %w", r.ID(), t.Scenario, t.BatchSize, t.Model, err)
			}
			what := "warm-up"
			if i >= 0 {
				what = fmt.Sprintf("run %d/%d", i+1, s.cfg.Runs)
				out[k].Samples = append(out[k].Samples, smp)
			}
			out[k].Runner, out[k].Scenario, out[k].BatchSize, out[k].Model = r.ID(), t.Scenario, t.BatchSize, t.Model
			fmt.Fprintf(s.cfg.Log, "bench: %-26s batch %4d  model %4s  %-7s %-11s %8.0f records/s %7.0f µs CPU/record %5.2f requests/record (%d retried)\n",
				t.Scenario, t.BatchSize, t.Model, what, r.ID(), float64(smp.Records)/smp.Wall.Seconds(),
				float64(smp.CPU.Microseconds())/float64(smp.Records), float64(smp.Calls())/float64(smp.Records), smp.Retries)
		}
		rd.LoadAfter, _ = s.quiet.q.ReadLoad()
		s.rounds = append(s.rounds, rd)
	}
	return out, nil
}

// trial runs t with r on a table of its own, named after run, which it
// creates and deletes.
func (s *suite) trial(ctx context.Context, r Runner, run string, t *Trial) (Sample, error) {
	t.Table = "idemq-bench-" + run
	if err := dynamotest.CreateTable(ctx, s.admin, t.Table); err != nil {
		return Sample{}, fmt.Errorf("bench: %w", err)
	}
	smp, err := r.Run(ctx, *t)
	if err == nil {
		smp.StoredBytes, smp.StoredItems, err = stored(ctx, s.admin, t.Table)
	}
	if derr := deleteTable(ctx, s.admin, t.Table); err == nil {
		err = derr
	}
	return smp, err
}

// warmServer runs first-delivery trials of r (discarded), batch after
// batch of the largest size, until cfg.ServerWarmup has passed, so that no
// measurement pays for DynamoDB Local's JIT compilation. r should send the
// requests idemq sends (the fenced floor), so their paths get compiled.
func (s *suite) warmServer(ctx context.Context, r Runner) error {
	size := slices.Max(s.cfg.Sizes)
	start := time.Now()
	records := 0
	for time.Since(start) < s.cfg.ServerWarmup {
		run := newRunID()
		t := NewTrial(First, run, s.cfg.Records, size, 0)
		smp, err := s.trial(ctx, r, run, &t)
		if err != nil {
			return fmt.Errorf("bench: warming DynamoDB Local up: %w", err)
		}
		records += smp.Records
		fmt.Fprintf(s.cfg.Log, "bench: warming DynamoDB Local up: %6d records, %8.0f records/s\n", records, float64(smp.Records)/smp.Wall.Seconds())
	}
	return nil
}

// startup measures the worker's start-up with a table of its own.
func (s *suite) startup(ctx context.Context, cfg StartupConfig) (*StartupResult, error) {
	cfg.Table = "idemq-bench-startup-" + newRunID()
	if err := dynamotest.CreateTable(ctx, s.admin, cfg.Table); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer func() { _ = deleteTable(ctx, s.admin, cfg.Table) }()
	return MeasureStartup(ctx, cfg)
}
