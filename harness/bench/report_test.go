package bench_test

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/bench"
)

// synthetic returns the first-delivery results of a run at batches of 10,
// 100 and 1000 and models of 0 and 20 ms, idemq's default concurrency
// being def. The floors run 1000 records/s drifting with the load, round
// by round; idemq runs 0.97 × the floor in every round but one, at 0.87 ×
// (so the ratio of the medians is about 0.91), and at batch 100, model
// 0 ms, 0.90–1.00 × (within noise of 0.95); Powertools runs half as fast
// with three times the CPU.
func synthetic(def int) *bench.Results {
	load := []float64{1, 0.98, 0.6, 0.62, 1.02}
	scale := func(k []float64, f float64) []float64 {
		out := make([]float64, len(load))
		for i := range load {
			out[i] = 1000 * load[i] * k[i] * f
		}
		return out
	}
	ones := []float64{1, 1, 1, 1, 1}
	drift := []float64{0.97, 0.97, 0.97, 0.97, 0.87}
	noisy := []float64{0.90, 0.94, 0.96, 0.98, 1.00}
	cpu := []float64{800, 800, 800, 800, 800}
	ptCPU := []float64{2400, 2400, 2400, 2400, 2400}
	r := &bench.Results{Records: 1000, Runs: len(load), ScenarioSize: 100, DefaultConcurrency: def, KeepConnections: def == 100}
	if def == 100 { // a run as made now; def 10: a short run of the time before throughput trials were longer
		r.ThroughputRecords = 3000
	} else {
		r.NoWarmup = true
	}
	for _, model := range []time.Duration{0, 20 * time.Millisecond} {
		for _, size := range []int{10, 100, 1000} {
			k := drift
			if size == 100 && model == 0 {
				k = noisy
			}
			ms := []bench.Measurement{
				measured(bench.RunnerFloor, scale(ones, 1), cpu),
				measured(bench.RunnerFloorFenced, scale(ones, 1), cpu),
				measured(bench.RunnerIdemq, scale(k, 1), cpu),
				measured(bench.RunnerPowertools, scale(ones, 0.5), ptCPU),
			}
			if size > def {
				ms = append(ms,
					measured(bench.RunnerFloorWide, scale(ones, 1), cpu),
					measured(bench.RunnerFloorFencedWide, scale(ones, 1), cpu),
					measured(bench.RunnerIdemqWide, scale(drift, 1), cpu))
			}
			for _, m := range ms {
				m.BatchSize, m.Model = size, model
				r.Throughput = append(r.Throughput, m)
			}
		}
	}
	return r
}

func TestTargets(t *testing.T) {
	t.Parallel()
	got := map[string]bench.Target{}
	for _, tg := range bench.Targets(synthetic(100)) {
		got[tg.Name] = tg
	}
	for _, want := range []struct {
		name   string
		met    bool
		result []string // parts of the result
	}{
		{"throughput ≥ 0.95 × fenced floor (idemq's requests) at every size, 100 at once (default)", true, []string{
			"worst ratio 0.96 (0.94–0.98) at batch 100, model 0 ms; within noise in 1 of 6 conditions (interquartile range across 0.95)"}},
		{"client CPU per record ≤ 1.1 × fenced floor (idemq's requests), whole batch at once", true, []string{"worst ratio 1.00 (1.00–1.00)"}},
		{"throughput ≥ 0.95 × fenced floor (idemq's requests) at every size, whole batch at once", true, []string{"worst ratio 0.96 (0.94–0.98) at batch 100, model 0 ms"}},
		{"client CPU per record ≤ 1.1 × fenced floor (idemq's requests), 100 at once (default)", true, []string{"worst ratio 1.00 (1.00–1.00)"}},
		{"client CPU per record ≤ 0.5 × Powertools at every size, whole batch at once", true, []string{"worst ratio 0.33 (0.33–0.33)"}},
		{"client CPU per record ≤ 0.5 × Powertools in every scenario", true, []string{"worst ratio 0.33 (0.33–0.33)"}},
		{"a batch of 1000 with a 20 ms model call faster than Powertools, 100 at once (default)", true, []string{
			"throughput ratio 1.94 (1.94–1.94)"}},
	} {
		tg, ok := got[want.name]
		switch {
		case !ok:
			t.Errorf("no target %q among %v", want.name, got)
		case tg.Met != want.met || tg.Unmeasured:
			t.Errorf("%s: met %v (unmeasured %v), want met %v: %s", want.name, tg.Met, tg.Unmeasured, want.met, tg.Result)
		default:
			for _, part := range want.result {
				if !strings.Contains(tg.Result, part) {
					t.Errorf("%s: result %q, want it to hold %q", want.name, tg.Result, part)
				}
			}
		}
	}
}

