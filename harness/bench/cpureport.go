package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// CPUReport writes the client CPU per first-delivery record of a run made
// with Config.CPUOnly (`-cpu-only`) as a markdown table: idemq against
// Powertools per condition on the one clock (Sample.SteadyCPU), with the
// whole-trial figures (what the reports before it gave) and the parts
// that tell them apart.
func CPUReport(w io.Writer, r *Results) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s–%s UTC on %s (%d vCPUs), %s, Node %s; load average (1, 5, 15 min) %s before, %s after. "+
		"First delivery, %d records per trial, %d rounds after %s, idemq and Powertools in turns, the order rotating.\n\n",
		r.Started.UTC().Format("2006-01-02 15:04"), r.Ended.UTC().Format("15:04"), r.Machine.CPU, r.Machine.CPUs, r.Machine.Go,
		r.Node, r.LoadBefore, r.LoadAfter, r.ThroughputRecords, r.Runs, warmupNote(r))
	b.WriteString("| batch | model | idemq records at once | idemq µs/record | Powertools µs/record | idemq / Powertools | " +
		"whole trial: idemq µs | Powertools µs | idemq / Powertools | first tenth: idemq µs | Powertools µs | tail: idemq µs | Powertools µs |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range r.Throughput {
		if m.Runner != RunnerIdemq && m.Runner != RunnerIdemqWide {
			continue
		}
		p, ok := r.find(RunnerPowertools, First, m.BatchSize, m.Model)
		if !ok {
			continue
		}
		at := "whole batch"
		if m.Runner == RunnerIdemq && m.BatchSize > r.DefaultConcurrency {
			at = fmt.Sprint(r.DefaultConcurrency)
		}
		fmt.Fprintf(&b, "| %d | %d ms | %s | %.0f | %.0f | %s | %.0f | %.0f | %s | %.0f | %.0f | %.1f | %.1f |\n",
			m.BatchSize, m.Model.Milliseconds(), at, m.CPUPerRecord(), p.CPUPerRecord(), m.CPURatio(p),
			m.TrialCPUPerRecord(), p.TrialCPUPerRecord(), pairedRatio(m, p, trialCPUPerRecord),
			m.median(firstTenthPerRecord), p.median(firstTenthPerRecord),
			m.median(tailPerRecord), p.median(tailPerRecord))
	}
	b.WriteString("\nµs are medians over the rounds; ratios the median of the per-round ratios with their interquartile range. " +
		"µs/record: the batches after the trial's first tenth plus the tail (Sample.SteadyCPU); whole trial: every batch, no tail; " +
		"first tenth: the first tenth's batches alone; tail: the forced collection and 50 ms idle after the clock stopped, per record of the trial.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func warmupNote(r *Results) string {
	if r.NoWarmup {
		return "no warm-up"
	}
	return "a discarded warm-up trial each"
}

// firstTenthPerRecord is the CPU per record of the batches SteadyCPU
// leaves out, in microseconds; NaN without them.
func firstTenthPerRecord(s Sample) float64 {
	if len(s.CPUMarks) == 0 || len(s.CPUMarks) != len(s.BatchRecords) {
		return math.NaN()
	}
	k := steadySkip(len(s.CPUMarks))
	if k == 0 {
		return math.NaN()
	}
	n := 0
	for _, r := range s.BatchRecords[:k] {
		n += r
	}
	end := s.CPU
	if k < len(s.CPUMarks) {
		end = s.CPUMarks[k]
	}
	return float64(end.Microseconds()) / float64(n)
}

// tailPerRecord is the tail's CPU per record of the trial, in
// microseconds.
func tailPerRecord(s Sample) float64 {
	return float64(s.CPUTail) / float64(time.Microsecond) / float64(s.Records)
}
