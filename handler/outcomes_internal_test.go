package handler

import (
	"errors"
	"flag"
	"os"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/outcomes.md from outcomeTable")

const outcomesPath = "../docs/outcomes.md"

// Each row of the outcome table states what the code decides: its
// verdict and its counts are those of the fate the row's situation gets.
func TestOutcomeTableIsTheCodes(t *testing.T) {
	t.Parallel()
	for _, r := range outcomeTable {
		f := r.fate()
		if f.verdict != r.verdict {
			t.Errorf("%q: verdict %d, the table says %d", r.situation, f.verdict, r.verdict)
		}
		if got := countNames(&f); !slices.Equal(got, r.counts) {
			t.Errorf("%q: counted as %v, the table says %v", r.situation, got, r.counts)
		}
		if !f.acked() {
			if _, err := f.cause(); err == nil {
				t.Errorf("%q: comes back without a reason", r.situation)
			}
		}
	}
}

// countNames are the counts a record of fate f adds to, in the summary
// line's order, without records and batch_item_failures.
func countNames(f *fate) []string {
	var c counts
	c.add(f)
	var names []string
	for _, n := range c.named() {
		if n.n > 0 && n.attr != "records" && n.attr != "batch_item_failures" {
			names = append(names, n.attr)
		}
	}
	return names
}

// docs/outcomes.md is generated from outcomeTable: `go generate
// ./handler` (or this test with -update) rewrites it, and this test fails
// while it is stale.
func TestOutcomesDoc(t *testing.T) {
	want := outcomesDoc()
	if *update {
		if err := os.WriteFile(outcomesPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(outcomesPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: run go generate ./handler", outcomesPath)
	}
}

// Every situation of the outcome table puts its record in exactly one of
// the classes a dashboard stacks, and the totals are their sums: Executed
// is Fresh + TookOver, Replayed is StoredReplays + Copies + CacheHits, and
// each replayed record is a provider call avoided.
func TestOutcomesFallInOneClass(t *testing.T) {
	t.Parallel()
	for _, r := range outcomeTable {
		f := r.fate()
		var c counts
		c.add(&f)
		classes := c.Fresh + c.TookOver + c.StoredReplays + c.Copies + c.CacheHits + c.Dispatched + c.Keyless + c.InProgress + c.Failed + c.Skipped
		if classes != 1 || c.Executed != c.Fresh+c.TookOver || c.Replayed != c.StoredReplays+c.Copies+c.CacheHits || c.ProviderCallsAvoided != c.Replayed {
			t.Errorf("%q: counted as %+v", r.situation, c)
		}
	}
}

// Each row of the invocation table states what answer returns for its
// batch: the error, if any, and how many messages the response lists.
func TestInvocationTableIsTheCodes(t *testing.T) {
	t.Parallel()
	for _, r := range invocationTable {
		resp, err := answer(r.records(), r.batchError, nil)
		got := ""
		switch {
		case errors.Is(err, ErrBatchFailed):
			got = "ErrBatchFailed"
		case err != nil:
			got = "other"
		}
		if got != r.want || len(resp.BatchItemFailures) != r.listed {
			t.Errorf("%q: %d listed, error %v; the table says %d listed, error %q", r.batch, len(resp.BatchItemFailures), err, r.listed, r.want)
		}
		if got == "ErrBatchFailed" && len(resp.BatchItemFailures) != len(r.fates()) {
			t.Errorf("%q: the invocation fails, but the response lists %d of %d messages: the error would bring back more", r.batch, len(resp.BatchItemFailures), len(r.fates()))
		}
	}
}
