package bench

import (
	"math"
	"testing"
	"time"
)

func TestSteadySkip(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 10: 1, 11: 2, 30: 3, 300: 30} {
		if got := steadySkip(n); got != want {
			t.Errorf("steadySkip(%d) = %d, want %d", n, got, want)
		}
	}
}

// cpuSample is a trial of batches of size records whose batch i cost
// costs[i] of CPU, with a tail.
func cpuSample(size int, costs []time.Duration, tail time.Duration) Sample {
	s := Sample{CPUTail: tail}
	for _, c := range costs {
		s.CPUMarks = append(s.CPUMarks, s.CPU)
		s.BatchRecords = append(s.BatchRecords, size)
		s.CPU += c
		s.Records += size
	}
	return s
}

func TestSteadyCPU(t *testing.T) {
	ms := time.Millisecond
	// 20 batches of 10: the first two (a tenth) cost 30 ms each, the rest
	// 5 ms each; the tail 2 ms.
	costs := []time.Duration{30 * ms, 30 * ms}
	for range 18 {
		costs = append(costs, 5*ms)
	}
	s := cpuSample(10, costs, 2*ms)
	cpu, n := s.SteadyCPU()
	if cpu != 92*ms || n != 180 {
		t.Errorf("SteadyCPU = %s over %d records, want 92ms (18 × 5 ms + the 2 ms tail) over 180", cpu, n)
	}
	m := Measurement{Samples: []Sample{s}}
	if got, want := m.CPUPerRecord(), 92000.0/180; math.Abs(got-want) > 1 {
		t.Errorf("CPUPerRecord = %.1f µs, want %.1f (the steady part)", got, want)
	}
	if got, want := m.TrialCPUPerRecord(), 150000.0/200; got != want {
		t.Errorf("TrialCPUPerRecord = %.1f µs, want %.1f (every batch, no tail)", got, want)
	}
	if got, want := firstTenthPerRecord(s), 60000.0/20; got != want {
		t.Errorf("firstTenthPerRecord = %.1f µs, want %.1f", got, want)
	}
	if got, want := tailPerRecord(s), 2000.0/200; got != want {
		t.Errorf("tailPerRecord = %.1f µs, want %.1f", got, want)
	}

	// One batch: nothing to leave out; the tail still counts.
	one := cpuSample(100, []time.Duration{50 * ms}, 3*ms)
	if cpu, n := one.SteadyCPU(); cpu != 53*ms || n != 100 {
		t.Errorf("one batch: SteadyCPU = %s over %d, want 53ms over 100", cpu, n)
	}
	// A sample of an older run, without marks: the whole trial.
	old := Sample{Records: 300, CPU: 90 * ms}
	if cpu, n := old.SteadyCPU(); cpu != 90*ms || n != 300 {
		t.Errorf("old sample: SteadyCPU = %s over %d, want 90ms over 300", cpu, n)
	}
	// Marks that do not match the batches are not trusted.
	bad := cpuSample(10, costs, 0)
	bad.BatchRecords = bad.BatchRecords[1:]
	if cpu, n := bad.SteadyCPU(); cpu != bad.CPU || n != bad.Records {
		t.Errorf("mismatched marks: SteadyCPU = %s over %d, want the whole trial", cpu, n)
	}
}

// TestCPURatioSteady: the ratio of two implementations pairs their steady
// figures, so a fixed cost in one side's first batches does not move it.
func TestCPURatioSteady(t *testing.T) {
	ms := time.Millisecond
	flat := make([]time.Duration, 30)
	front := make([]time.Duration, 30)
	for i := range flat {
		flat[i], front[i] = 5*ms, 10*ms
	}
	front[0], front[1], front[2] = 200*ms, 200*ms, 200*ms // a transient of 570 ms
	a := Measurement{Samples: []Sample{cpuSample(100, flat, 0)}}
	b := Measurement{Samples: []Sample{cpuSample(100, front, 0)}}
	if got := a.CPURatio(b).Median; got != 0.5 {
		t.Errorf("steady ratio %.3f, want 0.5", got)
	}
	if got := pairedRatio(a, b, trialCPUPerRecord).Median; got >= 0.3 {
		t.Errorf("whole-trial ratio %.3f, want the transient to pull it under 0.3", got)
	}
}

func TestClockNote(t *testing.T) {
	old := &Results{Throughput: []Measurement{{Samples: []Sample{{Records: 10, CPU: time.Millisecond}}}}}
	if old.oneClock() {
		t.Error("a run without CPU marks reported as taken on the one clock")
	}
	fresh := &Results{Throughput: []Measurement{{Samples: []Sample{cpuSample(10, []time.Duration{time.Millisecond}, 0)}}}}
	if !fresh.oneClock() {
		t.Error("a run with CPU marks not reported as taken on the one clock")
	}
	if clockNote(old) == clockNote(fresh) {
		t.Error("the report says the same of both clocks")
	}
}
