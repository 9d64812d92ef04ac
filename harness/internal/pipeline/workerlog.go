package pipeline

import (
	"bufio"
	"encoding/json"
	"strings"

	"github.com/idemq/idemq/idem"
)

// WorkerCounts sums the handler's per-batch summary lines ("idemq: batch",
// JSON from log/slog) that the workers printed.
type WorkerCounts struct {
	Batches    int
	Executed   int `json:"executed"`
	Replayed   int `json:"replayed"`
	InProgress int `json:"in_progress"`
	Failed     int `json:"failed"`
	Skipped    int `json:"skipped"`
	TookOver   int `json:"took_over"`
	BackedOff  int `json:"backed_off"` // in progress, and its visibility changed
	// The handler's finer classes (handler/metrics.go): Fresh + TookOver
	// make Executed; StoredReplays + Copies + CacheHits make Replayed,
	// and ProviderCallsAvoided counts each.
	Fresh                int `json:"fresh"`
	StoredReplays        int `json:"stored_replays"`
	Copies               int `json:"copies"`
	CacheHits            int `json:"cache_hits"`
	ProviderCallsAvoided int `json:"provider_calls_avoided"`
}

// ParseWorkerLog reads the summary lines out of a worker's output; other
// lines (the emulator's, warnings) are skipped.
func ParseWorkerLog(out string) WorkerCounts {
	var total WorkerCounts
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `"idemq: batch"`) {
			continue
		}
		var c WorkerCounts
		if json.Unmarshal([]byte(line), &c) != nil {
			continue
		}
		c.Batches = 1
		total.add(c)
	}
	return total
}

func (c *WorkerCounts) add(o WorkerCounts) {
	c.Batches += o.Batches
	c.Executed += o.Executed
	c.Replayed += o.Replayed
	c.InProgress += o.InProgress
	c.Failed += o.Failed
	c.Skipped += o.Skipped
	c.TookOver += o.TookOver
	c.BackedOff += o.BackedOff
	c.Fresh += o.Fresh
	c.StoredReplays += o.StoredReplays
	c.Copies += o.Copies
	c.CacheHits += o.CacheHits
	c.ProviderCallsAvoided += o.ProviderCallsAvoided
}

// notStored keeps a "record comes back" line whose result was not kept.
func notStored(op, _ string) bool {
	return op == string(idem.OpComplete) || op == string(idem.OpOffload)
}

// failedCall keeps a "record comes back" line whose call to the provider
// failed.
func failedCall(op, err string) bool {
	return op == string(idem.OpRun) && strings.Contains(err, "provider: ")
}

// countComesBack adds to out, per key (byRecordKey maps a record's key to
// it), the "idemq: record comes back" lines of logs whose op and error
// keep says count.
func countComesBack(logs string, byRecordKey map[string]string, keep func(op, err string) bool, out map[string]int) {
	for line := range strings.Lines(logs) {
		if !strings.Contains(line, `"idemq: record comes back"`) {
			continue
		}
		var l struct {
			Key string `json:"key"`
			Op  string `json:"op"`
			Err string `json:"err"`
		}
		if json.Unmarshal([]byte(line), &l) != nil || !keep(l.Op, l.Err) {
			continue
		}
		if k, ok := byRecordKey[l.Key]; ok {
			out[k]++
		}
	}
}
