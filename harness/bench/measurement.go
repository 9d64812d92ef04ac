package bench

import "time"

// Measurement is the samples of one implementation in one condition.
type Measurement struct {
	Runner    string // Runner.ID
	Scenario  Scenario
	BatchSize int
	Model     time.Duration
	Samples   []Sample
}

// median returns the median of f over the samples; 0 without samples.
func (m Measurement) median(f func(Sample) float64) float64 {
	v := make([]float64, len(m.Samples))
	for i, s := range m.Samples {
		v[i] = f(s)
	}
	return median(v)
}

// RecordsPerSecond is the median throughput.
func (m Measurement) RecordsPerSecond() float64 { return m.median(recordsPerSecond) }

// CPUPerRecord is the median client CPU time per record, in microseconds,
// of a warm worker (Sample.SteadyCPU).
func (m Measurement) CPUPerRecord() float64 { return m.median(cpuPerRecord) }

// TrialCPUPerRecord is the median client CPU time per record over the
// whole measured part, its first batches included and the tail left out
// (what reports before Sample.SteadyCPU gave), in microseconds.
func (m Measurement) TrialCPUPerRecord() float64 { return m.median(trialCPUPerRecord) }

func recordsPerSecond(s Sample) float64 { return float64(s.Records) / s.Wall.Seconds() }

func cpuPerRecord(s Sample) float64 {
	cpu, n := s.SteadyCPU()
	return float64(cpu.Microseconds()) / float64(n)
}

func trialCPUPerRecord(s Sample) float64 { return float64(s.CPU.Microseconds()) / float64(s.Records) }

// RequestsPerRecord is the median number of DynamoDB requests per record.
func (m Measurement) RequestsPerRecord() float64 {
	return m.median(func(s Sample) float64 { return float64(s.TotalRequests()) / float64(s.Records) })
}

// CallsPerRecord is the median number of DynamoDB requests per record the
// implementation asked for (the SDK's retries left out).
func (m Measurement) CallsPerRecord() float64 {
	return m.median(func(s Sample) float64 { return float64(s.Calls()) / float64(s.Records) })
}

// Retries is the number of the SDK's retries over all samples.
func (m Measurement) Retries() int {
	n := 0
	for _, s := range m.Samples {
		n += s.Retries
	}
	return n
}

// OpsPerRecord is the median number of requests per record of each
// operation.
func (m Measurement) OpsPerRecord() map[string]float64 {
	out := make(map[string]float64)
	for _, s := range m.Samples {
		for op := range s.Requests {
			out[op] = 0
		}
	}
	for op := range out {
		out[op] = m.median(func(s Sample) float64 { return float64(s.Requests[op]) / float64(s.Records) })
	}
	return out
}

// FailuresPerRecord is the median share of records reported as batch item
// failures.
func (m Measurement) FailuresPerRecord() float64 {
	return m.median(func(s Sample) float64 { return float64(s.Failures) / float64(s.Records) })
}

// ExecutionsPerRecord is the median share of records whose work ran.
func (m Measurement) ExecutionsPerRecord() float64 {
	return m.median(func(s Sample) float64 { return float64(s.Executions) / float64(s.Records) })
}
