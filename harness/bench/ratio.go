package bench

import (
	"fmt"
	"math"
	"slices"
)

// Ratio is one implementation's figure over another's in one condition,
// paired by round. Each round of suite.measure runs every implementation
// once, in turns, so sample i of one and sample i of the other were
// measured side by side in time, under the same load: the load's drift
// over a run moves both alike and drops out of their ratio, where it
// would not out of a ratio of two medians. The spread is the
// interquartile range, not the whole range: a single trial slowed by a
// pause on the shared machine moves the range a long way, and the median
// hardly at all. It is told from three rounds on: of one or two, the
// median alone.
type Ratio struct {
	Median    float64 // the median of the per-round ratios
	Low, High float64 // their first and third quartiles
	Rounds    int     // the rounds paired; 0: none
}

// ThroughputRatio is m's records per second over o's, paired by round.
func (m Measurement) ThroughputRatio(o Measurement) Ratio {
	return pairedRatio(m, o, recordsPerSecond)
}

// CPURatio is m's client CPU per record over o's, paired by round.
func (m Measurement) CPURatio(o Measurement) Ratio {
	return pairedRatio(m, o, cpuPerRecord)
}

// pairedRatio returns the ratios f(a's sample i) / f(b's sample i) for
// every round both measured — up to the shorter of the two, should one
// have fewer samples (a failed or an older run) — leaving out the rounds
// whose ratio is not a finite number.
func pairedRatio(a, b Measurement, f func(Sample) float64) Ratio {
	var q []float64
	for i := range min(len(a.Samples), len(b.Samples)) {
		if v := f(a.Samples[i]) / f(b.Samples[i]); !math.IsNaN(v) && !math.IsInf(v, 0) {
			q = append(q, v)
		}
	}
	if len(q) == 0 {
		return Ratio{}
	}
	slices.Sort(q)
	return Ratio{Median: median(q), Low: quantile(q, 0.25), High: quantile(q, 0.75), Rounds: len(q)}
}

// quantile returns the p-quantile of sorted (not empty), interpolating
// linearly between the two nearest values.
func quantile(sorted []float64, p float64) float64 {
	x := p * float64(len(sorted)-1)
	i := int(x)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
}

// spreadRounds is the fewest rounds whose spread is told.
const spreadRounds = 3

// Spread reports whether q has enough rounds for its spread to say how
// noisy it is.
func (q Ratio) Spread() bool { return q.Rounds >= spreadRounds }

// Straddles reports whether limit lies within the interquartile range of
// the per-round ratios, so that which side of it the median falls on is
// within noise. It is false without a Spread.
func (q Ratio) Straddles(limit float64) bool {
	return q.Spread() && q.Low <= limit && limit <= q.High
}

// String formats q as its median and interquartile range,
// "0.97 (0.91–1.02)"; the median alone without a Spread; "–" without
// rounds.
func (q Ratio) String() string {
	switch {
	case q.Rounds == 0:
		return "–"
	case !q.Spread():
		return fmt.Sprintf("%.2f", q.Median)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", q.Median, q.Low, q.High)
}
