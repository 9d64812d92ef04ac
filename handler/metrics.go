package handler

import (
	"encoding/json"
	"log/slog"
)

// counts are a batch's numbers, logged as one line and, with WithEMF,
// written as CloudWatch metrics. Every record is in exactly one of
// executed, replayed, dispatched, keyless, in progress, failed and
// skipped; a record reported because an earlier FIFO record failed keeps
// its own count.
// Executed and Replayed split again into classes that add up to them, so
// a dashboard can stack the classes without counting a record twice:
//
//	Records  = Executed + Replayed + Dispatched + Keyless + InProgress + Failed + Skipped
//	Executed = Fresh + TookOver
//	Replayed = StoredReplays + Copies + CacheHits = ProviderCallsAvoided
type counts struct {
	Records       int
	Executed      int // claimed and ran; result stored (or another claim owns the key: Superseded)
	Fresh         int // executed on a key that had no record
	TookOver      int // executed over a passed lease or an expired record
	Replayed      int // done before: stored, cached or an in-batch copy's result
	StoredReplays int // replayed: the stored result, answered to the claim
	Copies        int // replayed: a copy of a key its leader settled, in the batch or in another batch of this process
	CacheHits     int // replayed: from the local cache, without a store request
	// ProviderCallsAvoided is every record answered without running the
	// function (a replay, a copy or a cache hit): each a call the
	// duplicate would have cost without idempotency.
	ProviderCallsAvoided int
	Dispatched           int // a step handler's step settled it (NewStepHandler: package durable's started executions)
	Keyless              int // ran without idempotency
	InProgress           int // another worker holds the key: the message comes back
	BackedOff            int // in progress; visibility changed
	Failed               int // key, store, function, panic or hook failure
	Skipped              int // not started: deadline guard or FIFO
	ResultOmitted        int // executed; the result was too large to store
	Superseded           int // executed and acknowledged: the lease had passed and another claim had completed the key
	Reported             int // batch item failures in the response
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
		{"Fresh", "fresh", c.Fresh},
		{"TookOver", "took_over", c.TookOver},
		{"Replayed", "replayed", c.Replayed},
		{"StoredReplays", "stored_replays", c.StoredReplays},
		{"Copies", "copies", c.Copies},
		{"CacheHits", "cache_hits", c.CacheHits},
		{"ProviderCallsAvoided", "provider_calls_avoided", c.ProviderCallsAvoided},
		{"Dispatched", "dispatched", c.Dispatched},
		{"Keyless", "keyless", c.Keyless},
		{"InProgress", "in_progress", c.InProgress},
		{"BackedOff", "backed_off", c.BackedOff},
		{"Failed", "failed", c.Failed},
		{"Skipped", "skipped", c.Skipped},
		{"ResultOmitted", "result_omitted", c.ResultOmitted},
		{"Superseded", "superseded", c.Superseded},
		{"BatchItemFailures", "batch_item_failures", c.Reported},
	}
}

// count classes every record by its fate.
func (b *batch) count(reported int) counts {
	c := counts{Records: len(b.records), Reported: reported}
	for i := range b.records {
		c.add(&b.records[i].fate)
	}
	return c
}

// add counts one record's fate: by what was done, else by its verdict;
// an execution by whether it took a key over, a replay by where its
// result came from.
func (c *counts) add(f *fate) {
	switch {
	case f.work == workKeyless:
		c.Keyless++
	case f.work == workStepped:
		c.Dispatched++
	case f.work == workExecuted:
		c.Executed++
		if f.tookOver {
			c.TookOver++
		} else {
			c.Fresh++
		}
		if f.superseded {
			c.Superseded++
		}
		if f.omitted {
			c.ResultOmitted++
		}
	case f.work == workReplayed:
		c.Replayed++
		c.ProviderCallsAvoided++
		switch f.from {
		case fromCache:
			c.CacheHits++
		case fromLeader:
			c.Copies++
		default:
			c.StoredReplays++
		}
	case f.work == workInProgress:
		c.InProgress++
		if f.backedOff {
			c.BackedOff++
		}
	case f.verdict == skip:
		c.Skipped++
	default:
		c.Failed++
	}
}

// summarize logs the batch's summary line and writes its EMF line.
func (b *batch) summarize(reported int) {
	c := b.count(reported)
	attrs := []slog.Attr{slog.String("namespace", b.settings.namespace), slog.Bool("fifo", b.fifo)}
	for _, n := range c.named() {
		attrs = append(attrs, slog.Int(n.attr, n.n))
	}
	b.settings.logger.LogAttrs(b.ctx, slog.LevelInfo, "idemq: batch", attrs...)
	if b.settings.emf != nil {
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
	doc := map[string]any{"Service": b.settings.namespace}
	for _, n := range c.named() {
		if n.metric == "Dispatched" {
			// Only a step handler counts it, and it writes no EMF: left
			// out, it costs no custom metric.
			continue
		}
		metrics = append(metrics, metric{Name: n.metric, Unit: "Count"})
		doc[n.metric] = n.n
	}
	doc["_aws"] = map[string]any{
		"Timestamp": b.now().UnixMilli(),
		"CloudWatchMetrics": []map[string]any{{
			"Namespace":  b.settings.emfNamespace,
			"Dimensions": [][]string{{"Service"}},
			"Metrics":    metrics,
		}},
	}
	line, err := json.Marshal(doc)
	if err == nil {
		b.w.emfMu.Lock()
		_, err = b.settings.emf.Write(append(line, '\n'))
		b.w.emfMu.Unlock()
	}
	if err != nil {
		b.settings.logger.WarnContext(b.ctx, "idemq: EMF line not written", "err", err)
	}
}
