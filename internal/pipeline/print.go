package pipeline

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/idemq/idemq/handler/handlertest"
)

// Summary returns the report as a few lines of text: deliveries per cause,
// what the function did, provider calls, dead letters, violations.
func (rep *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d keys (+%d without a key), %d re-sent by the producer, in %s\n",
		rep.Variant, rep.Keys, rep.Poison, rep.Resent, rep.Elapsed.Round(1e7))
	fmt.Fprintf(&b, "  deliveries %d:", rep.ESM.TotalDeliveries())
	for _, c := range handlertest.Causes {
		fmt.Fprintf(&b, " %s %d;", c, rep.ESM.Deliveries[c])
	}
	fmt.Fprintf(&b, "\n  invocations %d, deleted %d, item failures %d, failed batches %v, instances restarted %d (%d killed during a call)\n",
		rep.ESM.Invocations, rep.ESM.Deleted, rep.ESM.ItemFailures, rep.ESM.BatchFailures, rep.Restarts, rep.CrashedCalls)
	for _, e := range rep.Errors {
		fmt.Fprintf(&b, "    invocation error: %s\n", e)
	}
	w := rep.Worker
	fmt.Fprintf(&b, "  function: executed %d, replayed %d, in-progress retries %d, took over %d, failed %d, skipped %d\n",
		w.Executed, w.Replayed, w.InProgress, w.TookOver, w.Failed, w.Skipped)
	fmt.Fprintf(&b, "  provider calls %d for %d keys: %d duplicate (%d after an instance died with the answer)\n",
		rep.ProviderCalls, rep.Keys, rep.DuplicateCalls, rep.LostWorkCalls)
	if rep.Store != nil {
		fmt.Fprintf(&b, "  store requests: %s\n", formatCounts(rep.Store))
	}
	if rep.Records != nil {
		fmt.Fprintf(&b, "  records at the end: %s\n", formatCounts(rep.Records))
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

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
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
