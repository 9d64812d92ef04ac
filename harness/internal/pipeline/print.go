package pipeline

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

// Summary returns the report as a few lines of text: deliveries per cause,
// what the function did, provider calls, dead letters, violations.
func (rep *Report) Summary() string {
	var b strings.Builder
	queue, dropped := "", ""
	if rep.FIFO {
		queue = fmt.Sprintf(", FIFO queue (%d message groups)", rep.Groups)
		dropped = fmt.Sprintf(" (each also under its first deduplication id: %d dropped by the queue, %d kept)", rep.DedupDropped, rep.DedupKept)
	}
	store := ""
	if rep.Backend != "" {
		store = " on " + string(rep.Backend)
	}
	fmt.Fprintf(&b, "%s%s%s: %d keys (+%d without a key), %d re-sent by the producer%s, in %s\n",
		rep.Variant, store, queue, rep.Keys, rep.Poison, rep.Resent, dropped, rep.Elapsed.Round(1e7))
	fmt.Fprintf(&b, "  producer: %d answers lost after the queue took the send, %d sends retried with the same key\n",
		rep.LostSendAnswers, rep.SendRetries)
	fmt.Fprintf(&b, "  deliveries %d:", rep.ESM.TotalDeliveries())
	for _, c := range loadtest.Causes {
		fmt.Fprintf(&b, " %s %d;", c, rep.ESM.Deliveries[c])
	}
	fmt.Fprintf(&b, "\n  invocations %d, deleted %d, item failures %d, failed batches %v, instances restarted %d (%d killed during a call)\n",
		rep.ESM.Invocations, rep.ESM.Deleted, rep.ESM.ItemFailures, rep.ESM.BatchFailures, rep.Restarts, rep.CrashedCalls)
	for _, e := range rep.Errors {
		fmt.Fprintf(&b, "    invocation error: %s\n", e)
	}
	w := rep.Worker
	fmt.Fprintf(&b, "  function: executed %d (fresh %d, took over %d), replayed %d (stored %d, copies %d, cache hits %d), in-progress retries %d, failed %d, skipped %d\n",
		w.Executed, w.Fresh, w.TookOver, w.Replayed, w.StoredReplays, w.Copies, w.CacheHits, w.InProgress, w.Failed, w.Skipped)
	fmt.Fprintf(&b, "  provider calls %d for %d keys: %d duplicate (%d after an instance died with the answer, %d after a call whose answer the worker never took, %d after the store failed to keep the result)\n",
		rep.ProviderCalls, rep.Keys, rep.DuplicateCalls, rep.LostWorkCalls, rep.AbandonedCalls, rep.NotStoredCalls)
	if bo := rep.Backoff; bo != nil {
		fmt.Fprintf(&b, "  back-off: %d ChangeMessageVisibility, %d accepted (visibility set: %s), %d rejected %v; %d came back sooner than the queue's visibility timeout, %d later; the workers counted %d backed off\n",
			bo.Requests, bo.Accepted(), formatSorted(bo.Seconds, "%d s ×%d"), bo.Requests-bo.Accepted(), bo.Rejected, bo.Sooner, bo.Later, w.BackedOff)
	}
	if rep.Consumer != nil {
		b.WriteString(rep.Consumer.summary())
	}
	if rep.FIFO {
		fmt.Fprintf(&b, "  order: %d keys' first executions checked against the order sent in their group\n", rep.OrderChecked)
	}
	if a := rep.Answers; a != nil {
		fmt.Fprintf(&b, "  answers of %d to %d bytes: %d completed keys replayed whole by the check (%.1f MiB of answers, %d to %d bytes); %d results inline (%d bytes stored), %d offloaded; the bucket holds %d objects (%.1f MiB); the workers replayed %d, %d replays failed\n",
			a.Sizes.Min, a.Sizes.Max, a.Checked, float64(a.AnswerBytes)/(1<<20), a.Smallest, a.Largest, a.Inline, a.InlineBytes, a.Offloaded,
			a.Objects, float64(a.ObjectBytes)/(1<<20), a.WorkerReplayedRecords, a.WorkerReplayFailures)
	}
	if rep.Store != nil {
		fmt.Fprintf(&b, "  %s requests: %s\n", rep.Backend, formatSorted(rep.Store, "%s %d"))
	}
	if rep.Records != nil {
		fmt.Fprintf(&b, "  records at the end: %s\n", formatSorted(rep.Records, "%s %d"))
	}
	fmt.Fprintf(&b, "  dead letters %d:", len(rep.DeadLetters))
	for _, d := range rep.DeadLetters {
		key := d.Key
		if key == "" {
			key = "(no key)"
		}
		fmt.Fprintf(&b, " %s: %s;", key, d.Reason)
	}
	b.WriteString("\n")
	if rep.Violations != nil || rep.Records != nil {
		fmt.Fprintf(&b, "  violations: %d\n", len(rep.Violations))
	}
	for _, v := range rep.Violations {
		fmt.Fprintf(&b, "    %s\n", v)
	}
	return b.String()
}

// formatSorted lists a map's entries in key order, each with format (key,
// count), separated by commas.
func formatSorted[K cmp.Ordered](m map[K]int, format string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf(format, k, m[k])
	}
	return strings.Join(parts, ", ")
}

// WriteTable prints reports side by side, one row per variant, with
// internal/demo's columns.
func WriteTable(w io.Writer, reports []*Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tkeys\tdeliveries\tprovider calls\tduplicate calls\treplays\tin-progress retries\ttake-overs\tdead letters\tunanswered\t")
	for _, r := range reports {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Variant, r.Keys, r.ESM.TotalDeliveries(),
			r.ProviderCalls, r.DuplicateCalls, r.Worker.Replayed, r.Worker.InProgress, r.Worker.TookOver, len(r.DeadLetters), r.Unanswered)
	}
	return tw.Flush()
}
