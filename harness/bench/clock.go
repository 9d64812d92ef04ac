package bench

import (
	"runtime"
	"time"
)

// One clock for both sides. Both processes read the same kernel clock
// (getrusage RUSAGE_SELF: Go's processCPU, Node's process.cpuUsage), every
// thread of the process counted, GC and JIT threads included. What a
// trial's CPU covers is fixed here, and driver.mjs does the same, step for
// step:
//
//  1. a forced full collection (runtime.GC; V8's gc()), then settleIdle of
//     idle, so the previous trial's garbage and the collector's background
//     sweeping after it are not charged to this one;
//  2. the clock starts; the handler gets the batches one at a time, the
//     CPU read before each (Sample.CPUMarks); the clock stops (Sample.CPU,
//     the wall clock with it);
//  3. a forced full collection and settleIdle of idle again, their CPU
//     kept apart (Sample.CPUTail): the collection of the garbage the trial
//     made and left, and background work it started (V8's concurrent
//     compilation and sweeping, Go's GC workers).
//
// The CPU per record reported (Sample.SteadyCPU) is the CPU of the
// batches after the trial's first tenth, plus the tail, over their
// records: the marginal cost of a record to a warm worker. The first
// tenth is left out on both sides because a trial's first batches cost
// the Powertools side 2-3 × its later ones, and idemq about the same as
// its later ones: a fixed cost per trial (not JIT of a cold handler, not
// GC, per results/bench-clock.md) that made the old per-record figure depend
// on the trial's length (Powertools 1869 µs per record in the trials of
// 1000 records of the run of 2026-12-03 12:39, 1448 in those of 3000;
// idemq 544 and 556).

// settleIdle is how long each side idles after a forced collection, before
// its clock starts and before the tail is read. The Powertools driver gets
// it with each trial.
const settleIdle = 50 * time.Millisecond

// settle collects the garbage and idles for settleIdle.
func settle() {
	runtime.GC()
	time.Sleep(settleIdle)
}

// steadyFraction is the share of a trial's batches, at least one, whose
// CPU SteadyCPU leaves out.
const steadyFraction = 10 // one in ten

// steadySkip is how many of n batches SteadyCPU leaves out: the first
// tenth, rounded up, at least one; none of a single batch.
func steadySkip(n int) int {
	if n < 2 {
		return 0
	}
	return max(1, (n+steadyFraction-1)/steadyFraction)
}

// SteadyCPU is the CPU of the trial's batches after its first tenth
// (steadySkip) with the tail, and the records of those batches. Samples
// without CPUMarks (runs made before they were kept) give CPU and every
// record.
func (s Sample) SteadyCPU() (time.Duration, int) {
	if len(s.CPUMarks) == 0 || len(s.CPUMarks) != len(s.BatchRecords) {
		return s.CPU, s.Records
	}
	k := steadySkip(len(s.CPUMarks))
	n := 0
	for _, r := range s.BatchRecords[k:] {
		n += r
	}
	return s.CPU - s.CPUMarks[k] + s.CPUTail, n
}
