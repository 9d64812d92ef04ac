package handler_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/internal/handlerbundle"
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
	for _, n := range []string{"Executed", "Replayed", "InProgress", "Failed", "TookOver", "ResultOmitted", "BatchItemFailures"} {
		if !names[n] {
			t.Errorf("metric %s missing or not a Count", n)
		}
	}
	if doc.Records != 4 || doc.Executed != 1 || doc.Replayed != 1 || doc.InProgress != 1 || doc.Failed != 1 || doc.BatchItemFailures != 2 {
		t.Errorf("EMF counts %+v", doc)
	}
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
