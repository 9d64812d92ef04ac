package handler

import (
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/idemq/idemq/idem"
)

// counts are a batch's numbers, logged as one line and, with WithEMF,
// written as CloudWatch metrics. Every record is in exactly one of
// executed, replayed, keyless, in progress, failed and skipped; a record
// reported because an earlier FIFO record failed keeps its own count.
type counts struct {
	Records       int
	Executed      int // claimed and ran; result stored (or another claim owns the key: Superseded)
	Replayed      int // done before: stored, cached or an in-batch copy's result
	CacheHits     int // replayed from the local cache
	Keyless       int // ran without idempotency
	InProgress    int // another worker holds the key
	Failed        int // key, store, function, panic or hook failure
	Skipped       int // not started: deadline guard or FIFO
	TookOver      int // executed over a passed lease or an expired record
	ResultOmitted int // executed; the result was too large to store
	Superseded    int // executed and acknowledged: the lease had passed and another claim had completed the key
	BackedOff     int // in progress; visibility changed
	Reported      int // batch item failures in the response
}

// namedCount is a count with its metric and log attribute names.
type namedCount struct {
	metric, attr string
	n            int
}

// named lists the counts in the order they are logged.
func (c counts) named() []namedCount {
	return []namedCount{
		{"Records", "records", c.Records},
		{"Executed", "executed", c.Executed},
		{"Replayed", "replayed", c.Replayed},
		{"CacheHits", "cache_hits", c.CacheHits},
		{"Keyless", "keyless", c.Keyless},
		{"InProgress", "in_progress", c.InProgress},
		{"Failed", "failed", c.Failed},
		{"Skipped", "skipped", c.Skipped},
		{"TookOver", "took_over", c.TookOver},
		{"ResultOmitted", "result_omitted", c.ResultOmitted},
		{"Superseded", "superseded", c.Superseded},
		{"BackedOff", "backed_off", c.BackedOff},
		{"BatchItemFailures", "batch_item_failures", c.Reported},
	}
}

// count classes every record by its result.
func (b *batch) count(reported int) counts {
	c := counts{Records: len(b.slots), Reported: reported}
	for i := range b.slots {
		r := &b.slots[i].res
		switch {
		case r.keyless:
			c.Keyless++
		case r.Outcome == idem.Executed:
			c.Executed++
		case r.Outcome == idem.Superseded && r.err == nil:
			c.Executed++
			c.Superseded++
		case r.Outcome == idem.Replayed:
			c.Replayed++
		case r.Outcome == idem.InProgress:
			c.InProgress++
		case errors.Is(r.err, ErrDeadline) || errors.Is(r.err, ErrFIFOBlocked):
			c.Skipped++
		default:
			c.Failed++
		}
		if r.cached {
			c.CacheHits++
		}
		if r.TookOver {
			c.TookOver++
		}
		if r.Omitted && r.Outcome == idem.Executed {
			c.ResultOmitted++
		}
		if r.backedOff {
			c.BackedOff++
		}
	}
	return c
}

// summarize logs the batch's summary line and writes its EMF line.
func (b *batch) summarize(reported int) {
	c := b.count(reported)
	attrs := []slog.Attr{slog.String("namespace", b.o.namespace), slog.Bool("fifo", b.fifo)}
	for _, n := range c.named() {
		attrs = append(attrs, slog.Int(n.attr, n.n))
	}
	b.o.logger.LogAttrs(b.ctx, slog.LevelInfo, "idemq: batch", attrs...)
	if b.o.emf != nil {
		b.writeEMF(c)
	}
}

// writeEMF writes one CloudWatch Embedded Metric Format line: the counts
// as Count metrics, with the key namespace as dimension "Service".
func (b *batch) writeEMF(c counts) {
	type metric struct {
		Name string `json:"Name"`
		Unit string `json:"Unit"`
	}
	var metrics []metric
	doc := map[string]any{"Service": b.o.namespace}
	for _, n := range c.named() {
		metrics = append(metrics, metric{Name: n.metric, Unit: "Count"})
		doc[n.metric] = n.n
	}
	doc["_aws"] = map[string]any{
		"Timestamp": b.now().UnixMilli(),
		"CloudWatchMetrics": []map[string]any{{
			"Namespace":  b.o.emfNamespace,
			"Dimensions": [][]string{{"Service"}},
			"Metrics":    metrics,
		}},
	}
	line, err := json.Marshal(doc)
	if err == nil {
		b.w.emfMu.Lock()
		_, err = b.o.emf.Write(append(line, '\n'))
		b.w.emfMu.Unlock()
	}
	if err != nil {
		b.o.logger.WarnContext(b.ctx, "idemq: EMF line not written", "err", err)
	}
}
