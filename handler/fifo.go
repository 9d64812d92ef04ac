package handler

import (
	"strings"
	"sync"
)

// groupAttribute is the SQS system attribute naming a FIFO message's
// group.
const groupAttribute = "MessageGroupId"

// isFIFO reports whether an event source ARN names a FIFO queue.
func isFIFO(arn string) bool { return strings.HasSuffix(arn, ".fifo") }

// fifoGate keeps a FIFO batch's order around its failures: after a record
// that is not acknowledged, no later record of the batch (with
// Config.FIFOGroupIsolation, of its message group) is started, nor
// acknowledged. The run asks it before starting a record, as far as the
// failures known so far go; the response asks it again for every record,
// in input order, when all are known. A nil *fifoGate (a standard queue)
// blocks nothing.
type fifoGate struct {
	groupOnly bool // Config.FIFOGroupIsolation

	mu           sync.Mutex
	firstFailure int            // the lowest failed index; -1: none
	groupFailure map[string]int // message group → its lowest failed index
}

func newFIFOGate(groupOnly bool) *fifoGate {
	return &fifoGate{groupOnly: groupOnly, firstFailure: -1, groupFailure: make(map[string]int)}
}

// blocks reports whether record i, of message group group, comes after a
// failure it must not pass.
func (g *fifoGate) blocks(i int, group string) bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.groupOnly && g.firstFailure >= 0 && g.firstFailure < i {
		return true
	}
	j, ok := g.groupFailure[group]
	return ok && j < i
}

// fail notes that record i, of message group group, is not acknowledged.
func (g *fifoGate) fail(i int, group string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.firstFailure < 0 || i < g.firstFailure {
		g.firstFailure = i
	}
	if j, ok := g.groupFailure[group]; !ok || i < j {
		g.groupFailure[group] = i
	}
}
