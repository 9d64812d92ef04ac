package handler

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// counts are a batch's numbers, logged as one line and, with WithEMF,
// written as CloudWatch metrics. Every record is in exactly one of
// executed, replayed, keyless, in progress, failed and skipped; a record
// reported because an earlier FIFO record failed keeps its own count.
type counts struct {
	Records       int
	Executed      int // claimed and ran; result stored
	Replayed      int // done before: stored, cached or an in-batch copy's result
	CacheHits     int // replayed from the local cache
	Keyless       int // ran without idempotency
	InProgress    int // another worker holds the key
	Failed        int // key, store, function, panic or hook failure
	Skipped       int // not started: deadline guard or FIFO
	TookOver      int // executed over a passed lease or an expired record
	ResultOmitted int // executed; the result was too large to store
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
		{"BackedOff", "backed_off", c.BackedOff},
		{"BatchItemFailures", "batch_item_failures", c.Reported},
	}
}

func (b *batch) count(reported int) counts {
	c := counts{Records: len(b.slots), Reported: reported}
	for i := range b.slots {
		s := &b.slots[i]
		switch s.out.kind {
		case executed:
			c.Executed++
		case replayed:
			c.Replayed++
		case keyless:
			c.Keyless++
		case inProgress:
			c.InProgress++
		case failed:
			c.Failed++
		case skipped:
			c.Skipped++
		}
		if s.out.cached {
			c.CacheHits++
		}
		if s.out.tookOver {
			c.TookOver++
		}
		if s.out.omitted {
			c.ResultOmitted++
		}
		if s.backedOff {
			c.BackedOff++
		}
	}
	return c
}

// summarize logs the batch's summary line and writes its EMF line.
func (b *batch) summarize(reported int) {
	c := b.count(reported)
	attrs := []slog.Attr{slog.String("namespace", b.w.o.namespace), slog.Bool("fifo", b.fifo)}
	for _, n := range c.named() {
		attrs = append(attrs, slog.Int(n.attr, n.n))
	}
	b.w.o.logger.LogAttrs(b.ctx, slog.LevelInfo, "idemq: batch", attrs...)
	if b.w.o.emf != nil {
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
	doc := map[string]any{"Service": b.w.o.namespace}
	for _, n := range c.named() {
		metrics = append(metrics, metric{Name: n.metric, Unit: "Count"})
		doc[n.metric] = n.n
	}
	doc["_aws"] = map[string]any{
		"Timestamp": b.w.o.clock.Now().UnixMilli(),
		"CloudWatchMetrics": []map[string]any{{
			"Namespace":  b.w.o.emfNamespace,
			"Dimensions": [][]string{{"Service"}},
			"Metrics":    metrics,
		}},
	}
	line, err := json.Marshal(doc)
	if err == nil {
		_, err = b.w.o.emf.Write(append(line, '\n'))
	}
	if err != nil {
		b.w.o.logger.WarnContext(b.ctx, "idemq: EMF line not written", "err", err)
	}
}

// reportFailure logs a record reported as a batch item failure and tells
// the failure hook.
func (b *batch) reportFailure(s *slot) {
	level := slog.LevelWarn
	if s.out.kind == inProgress {
		level = slog.LevelInfo
	}
	attrs := []slog.Attr{slog.String("message_id", s.msg.MessageId), slog.String("key", string(s.key))}
	if s.out.kind == inProgress {
		attrs = append(attrs, slog.Time("lease_until", s.out.leaseUntil))
	}
	attrs = append(attrs, slog.Any("err", s.out.err))
	b.w.o.logger.LogAttrs(b.ctx, level, "idemq: record comes back", attrs...)
	if hook := b.w.o.onFailure; hook != nil {
		defer func() {
			if p := recover(); p != nil {
				b.w.o.logger.ErrorContext(b.ctx, "idemq: panic in failure hook", "message_id", s.msg.MessageId, "panic", fmt.Sprint(p))
			}
		}()
		hook(b.ctx, *s.msg, s.out.err)
	}
}
