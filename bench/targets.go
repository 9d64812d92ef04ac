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
//   - throughput at least 0.95 × the raw-SDK floor's at every size;
//   - client CPU per record at most 1.1 × the floor's and at most 0.6 ×
//     Powertools';
//   - a batch of 1000 with a 20 ms model call faster than Powertools.
//
// idemq is judged at each concurrency it ran with, against the floor at
// the same concurrency.
func Targets(r *Results) []Target {
	var out []Target
	out = append(out, requestsTarget(r))
	rps := func(m Measurement) float64 { return m.RecordsPerSecond() }
	cpu := func(m Measurement) float64 { return m.CPUPerRecord() }
	for _, p := range []struct{ idemq, floor, fenced, label string }{
		{RunnerIdemq, RunnerFloor, RunnerFloorFenced, "10 at once (default)"},
		{RunnerIdemqWide, RunnerFloorWide, RunnerFloorFencedWide, "whole batch at once"},
	} {
		out = append(out,
			withFenced(ratioTarget(r, "throughput ≥ 0.95 × raw-SDK floor at every size, "+p.label, p.idemq, p.floor, 0.95, true, rps),
				ratioTarget(r, "", p.idemq, p.fenced, 0.95, true, rps)),
			withFenced(ratioTarget(r, "client CPU per record ≤ 1.1 × raw-SDK floor, "+p.label, p.idemq, p.floor, 1.1, false, cpu),
				ratioTarget(r, "", p.idemq, p.fenced, 1.1, false, cpu)),
			ratioTarget(r, "client CPU per record ≤ 0.6 × Powertools, "+p.label, p.idemq, RunnerPowertools, 0.6, false, cpu),
			bigBatchTarget(r, p.idemq, p.label))
	}
	return out
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

// withFenced adds to t how idemq fares against the fenced floor (f),
// which sends idemq's requests without the library.
func withFenced(t, f Target) Target {
	if !f.Unmeasured {
		t.Result += "; against the fenced floor " + f.Result
	}
	return t
}

// ratioTarget compares value(idemq) / value(other) with limit at every
// first-delivery condition: at least limit when higher is better, at most
// limit otherwise. The result names the worst condition.
func ratioTarget(r *Results, name, idemq, other string, limit float64, higherBetter bool, value func(Measurement) float64) Target {
	t := Target{Name: name, Met: true}
	worst, worstAt := math.NaN(), ""
	for _, c := range conditions(r) {
		a, ok1 := r.find(idemq, First, c.size, c.model)
		b, ok2 := r.find(other, First, c.size, c.model)
		if !ok1 || !ok2 || value(b) == 0 {
			continue
		}
		q := value(a) / value(b)
		if higherBetter && q < limit || !higherBetter && q > limit {
			t.Met = false
		}
		if math.IsNaN(worst) || higherBetter && q < worst || !higherBetter && q > worst {
			worst, worstAt = q, fmt.Sprintf("batch %d, %s", c.size, modelLabel(c.model))
		}
	}
	if math.IsNaN(worst) {
		t.Met, t.Unmeasured, t.Result = false, true, "–"
		return t
	}
	t.Result = fmt.Sprintf("worst ratio %.2f (%s)", worst, worstAt)
	return t
}

// bigBatchTarget compares the time a batch of 1000 with a 20 ms model
// call takes idemq (runner) and Powertools.
func bigBatchTarget(r *Results, runner, label string) Target {
	t := Target{Name: "a batch of 1000 with a 20 ms model call faster than Powertools, " + label}
	pt, ok1 := r.find(RunnerPowertools, First, 1000, 20*time.Millisecond)
	m, ok2 := r.find(runner, First, 1000, 20*time.Millisecond)
	if !ok1 || !ok2 {
		t.Unmeasured, t.Result = true, "–"
		return t
	}
	t.Met = m.RecordsPerSecond() > pt.RecordsPerSecond()
	t.Result = fmt.Sprintf("idemq %.2f s, Powertools %.2f s per batch", 1000/m.RecordsPerSecond(), 1000/pt.RecordsPerSecond())
	return t
}
