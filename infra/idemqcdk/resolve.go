package idemqcdk

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Check reports the first value of p that cannot be deployed, as a
// *SettingError. NewWorker fails the synth with the same error; it also
// checks Replicas' regions against its stack's, which Check cannot see.
func (p *WorkerProps) Check() error {
	_, err := p.resolve(fieldName)
	return err
}

// resolve fills in p's defaults and checks the result; messages name each
// setting by label(field).
func (p *WorkerProps) resolve(label func(field string) string) (settings, error) {
	s := settings{
		timeout:      or(p.Timeout, defaultTimeout),
		retention:    or(p.Retention, defaultRetention),
		maxReceives:  or(p.MaxReceives, defaultMaxReceives),
		window:       p.BatchingWindow,
		fifo:         p.FIFO,
		dlqRetention: deadLetterRetention,
	}
	s.visibility = or(p.VisibilityTimeout, visibilityFactor*s.timeout+s.window)
	return p.resolveWith(s, label)
}

// resolveWith fills in p's other defaults around s, which holds the
// function's timeout and the queue's settings, and checks it all;
// messages name each setting by label(field). An Attachment passes the
// settings of the user's queue and function.
func (p *WorkerProps) resolveWith(s settings, label func(field string) string) (settings, error) {
	s.memoryMB = or(p.MemoryMB, defaultMemoryMB)
	s.batchSize = or(p.BatchSize, queue.DefaultBatchSize)
	s.concurrency = or(p.MaxConcurrency, NoMaxConcurrency)
	s.backoff = !p.DisableBackoff
	s.blobs = !p.DisableBlobs
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var err error
	if s.arch, err = resolveArchitecture(p.Architecture, label); err != nil {
		return s, err
	}
	switch {
	case !inSeconds(s.timeout, time.Second, maxTimeout):
		return s, bad("Timeout", "%s %s must be whole seconds from 1s to %s", label("Timeout"), s.timeout, maxTimeout)
	case s.memoryMB < minMemoryMB || s.memoryMB > maxMemoryMB:
		return s, bad("MemoryMB", "%s %d must be from %d to %d", label("MemoryMB"), s.memoryMB, minMemoryMB, maxMemoryMB)
	case !inSeconds(s.window, 0, queue.MaxBatchingWindow):
		return s, bad("BatchingWindow", "%s %s must be whole seconds from 0s to %s", label("BatchingWindow"), s.window, queue.MaxBatchingWindow)
	case s.fifo && s.window > 0:
		return s, bad("BatchingWindow", "%s %s is not allowed on a FIFO queue (%s): Lambda takes no batching window from FIFO queues; leave %s unset",
			label("BatchingWindow"), s.window, label("FIFO"), label("BatchingWindow"))
	case s.fifo && s.batchSize > maxFIFOBatchSize:
		return s, bad("BatchSize", "%s %d is over %d, the most Lambda takes from a FIFO queue (%s); lower %s",
			label("BatchSize"), s.batchSize, maxFIFOBatchSize, label("FIFO"), label("BatchSize"))
	case s.batchSize < 1 || s.batchSize > maxBatchSize:
		return s, bad("BatchSize", "%s %d must be from 1 to %d", label("BatchSize"), s.batchSize, maxBatchSize)
	case s.batchSize > queue.DefaultBatchSize && s.window < time.Second:
		return s, bad("BatchSize", "%s %d is over %d, which needs %s of at least 1s (it is %s); set %s or lower %s to %d",
			label("BatchSize"), s.batchSize, queue.DefaultBatchSize, label("BatchingWindow"), s.window, label("BatchingWindow"), label("BatchSize"), queue.DefaultBatchSize)
	case s.concurrency != NoMaxConcurrency && (s.concurrency < minMaxConcurrency || s.concurrency > maxMaxConcurrency):
		return s, bad("MaxConcurrency", "%s %d must be from %d to %d (or unset for no cap; idemq:maxConcurrency 0)",
			label("MaxConcurrency"), s.concurrency, minMaxConcurrency, maxMaxConcurrency)
	}

	if s.pollers, err = p.resolvePollers(label); err != nil {
		return s, err
	}
	if s.pollers != nil {
		s.concurrency = NoMaxConcurrency // provisioned mode takes no maximum concurrency
	}
	if s.capacity, err = p.resolveCapacity(s.memoryMB, label); err != nil {
		return s, err
	}
	if err := s.checkQueue(label); err != nil {
		return s, err
	}
	if err := s.resolveExpiry(p.RecordExpiry, label); err != nil {
		return s, err
	}
	if err := s.resolveBlobs(p, label); err != nil {
		return s, err
	}
	if err := s.resolveTracing(p, label); err != nil {
		return s, err
	}
	if err := s.resolveTable(p, label); err != nil {
		return s, err
	}

	// The key's parts: anything that can change under the records makes
	// every redelivered request run again.
	if s.request, err = resolveRequest(p.Request, label); err != nil {
		return s, err
	}

	if p.ProviderURL != "" && !isToken(p.ProviderURL) {
		msg, err := checkProviderURL(p.ProviderURL, label)
		if err != nil {
			return s, err
		}
		if msg != "" {
			s.warnings = append(s.warnings, warning{warningProviderURL, msg})
		}
	}

	for _, name := range slices.Sorted(maps.Keys(p.Environment)) {
		if err := checkEnvName(name, label); err != nil {
			return s, err
		}
	}
	if err := checkFrontDoor(p, s, label); err != nil {
		return s, err
	}
	return s, nil
}

// refusedSettings are the settings the parts of a construct whose own
// settings were refused are made with: the default WorkerProps', which
// are safe, so that making the parts succeeds; the refusal fails the synth.
func refusedSettings() settings {
	s, err := (&WorkerProps{Request: request.Identity{Namespace: "refused"}}).resolve(fieldName)
	if err != nil { // unreachable: the defaults are checked by the tests
		panic("idemqcdk: the default settings are refused: " + err.Error())
	}
	return s
}
