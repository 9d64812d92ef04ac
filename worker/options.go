package worker

import (
	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
)

// The one place the settings become each part's options. A zero setting
// is an unset variable: its option sets the zero value, the part's
// default.

// claimOptions are the claim's settings: IDEMQ_RECORD_EXPIRY,
// IDEMQ_LEASE, IDEMQ_HEARTBEAT, IDEMQ_CLOCK_SKEW, IDEMQ_COMPRESS_ABOVE,
// and the bucket of large results when there is one (blobs, nil for
// none; IDEMQ_OFFLOAD_ABOVE).
func claimOptions(s idemqenv.Settings, blobs idem.Blobs) []idem.Option {
	cfg := idem.Config{Expiry: s.RecordExpiry, Lease: s.Lease, Heartbeat: s.Heartbeat, ClockSkew: s.ClockSkew, CompressAbove: s.CompressAbove}
	if blobs != nil {
		cfg.Blobs, cfg.OffloadAbove = blobs, s.Blobs.OffloadAbove
	}
	return []idem.Option{idem.WithConfig(cfg)}
}

// handlerOptions are worker mode's handler options: the request's
// identity, the claim's settings, IDEMQ_CONCURRENCY, the back-off
// (through backoff, nil for none, to IDEMQ_QUEUE_URL or the consumed
// queue) and EMF.
func (w *Worker) handlerOptions(backoff handler.VisibilityChanger, blobs idem.Blobs) []handler.Option {
	s, cfg := w.Settings, w.cfg
	opts := []handler.Option{handler.WithLogger(cfg.Logger), handler.WithRequest(s.Request),
		handler.WithIdem(claimOptions(s, blobs)...), handler.WithConcurrency(s.Concurrency)}
	if backoff != nil {
		opts = append(opts, handler.WithBackoff(backoff))
		switch {
		case s.Consumer.QueueURL != "":
			opts = append(opts, func(c *handler.Config) { c.QueueURL = s.Consumer.QueueURL })
		case s.QueueURL != "":
			opts = append(opts, func(c *handler.Config) { c.QueueURL = s.QueueURL })
		}
	}
	if s.EMFNamespace != "" {
		opts = append(opts, handler.WithEMF(cfg.EMF, s.EMFNamespace))
	}
	return opts
}

// consumerOptions are consumer mode's (IDEMQ_CONSUMER_*), for the queue
// IDEMQ_CONSUMER_QUEUE_URL.
func (w *Worker) consumerOptions() []consumer.Option {
	c := w.Settings.Consumer
	return []consumer.Option{consumer.WithConfig(consumer.Config{Logger: w.cfg.Logger, MaxRunTime: c.MaxRunTime, MaxBatches: c.MaxBatches,
		GracePeriod: c.GracePeriod, VisibilityTimeout: c.Visibility})}
}

// frontDoorOptions are front-door mode's: the request's identity, the
// claim's expiry and clock, the bucket of large results (nil for none),
// IDEMQ_FRONTDOOR_PATH and IDEMQ_FRONTDOOR_MAX_BODY_BYTES; then
// Config.FrontDoorOptions.
func (w *Worker) frontDoorOptions(blobs idem.Blobs) []frontdoor.Option {
	s := w.Settings
	claim := idem.Config{Expiry: s.RecordExpiry, ClockSkew: s.ClockSkew}
	if blobs != nil {
		claim.Blobs, claim.OffloadAbove = blobs, s.Blobs.OffloadAbove
	}
	opts := []frontdoor.Option{frontdoor.WithConfig(frontdoor.Config{Request: s.Request, Logger: w.cfg.Logger,
		Path: s.FrontDoor.Path, MaxBodyBytes: s.FrontDoor.MaxBodyBytes, Idem: claim})}
	return append(opts, w.cfg.FrontDoorOptions...)
}

// dispatchOptions are dispatch mode's: the request's identity and
// IDEMQ_CONCURRENCY.
func (w *Worker) dispatchOptions() []durable.Option {
	return []durable.Option{durable.WithLogger(w.cfg.Logger), durable.WithRequest(w.Settings.Request), durable.WithConcurrency(w.Settings.Concurrency)}
}
