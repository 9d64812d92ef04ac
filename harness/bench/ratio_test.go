package bench_test

import (
	"math"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/bench"
)

// measured returns a measurement of 1000-record samples, one per round,
// with the given records per second and client CPU per record (µs); cpu
// may be nil (100 µs every round).
func measured(runner string, rps, cpu []float64) bench.Measurement {
	m := bench.Measurement{Runner: runner, Scenario: bench.First, BatchSize: 100}
	for i, v := range rps {
		c := 100.0
		if cpu != nil {
			c = cpu[i]
		}
		m.Samples = append(m.Samples, bench.Sample{
			Records:  1000,
			Wall:     time.Duration(1000 / v * float64(time.Second)),
			CPU:      time.Duration(c*1000) * time.Microsecond,
			Requests: map[string]int{"PutItem": 1000, "UpdateItem": 1000},
		})
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestRatioPairedByRound: the machine's load drifts over a run and moves
// both implementations of a round alike. idemq is 0.97 × the floor in
// four rounds and 0.87 × in one; the ratio of the two medians (0.91)
// mixes rounds under different loads, the median of the per-round ratios
// does not.
func TestRatioPairedByRound(t *testing.T) {
	t.Parallel()
	floor := measured(bench.RunnerFloor, []float64{1000, 980, 600, 620, 1020}, nil)
	idemq := measured(bench.RunnerIdemq, []float64{970, 950.6, 582, 601.4, 887.4}, nil)

	if q := idemq.RecordsPerSecond() / floor.RecordsPerSecond(); q > 0.95 {
		t.Fatalf("the ratio of medians is %.3f; the samples do not show what the test is about", q)
	}
	q := idemq.ThroughputRatio(floor)
	if !near(q.Median, 0.97) || !near(q.Low, 0.97) || !near(q.High, 0.97) || q.Rounds != 5 {
		t.Errorf("ThroughputRatio = %+v, want median 0.97, interquartile range 0.97–0.97, 5 rounds", q)
	}
	if q.Straddles(0.95) {
		t.Errorf("%v straddles 0.95", q)
	}
}

func TestRatio(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		a, b       bench.Measurement
		cpu        bool
		want       bench.Ratio
		str        string
		straddles1 bool
	}{
		{
			name: "interquartile range",
			a:    measured("a", []float64{90, 94, 96, 98, 100}, nil),
			b:    measured("b", []float64{100, 100, 100, 100, 100}, nil),
			want: bench.Ratio{Median: 0.96, Low: 0.94, High: 0.98, Rounds: 5},
			str:  "0.96 (0.94–0.98)",
		},
		{
			name: "interpolated quartiles of an even count",
			a:    measured("a", []float64{100, 100, 100, 100}, []float64{112, 92, 132, 100}),
			b:    measured("b", []float64{100, 100, 100, 100}, []float64{100, 100, 100, 100}),
			cpu:  true,
			want: bench.Ratio{Median: 1.06, Low: 0.98, High: 1.17, Rounds: 4},
			str:  "1.06 (0.98–1.17)", straddles1: true,
		},
		{
			name: "paired up to the shorter: a failed or older run",
			a:    measured("a", []float64{50, 60, 70, 500}, nil),
			b:    measured("b", []float64{100, 100, 100}, nil),
			want: bench.Ratio{Median: 0.6, Low: 0.55, High: 0.65, Rounds: 3},
			str:  "0.60 (0.55–0.65)",
		},
		{
			name: "a round without CPU left out",
			a:    measured("a", []float64{100, 100, 100}, []float64{30, 30, 99}),
			b:    measured("b", []float64{100, 100, 100}, []float64{100, 100, 0}),
			cpu:  true,
			want: bench.Ratio{Median: 0.3, Low: 0.3, High: 0.3, Rounds: 2},
			str:  "0.30", // two rounds: too few for a spread
		},
		{
			name: "one round",
			a:    measured("a", []float64{97}, nil),
			b:    measured("b", []float64{100}, nil),
			want: bench.Ratio{Median: 0.97, Low: 0.97, High: 0.97, Rounds: 1},
			str:  "0.97",
		},
		{
			name: "not measured",
			a:    measured("a", []float64{100}, nil),
			b:    bench.Measurement{},
			str:  "–",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := tc.a.ThroughputRatio(tc.b)
			if tc.cpu {
				q = tc.a.CPURatio(tc.b)
			}
			if !near(q.Median, tc.want.Median) || !near(q.Low, tc.want.Low) || !near(q.High, tc.want.High) || q.Rounds != tc.want.Rounds {
				t.Errorf("got %+v, want %+v", q, tc.want)
			}
			if s := q.String(); s != tc.str {
				t.Errorf("String() = %q, want %q", s, tc.str)
			}
			if got := q.Straddles(1); got != tc.straddles1 {
				t.Errorf("Straddles(1) = %v, want %v", got, tc.straddles1)
			}
		})
	}
}
