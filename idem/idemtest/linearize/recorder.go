package linearize

import (
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// recorder keeps the run's operations on the true clock.
type recorder struct {
	start   time.Time
	startNs int64
	faults  *Faults

	mu          sync.Mutex
	ops         []*liveOp
	annotations []porcupine.Annotation
}

// now is the true time, in ns: the wall clock at the start, moved on by
// the monotonic clock.
func (r *recorder) now() int64 { return r.startNs + int64(time.Since(r.start)) }

func (r *recorder) begin(in linInput) *liveOp {
	op := &liveOp{in: in}
	r.faults.begin(op)
	op.call = r.now()
	return op
}

// end records op's answer (answered false: none).
func (r *recorder) end(op *liveOp, out linOutput, answered bool) {
	if answered {
		op.ret = r.now()
	} else {
		out = linOutput{Unknown: true}
	}
	r.faults.end(op)
	op.out = out
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
}

func (r *recorder) annotate(a porcupine.Annotation) {
	r.mu.Lock()
	r.annotations = append(r.annotations, a)
	r.mu.Unlock()
}
