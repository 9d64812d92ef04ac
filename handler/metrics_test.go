package handler_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
)

func TestEMFLine(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now()
	holdKey(t, b.store, key("k3"), now, now.Add(time.Hour))
	var out handlerbundle.SyncBuffer
	h := b.wrap(handlerbundle.FailOn("m2"), handler.WithEMF(&out, "idemq"))

	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2"), handlerbundle.Msg("m3", "k3"), handlerbundle.Msg("m4", "k1")), "m2", "m3")
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	if len(lines) != 1 {
		t.Fatalf("%d EMF lines, want 1 per batch", len(lines))
	}
	var doc struct {
		AWS struct {
			Timestamp         int64
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		} `json:"_aws"`
		Service                                                            string
		Records, Executed, Replayed, InProgress, Failed, BatchItemFailures int
	}
	if err := json.Unmarshal(lines[0], &doc); err != nil {
		t.Fatalf("EMF line %s: %v", lines[0], err)
	}
	cw := doc.AWS.CloudWatchMetrics
	if len(cw) != 1 || cw[0].Namespace != "idemq" || len(cw[0].Dimensions) != 1 || cw[0].Dimensions[0][0] != "Service" || doc.Service != handlerbundle.Namespace {
		t.Errorf("EMF metadata %+v, service %q", doc.AWS, doc.Service)
	}
	names := map[string]bool{}
	for _, m := range cw[0].Metrics {
		names[m.Name] = m.Unit == "Count"
	}
	for _, n := range []string{"Executed", "Fresh", "TookOver", "Replayed", "StoredReplays", "Copies", "CacheHits", "ProviderCallsAvoided",
		"InProgress", "Failed", "Skipped", "ResultOmitted", "BatchItemFailures"} {
		if !names[n] {
			t.Errorf("metric %s missing or not a Count", n)
		}
	}
	if doc.Records != 4 || doc.Executed != 1 || doc.Replayed != 1 || doc.InProgress != 1 || doc.Failed != 1 || doc.BatchItemFailures != 2 {
		t.Errorf("EMF counts %+v", doc)
	}
}

// One batch holds a record of each class a dashboard stacks: a fresh
// execution, a replay of a stored result, an in-batch copy, a cache hit,
// an in-progress retry and a take-over. The summary line and the EMF line
// count each in its own class and no other, and the classes add up to
// Executed, Replayed and Records.
func TestCountsClassEachRecordOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now()
	var out handlerbundle.SyncBuffer
	h := b.wrap(nil, func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 100, 1<<20 }, handler.WithEMF(&out, "idemq"))
	// k-cache completes through h (so h's cache holds it), k-stored
	// through another handler (so only the store does).
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m0", "k-cache")))
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("s0", "k-stored")))
	holdKey(t, b.store, key("k-held"), now, now.Add(time.Hour))                               // a live lease
	holdKey(t, b.store, key("k-crashed"), now.Add(-30*time.Minute), now.Add(-20*time.Minute)) // a passed lease, the record not expired

	handlerbundle.WantIDs(t, b.Invoke(h,
		handlerbundle.Msg("m1", "k-fresh"),
		handlerbundle.Msg("m2", "k-stored"),
		handlerbundle.Msg("m3", "k-fresh"),
		handlerbundle.Msg("m4", "k-cache"),
		handlerbundle.Msg("m5", "k-held"),
		handlerbundle.Msg("m6", "k-crashed"),
	), "m5")
	if calls := b.Calls(); len(calls) != 4 { // m0, s0, m1, m6
		t.Fatalf("the function ran for %v; want m0, s0, then m1 and m6 only", calls)
	}

	want := map[string]int{
		"records": 6, "executed": 2, "fresh": 1, "took_over": 1,
		"replayed": 3, "stored_replays": 1, "copies": 1, "cache_hits": 1, "provider_calls_avoided": 3,
		"keyless": 0, "in_progress": 1, "backed_off": 0, "failed": 0, "skipped": 0,
		"result_omitted": 0, "superseded": 0, "batch_item_failures": 1,
	}
	b.WantSummary(want)

	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	var doc map[string]any
	if err := json.Unmarshal(lines[len(lines)-1], &doc); err != nil {
		t.Fatalf("EMF line %s: %v", lines[len(lines)-1], err)
	}
	emf := map[string]int{}
	for name, v := range doc {
		if n, ok := v.(float64); ok {
			emf[name] = int(n)
		}
	}
	for attr, n := range want {
		if metric := metricName(attr); emf[metric] != n {
			t.Errorf("EMF %s = %d, want %d", metric, emf[metric], n)
		}
	}
	stack := emf["Fresh"] + emf["TookOver"] + emf["StoredReplays"] + emf["Copies"] + emf["CacheHits"] +
		emf["Keyless"] + emf["InProgress"] + emf["Failed"] + emf["Skipped"]
	if stack != emf["Records"] || emf["Fresh"]+emf["TookOver"] != emf["Executed"] ||
		emf["StoredReplays"]+emf["Copies"]+emf["CacheHits"] != emf["Replayed"] || emf["ProviderCallsAvoided"] != emf["Replayed"] {
		t.Errorf("the classes do not add up: %v", emf)
	}
}

// metricName is the EMF metric of a summary line attribute: took_over is
// TookOver.
func metricName(attr string) string {
	var sb strings.Builder
	for part := range strings.SplitSeq(attr, "_") {
		sb.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return sb.String()
}

func TestPayloadsAreNotLogged(t *testing.T) {
	t.Parallel()
	b := setup(t)
	secret := handlerbundle.Msg("m1", "k1")
	secret.Body = `{"idempotency_key":"k1","prompt":"TOP-SECRET-PROMPT"}`
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(handlerbundle.FailOn("m1")), secret), "m1")
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), secret))
	if bytes.Contains(b.Logs.Bytes(), []byte("TOP-SECRET")) || bytes.Contains(b.Logs.Bytes(), []byte("result:m1")) {
		t.Errorf("a payload or result reached the log:\n%s", b.Logs.Bytes())
	}
}
