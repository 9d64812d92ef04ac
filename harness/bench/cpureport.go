package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CPUReport writes the client CPU per first-delivery record of a run made
// with Config.CPUOnly (`-cpu-only`) as a markdown table: idemq against
// Powertools per condition on the one clock (Sample.SteadyCPU), with the
// whole-trial figures (what the reports before it gave) and the parts
// that tell them apart; whether the machine was quiet (Results.Quiet),
// and the load at every round's start and end.
func CPUReport(w io.Writer, r *Results) error {
	var b strings.Builder
	b.WriteString(quietNote(r) + "\n\n")
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
	roundLoads(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// quietNote says whether r was measured on a quiet machine, and how
// quiet: the 1-minute load average and the busy share of the machine's
// CPU at the measured rounds' starts, the load at their ends, and the
// time spent waiting for a quiet machine.
func quietNote(r *Results) string {
	ok, why := r.Quiet()
	var before, busy, after []float64
	var waited time.Duration
	for _, rd := range r.Rounds {
		waited += rd.Waited
		if rd.Measured() {
			before = append(before, rd.LoadBefore.One)
			after = append(after, rd.LoadAfter.One)
			if rd.BusyBefore >= 0 {
				busy = append(busy, 100*rd.BusyBefore)
			}
		}
	}
	loads := ""
	if len(before) > 0 {
		loads = fmt.Sprintf("; at the %d measured rounds' starts the 1-minute load average was %s", len(before), span(before, 2))
		if len(busy) > 0 {
			loads += fmt.Sprintf(" and the machine's CPU %s %% busy", span(busy, 0))
		}
		loads += fmt.Sprintf(", at their ends the load %s", span(after, 2))
		if r.QuietLoad > 0 {
			loads += fmt.Sprintf("; waiting for a quiet machine took %s of the run", waited.Round(time.Second))
		}
	}
	if !ok {
		return fmt.Sprintf("**Not a quiet machine's figures**: %s%s.", why, loads)
	}
	return fmt.Sprintf("**A quiet machine**: every measured round started with the 1-minute load average under %.2f "+
		"and under %.0f %% of the machine's CPU busy in the 5 s before it, while the run idled%s.", r.QuietLoad, 100*r.QuietBusy, loads)
}

// span formats the least and the greatest of v with prec decimals:
// "0.52–1.48", or "0.52" when they are one.
func span(v []float64, prec int) string {
	lo, hi := strconv.FormatFloat(slices.Min(v), 'f', prec, 64), strconv.FormatFloat(slices.Max(v), 'f', prec, 64)
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// roundLoads writes the 1-minute load average at every round's start and
// end, a row per condition, in the order the rounds ran.
func roundLoads(b *strings.Builder, r *Results) {
	if len(r.Rounds) == 0 {
		return
	}
	type cond struct {
		size  int
		model time.Duration
	}
	var order []cond
	rows := map[cond][]Round{}
	cols := 0
	warm := false
	for _, rd := range r.Rounds {
		c := cond{rd.BatchSize, rd.Model}
		if _, ok := rows[c]; !ok {
			order = append(order, c)
		}
		rows[c] = append(rows[c], rd)
		cols = max(cols, rd.Index)
		warm = warm || !rd.Measured()
	}
	first := 1
	if warm {
		first = 0
	}
	b.WriteString("\nEach round's start → its end: the 1-minute load average at its start, with the share of the machine's CPU busy in the 5 s before it " +
		"while the run idled; the load at its end; in brackets the time it waited for a quiet machine. Bold: the round started loud.\n\n| batch | model |")
	for i := first; i <= cols; i++ {
		if i == 0 {
			b.WriteString(" warm-up |")
		} else {
			fmt.Fprintf(b, " round %d |", i)
		}
	}
	b.WriteString("\n|---:|---:|" + strings.Repeat("---:|", cols-first+1) + "\n")
	for _, c := range order {
		cells := make([]string, cols-first+1)
		for i := range cells {
			cells[i] = "–"
		}
		for _, rd := range rows[c] {
			start := fmt.Sprintf("%.2f", rd.LoadBefore.One)
			if rd.BusyBefore >= 0 {
				start += fmt.Sprintf(", %.0f %%", 100*rd.BusyBefore)
			}
			if r.QuietLoad > 0 && !rd.Quiet {
				start = "**" + start + "**"
			}
			cell := fmt.Sprintf("%s → %.2f", start, rd.LoadAfter.One)
			if rd.Waited > 0 {
				cell += fmt.Sprintf(" (%s)", rd.Waited.Round(time.Second))
			}
			cells[rd.Index-first] = cell
		}
		fmt.Fprintf(b, "| %d | %s | %s |\n", c.size, fmtModel(c.model), strings.Join(cells, " | "))
	}
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

// oneClock reports whether r's samples were taken on the one clock (they
// have CPU marks); runs made before it have none.
func (r *Results) oneClock() bool {
	for _, ms := range [][]Measurement{r.Throughput, r.Scenarios} {
		for _, m := range ms {
			for _, s := range m.Samples {
				if len(s.CPUMarks) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// clockNote says how the report's CPU figures were taken.
func clockNote(r *Results) string {
	if !r.oneClock() {
		return ", over each trial's whole measured part, after a forced collection (runs made before bench/clock.go)"
	}
	return ", taken alike on both sides (bench/clock.go): a forced collection and 50 ms idle before the clock starts; " +
		"CPU per record over the batches after each trial's first tenth, plus a forced collection and 50 ms idle after the last batch"
}