func TestTargetsMissed(t *testing.T) {
	t.Parallel()
	r := synthetic(100)
	// Powertools 2.5 × the floor's speed instead of half; idemq 2 % slower
	// (0.95 missed at batch 100, model 0 ms, within noise) and with 1.2 ×
	// the CPU (every CPU limit missed beyond noise).
	for i, m := range r.Throughput {
		for j := range m.Samples {
			s := &r.Throughput[i].Samples[j]
			switch m.Runner {
			case bench.RunnerPowertools:
				s.Wall /= 5
			case bench.RunnerIdemq, bench.RunnerIdemqWide:
				s.Wall = s.Wall * 100 / 98
				s.CPU = s.CPU * 12 / 10
			}
		}
	}
	for _, tg := range bench.Targets(r) {
		switch {
		case strings.HasPrefix(tg.Name, "throughput ≥ 0.95 × fenced floor"):
			if tg.Met || !strings.Contains(tg.Result, "worst ratio 0.94 (0.92–0.96) at batch 100, model 0 ms; under 0.95 in 1 of 6 conditions, within noise (interquartile range across 0.95)") {
				t.Errorf("%s: met %v, %s", tg.Name, tg.Met, tg.Result)
			}
		case strings.HasPrefix(tg.Name, "client CPU per record ≤ 1.1 × fenced floor"):
			if tg.Met || !strings.Contains(tg.Result, "worst ratio 1.20 (1.20–1.20)") || !strings.Contains(tg.Result, "above 1.1 in 6 of 6 conditions, beyond noise") {
				t.Errorf("%s: met %v, %s", tg.Name, tg.Met, tg.Result)
			}
		case strings.HasPrefix(tg.Name, "a batch of 1000"):
			if tg.Met || !strings.Contains(tg.Result, "throughput ratio 0.38 (0.38–0.38)") {
				t.Errorf("%s: met %v, %s", tg.Name, tg.Met, tg.Result)
			}
		}
	}
}

// TestReport checks the tables' ratio columns and the labels derived from
// the run's default concurrency, for a run at today's default and for one
// made at 10 with the SDK's HTTP settings, as an older bench.json holds.
// TestTargetsFenced: the floor targets are judged against the fenced
// floor's runs alone; a faster raw-SDK floor changes none of them.
func TestTargetsFenced(t *testing.T) {
	t.Parallel()
	r := synthetic(100)
	// The unfenced floor 10 % faster with 0.8 × the CPU.
	for i, m := range r.Throughput {
		if m.Runner != bench.RunnerFloor && m.Runner != bench.RunnerFloorWide {
			continue
		}
		for j := range m.Samples {
			s := &r.Throughput[i].Samples[j]
			s.Wall = s.Wall * 10 / 11
			s.CPU = s.CPU * 8 / 10
		}
	}
	n := 0
	for _, tg := range bench.Targets(r) {
		if strings.Contains(tg.Name, "raw-SDK floor") {
			t.Errorf("a target against the raw-SDK floor: %s", tg.Name)
		}
		if !strings.Contains(tg.Name, "× fenced floor") {
			continue
		}
		n++
		if !tg.Met || tg.Unmeasured {
			t.Errorf("%s: met %v (unmeasured %v), want met: %s", tg.Name, tg.Met, tg.Unmeasured, tg.Result)
		}
	}
	if n != 4 {
		t.Errorf("%d floor targets, want 4 (throughput and CPU at two concurrencies)", n)
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		def       int
		want, not []string
	}{
		{100, []string{
			"| 100 | 0 ms | 100 (whole batch) | 980 | 980 | 900 | 0.96 (0.94–0.98) | 0.96 (0.94–0.98) | 490 | 1.92 (1.88–1.96) |",
			"| 1000 | 20 ms | 100 | 980 | 980 | 887 | 0.97 (0.97–0.97) | 0.97 (0.97–0.97) | 490 | 1.94 (1.94–1.94) |",
			"| 1000 | 20 ms | whole batch |",
			"| 10 | 0 ms | 10 (whole batch) |",
			"idemq runs 100 records at once by default",
			"throughput ≥ 0.95 × fenced floor (idemq's requests) at every size, 100 at once (default)",
			"`dynamostore.KeepConnections(n)`",
			"median of the per-round ratios",
			"median of 5 runs (after a warm-up run) of 3000 records in the first-delivery throughput runs and 1000 in the scenario runs,",
		}, []string{"10 at once", "| 100 | 0 ms | whole batch |"}},
		{10, []string{
			"| 100 | 0 ms | 10 | 980 |",
			"| 100 | 0 ms | whole batch |",
			"throughput ≥ 0.95 × fenced floor (idemq's requests) at every size, 10 at once (default)",
			"Go's keeps 10 idle connections",
			"median of 5 runs (no warm-up) of 1000 records,",
		}, []string{"100 at once", "KeepConnections"}},
	} {
		var md, img bytes.Buffer
		r := synthetic(tc.def)
		if err := bench.Report(&md, r); err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.want {
			if !strings.Contains(md.String(), want) {
				t.Errorf("default %d: the report has no %q:\n%s", tc.def, want, md.String())
			}
		}
		for _, not := range tc.not {
			if strings.Contains(md.String(), not) {
				t.Errorf("default %d: the report has %q:\n%s", tc.def, not, md.String())
			}
		}
		if err := bench.Chart(&img, r); err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(&img); err != nil {
			t.Errorf("default %d: the chart is not a PNG: %v", tc.def, err)
		}
	}
}

// The heartbeat's table: extensions per record off and on, and what the
// extensions measured at the scale make a minute of work at the default.
func TestReportHeartbeat(t *testing.T) {
	t.Parallel()
	r := synthetic(100)
	micro, err := bench.ParseGoBench(strings.NewReader(
		"BenchmarkHeartbeat/off/batch=10-2 \t 2 \t 502430584 ns/op \t 4380 B/record \t 49.20 allocs/record \t 0 extends/record \t 50243058 ns/record\n" +
			"BenchmarkHeartbeat/on/batch=10-2 \t 2 \t 501207893 ns/op \t 5794 B/record \t 67.85 allocs/record \t 10.00 extends/record \t 50120789 ns/record\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.Micro = append(r.Micro, micro...)
	var md bytes.Buffer
	if err := bench.Report(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#### The consumer's heartbeat", "| 10 | 0.0 / 10.0 | 3.00 | 49.2 / 67.8 | 4380 / 5794 |", "lease 150ms, a beat every 50ms"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, md.String())
		}
	}
}
