package bench

import (
	"context"
	"time"
)

// Sample is what one trial measured, over its measured part only.
type Sample struct {
	Records    int
	Wall       time.Duration
	CPU        time.Duration  // the client process's CPU time (user + system)
	Requests   map[string]int // DynamoDB requests sent (attempts), per operation
	Retries    int            // of those, the SDK's retries
	Failures   int            // batch item failures reported
	Executions int            // times the work (the model call) ran
	WriteUnits float64        // write capacity units the requests consumed
	ReadUnits  float64        // read capacity units the requests consumed
	// StoredBytes and StoredItems are the size (as DynamoDB counts it) and
	// number of the items in the trial's table when it ended.
	StoredBytes, StoredItems int
	// Error is the first error a record failed with, when the runner
	// reports it (the Powertools driver does), else "".
	Error string `json:",omitempty"`
	// CPUMarks is the CPU time since the clock started, read before each
	// measured batch; BatchRecords the records of each; CPUTail the CPU of
	// the forced collection and idle after the clock stopped (clock.go).
	// Empty in runs made before they were kept.
	CPUMarks     []time.Duration `json:",omitempty"`
	BatchRecords []int           `json:",omitempty"`
	CPUTail      time.Duration   `json:",omitempty"`
}

// TotalRequests is the number of DynamoDB requests of every operation,
// retries included.
func (s Sample) TotalRequests() int {
	n := 0
	for _, v := range s.Requests {
		n += v
	}
	return n
}

// Calls is the number of DynamoDB requests the implementation asked for:
// TotalRequests without the SDK's retries.
func (s Sample) Calls() int { return s.TotalRequests() - s.Retries }

// Runner runs trials with one implementation.
type Runner interface {
	// ID names the implementation in results ("idemq", "floor",
	// "powertools", ...).
	ID() string
	// Run runs the trial's preparation, then its measured part.
	Run(ctx context.Context, t Trial) (Sample, error)
}

// invocationTimeout is the deadline each batch gets, as a Lambda function's
// timeout would give it; idemq and Powertools size their leases from it.
const invocationTimeout = 5 * time.Minute
