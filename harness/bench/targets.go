package bench

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Target is one of the targets, judged on a run's results.
type Target struct {
	Name   string
	Result string // the numbers it was judged on
	Met    bool
	// Unmeasured: the run did not measure what the target needs (a
	// short run, say); Met is false.
	Unmeasured bool
}

// Targets judges the targets on r:
//   - requests per record at the floor in every scenario;
//   - throughput at least 0.95 × the fenced floor's at every size;
//   - client CPU per record at most 1.1 × the fenced floor's;
//   - client CPU per record at most 0.5 × Powertools' at every size and
//     in every scenario;
//   - a batch of 1000 with a 20 ms model call faster than Powertools.
//
// The floor is the fenced floor: idemq's own requests sent without the
// library, what a hand-written handler as safe as idemq sends (issue 14
// withdrew the targets against the raw-SDK floor, which writes as
// Powertools does, without owner fence or payload hash; the tables still
// show that floor). idemq is judged at each concurrency it ran with,
// against the floor at the same concurrency, on the median of the
// per-round ratios (Ratio).
func Targets(r *Results) []Target {
	var out []Target
	out = append(out, requestsTarget(r))
	rps, cpu := Measurement.ThroughputRatio, Measurement.CPURatio
	for _, p := range []struct{ idemq, floor, fenced, label string }{
		{RunnerIdemq, RunnerFloor, RunnerFloorFenced, fmt.Sprintf("%d at once (default)", r.DefaultConcurrency)},
		{RunnerIdemqWide, RunnerFloorWide, RunnerFloorFencedWide, "whole batch at once"},
	} {
		out = append(out,
			ratioTarget(r, "throughput ≥ 0.95 × fenced floor (idemq's requests) at every size, "+p.label, p.idemq, p.fenced, 0.95, true, rps),
			ratioTarget(r, "client CPU per record ≤ 1.1 × fenced floor (idemq's requests), "+p.label, p.idemq, p.fenced, 1.1, false, cpu),
			ratioTarget(r, "client CPU per record ≤ 0.5 × Powertools at every size, "+p.label, p.idemq, RunnerPowertools, 0.5, false, cpu),
			bigBatchTarget(r, p.idemq, p.label))
	}
	return append(out, scenarioCPUTarget(r))
}

// scenarioCPUTarget compares idemq's client CPU per record with
// Powertools' in every scenario run: at most 0.5 ×.
func scenarioCPUTarget(r *Results) Target {
	const limit = 0.5
	t := Target{Name: fmt.Sprintf("client CPU per record ≤ %g × Powertools in every scenario", limit), Met: true}
	var worst Ratio
	var worstAt string
	var c tally
	for _, s := range Scenarios {
		a, ok1 := r.find(RunnerIdemq, s, r.ScenarioSize, 0)
		b, ok2 := r.find(RunnerPowertools, s, r.ScenarioSize, 0)
		if !ok1 || !ok2 {
			continue
		}
		q := a.CPURatio(b)
		if q.Rounds == 0 {
			continue
		}
		miss := q.Median > limit
		c.add(q, limit, miss)
		t.Met = t.Met && !miss
		if worst.Rounds == 0 || q.Median > worst.Median {
			worst, worstAt = q, string(s)
		}
	}
	if c.n == 0 {
		t.Met, t.Unmeasured, t.Result = false, true, "–"
		return t
	}
	t.Result = fmt.Sprintf("worst ratio %s in %s", worst, worstAt) + c.note(limit, "above")
	return t
}

// requestsTarget checks the requests per record idemq asks for against
// each scenario's floor, in the scenario runs and every first-delivery
// run. The SDK's retries (of requests DynamoDB Local did not answer) are
// left out and reported.
func requestsTarget(r *Results) Target {
	t := Target{Name: "requests per record at the floor in every scenario", Met: true}
	var parts []string
	retries := 0
	check := func(m Measurement) {
		got, want := m.CallsPerRecord(), m.Scenario.FloorRequests()
		retries += m.Retries()
		if math.Abs(got-want) > 1e-9 {
			t.Met = false
			parts = append(parts, fmt.Sprintf("%s (batch %d): %.2f, floor %g", m.Scenario, m.BatchSize, got, want))
		}
	}
	n := 0
	for _, m := range append(append([]Measurement(nil), r.Scenarios...), r.Throughput...) {
		if m.Runner == RunnerIdemq || m.Runner == RunnerIdemqWide {
			check(m)
			n++
		}
	}
	if t.Met {
		t.Result = fmt.Sprintf("idemq at the floor in all %d measurements (2, 1, 1.5, 1, 0 per record)", n)
	} else {
		t.Result = strings.Join(parts, "; ")
	}
	if retries > 0 {
		t.Result += fmt.Sprintf("; besides, the SDK retried %d requests", retries)
	}
	return t
}

