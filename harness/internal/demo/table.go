package demo

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable prints the reports side by side.
func WriteTable(w io.Writer, reports []Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tkeys\tdeliveries\tprovider calls\tduplicate calls\treplays\tin-progress retries\tdead letters\tunanswered\t")
	for _, r := range reports {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n",
			r.Variant, r.Keys, r.Deliveries, r.Calls, r.DuplicateCalls, r.Replays, r.InProgress, r.DeadLetters, r.Unanswered)
	}
	return tw.Flush()
}
