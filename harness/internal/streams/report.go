package streams

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is what a stream run did and what its check found.
type Report struct {
	Config  Config
	Records int // records put, re-sends included
	Keys    int
	Resent  int
	Elapsed time.Duration

	Invocations    int
	FunctionErrors int // failed before the work
	Crashes        int // answers lost after the work
	Died           int // died during a provider call
	Bisections     int
	ItemFailures   int // answers naming a record to resume from
	InProgress     int // records reported because their key was in progress
	GivenUp        int // batches sent to the on-failure list

	ProviderCalls   int // billed
	Refused         int // provider calls refused (the record failures)
	Killed          int // provider calls under way when their function died
	Duplicates      int // billed calls beyond one per key
	Missing         int // keys never billed
	OrderChecked    int // partition keys whose first calls were checked
	OrderViolations int
	Violations      []string // the first few, in words
}

// OK reports whether the run kept every guarantee.
func (r *Report) OK() bool {
	return r.Duplicates == 0 && r.Missing == 0 && r.OrderViolations == 0 && r.GivenUp == 0
}

// Summary is the report in a line, and its violations.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d records (%d keys, %d re-sent), %d invocations (%d failed before the work, %d died during a call, %d crashed after the work, %d bisected, %d named a record to resume from, %d records found their key in progress), %d given up; provider calls %d (%d refused, %d cut by a death, unbilled): %d duplicate, %d keys missing, %d order violations in %d partition keys; %s",
		r.Config.Source, r.Records, r.Keys, r.Resent, r.Invocations, r.FunctionErrors, r.Died, r.Crashes, r.Bisections, r.ItemFailures, r.InProgress, r.GivenUp,
		r.ProviderCalls, r.Refused, r.Killed, r.Duplicates, r.Missing, r.OrderViolations, r.OrderChecked, r.Elapsed.Round(10*time.Millisecond))
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "\n  violation: %s", v)
	}
	return b.String()
}

// WriteTable writes the reports as a Markdown table.
func WriteTable(w io.Writer, reps []*Report) error {
	var b strings.Builder
	b.WriteString("| run | shards | records (keys + re-sends) | invocations | failed before the work | died during a call | crashed after the work | bisected | resumed from a record | key in progress | provider calls (refused) | duplicates | missing | order violations | given up | time |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %s | %d | %d (%d + %d) | %d | %d | %d | %d | %d | %d | %d | %d (%d) | %d | %d | %d | %d | %s |\n",
			r.Config.Source, r.Config.Shards, r.Records, r.Keys, r.Resent, r.Invocations, r.FunctionErrors, r.Died, r.Crashes, r.Bisections, r.ItemFailures, r.InProgress,
			r.ProviderCalls, r.Refused, r.Duplicates, r.Missing, r.OrderViolations, r.GivenUp, r.Elapsed.Round(100*time.Millisecond))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