// ratioTarget compares ratio(idemq, other) with limit at every
// first-delivery condition: its median at least limit when higher is
// better, at most limit otherwise. The result names the worst condition
// and tells how many miss the limit and how many are within noise.
func ratioTarget(r *Results, name, idemq, other string, limit float64, higherBetter bool, ratio func(a, b Measurement) Ratio) Target {
	t := Target{Name: name, Met: true}
	var worst Ratio
	var worstAt string
	var c tally
	for _, cond := range conditions(r) {
		a, ok1 := r.find(idemq, First, cond.size, cond.model)
		b, ok2 := r.find(other, First, cond.size, cond.model)
		if !ok1 || !ok2 {
			continue
		}
		q := ratio(a, b)
		if q.Rounds == 0 {
			continue
		}
		miss := higherBetter && q.Median < limit || !higherBetter && q.Median > limit
		c.add(q, limit, miss)
		t.Met = t.Met && !miss
		if worst.Rounds == 0 || higherBetter && q.Median < worst.Median || !higherBetter && q.Median > worst.Median {
			worst, worstAt = q, fmt.Sprintf("batch %d, %s", cond.size, modelLabel(cond.model))
		}
	}
	if c.n == 0 {
		t.Met, t.Unmeasured, t.Result = false, true, "–"
		return t
	}
	side := "above"
	if higherBetter {
		side = "under"
	}
	t.Result = fmt.Sprintf("worst ratio %s at %s", worst, worstAt) + c.note(limit, side)
	return t
}

// tally counts the conditions of a ratio target: those that miss its
// limit, and those within noise — the interquartile range of their
// per-round ratios takes in the limit — or clearly missing it.
type tally struct {
	n, missed, noisy, noisyMissed, clearMissed int
}

func (c *tally) add(q Ratio, limit float64, miss bool) {
	c.n++
	switch {
	case q.Straddles(limit):
		c.noisy++
		if miss {
			c.missed++
			c.noisyMissed++
		}
	case miss && q.Spread():
		c.missed++
		c.clearMissed++
	case miss: // too few rounds to tell the noise
		c.missed++
	}
}

// note says how many conditions miss the limit (side of it) and how many
// are within noise, after a "; ".
func (c *tally) note(limit float64, side string) string {
	noise := fmt.Sprintf("(interquartile range across %g)", limit)
	missed := fmt.Sprintf("; %s %g in %d of %d conditions", side, limit, c.missed, c.n)
	switch {
	case c.missed > 0 && c.noisyMissed == c.missed:
		return missed + ", within noise " + noise
	case c.missed > 0 && c.clearMissed == c.missed:
		return missed + ", beyond noise"
	case c.missed > 0 && c.noisyMissed > 0:
		return missed + fmt.Sprintf(", %d of them within noise %s", c.noisyMissed, noise)
	case c.missed > 0:
		return missed
	case c.noisy > 0:
		return fmt.Sprintf("; within noise in %d of %d conditions %s", c.noisy, c.n, noise)
	}
	return ""
}

// bigBatchTarget compares the time a batch of 1000 with a 20 ms model
// call takes idemq (runner) and Powertools, judged on their throughput
// ratio, paired by round.
func bigBatchTarget(r *Results, runner, label string) Target {
	t := Target{Name: "a batch of 1000 with a 20 ms model call faster than Powertools, " + label}
	pt, ok1 := r.find(RunnerPowertools, First, 1000, 20*time.Millisecond)
	m, ok2 := r.find(runner, First, 1000, 20*time.Millisecond)
	q := m.ThroughputRatio(pt)
	if !ok1 || !ok2 || q.Rounds == 0 {
		t.Unmeasured, t.Result = true, "–"
		return t
	}
	t.Met = q.Median > 1
	t.Result = fmt.Sprintf("idemq %.2f s, Powertools %.2f s per batch (medians); throughput ratio %s",
		1000/m.RecordsPerSecond(), 1000/pt.RecordsPerSecond(), q)
	if q.Straddles(1) {
		t.Result += ", within noise (interquartile range across 1)"
	}
	return t
}
