package idemqenv

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/queue"
)

// check fills in the defaults of s and checks its variables against each
// other, as far as r's program reads them.
func (r *reader) check(s *Settings) {
	p := r.program
	if p != Dispatch {
		// The command needs a store only for some of its work: it asks
		// for what is missing when it opens one (CheckStore).
		r.checkStore(&s.Store, p != Command)
	}
	if s.Blobs.Bucket != "" && s.Blobs.Prefix == "" {
		s.Blobs.Prefix = DefaultBlobPrefix
	}
	if p != Command && s.MaxConcurrency == 0 {
		s.MaxConcurrency = 1
	}
	r.checkIdentity(s)
	switch p {
	case Worker:
		// The back-off is on unless turned off: without it an
		// in-progress message spends a receive every visibility timeout
		// and can reach the dead-letter queue with its work undone.
		if r.getenv("IDEMQ_BACKOFF") == "" {
			s.Backoff = true
		}
		r.checkSQS(s)
		r.checkClaim(s)
		if s.Provider.APIKey != "" && s.Provider.APIKeySecret != "" {
			r.bad("IDEMQ_PROVIDER_API_KEY and IDEMQ_PROVIDER_API_KEY_SECRET are both set: set one (IDEMQ_PROVIDER_API_KEY_SECRET for a deployed function, so that its configuration holds no key)")
		}
	case FrontDoor:
		r.checkFrontDoor(s)
		r.checkExpiry(s)
	case Dispatch:
		if s.Dispatch.Function == "" {
			r.bad("IDEMQ_DURABLE_FUNCTION is required with IDEMQ_MODE=dispatch: the durable function's name or ARN with its version or alias, like summarise:prod")
		}
		if s.SQSEndpoint != "" && s.Consumer.QueueURL == "" {
			r.bad("IDEMQ_SQS_ENDPOINT is set but IDEMQ_CONSUMER_QUEUE_URL is not: in dispatch mode only the consumer talks to SQS")
		}
	}
}

// CheckStore reports what the store s names lacks (its table, its URL),
// each missing variable named as program p names it: for the command,
// which needs a store only for some of its work, when it opens one. ReadFor
// checks it for every other program.
func CheckStore(p Program, s stores.Settings) error {
	r := reader{program: p, getenv: func(string) string { return "" }}
	r.checkStore(&s, true)
	return errors.Join(r.errs...)
}

// checkStore fills in the default store and checks that st names a store
// with, when required is true, what it requires.
func (r *reader) checkStore(st *stores.Settings, required bool) {
	if st.Kind == "" {
		st.Kind = stores.DynamoDB
	}
	table := func(format string, args ...any) {
		if required && st.Table == "" {
			r.bad(format, args...)
		}
	}
	storeURL := func(want string, schemes ...string) {
		if !required && st.URL == "" {
			return
		}
		if err := r.checkStoreURL(st.URL, schemes...); err != nil {
			r.bad("%v; want %s with IDEMQ_STORE=%s", err, want, st.Kind)
		}
	}
	switch st.Kind {
	case stores.DynamoDB:
		table("%s is required: the name of the DynamoDB idempotency table", r.label("IDEMQ_TABLE"))
	case stores.Postgres:
		table("%s is required with %s=postgres: the name of the PostgreSQL table of records", r.label("IDEMQ_TABLE"), "IDEMQ_STORE")
		storeURL("a postgres:// URL", "postgres", "postgresql")
	case stores.Redis:
		storeURL("a redis:// or rediss:// URL", "redis", "rediss")
	case stores.Memory:
		if r.program == Command {
			r.bad("%s=memory keeps records in the worker's process: there is nothing to inspect from outside", r.label("IDEMQ_STORE"))
		}
	}
	if st.URL != "" && st.Kind != stores.Postgres && st.Kind != stores.Redis {
		r.bad("%s is set but IDEMQ_STORE is %s: only the postgres and redis stores take a URL", r.label("IDEMQ_STORE_URL"), st.Kind)
	}
}

// checkStoreURL accepts a URL of one of schemes, as pgx and go-redis read
// it. Its error names IDEMQ_STORE_URL and shows the value with its
// password hidden, or not at all (stores.ShowURL): a store URL holds the store's
// password.
func (r *reader) checkStoreURL(s string, schemes ...string) error {
	if s == "" {
		return fmt.Errorf("%s is required", r.label("IDEMQ_STORE_URL"))
	}
	var why string
	u, err := url.Parse(s)
	switch {
	case err != nil:
		why = "not a valid URL (percent-encode the reserved characters @ : / ? # in the user name and password)"
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		why = "not a URL with a scheme and a host (a key=value connection string is not taken)"
	case !slices.Contains(schemes, s[:len(u.Scheme)]):
		why = fmt.Sprintf("the scheme is %q", s[:len(u.Scheme)])
		if slices.Contains(schemes, u.Scheme) {
			why += ", which must be written in lower case"
		}
	default:
		if _, ok := stores.RedactURL(s); !ok {
			why = "an '@' outside the user information (percent-encode @ : / ? # in the user name and password, and an '@' elsewhere as %40)"
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %s", stores.ShowURL(r.label("IDEMQ_STORE_URL"), s), why)
}

// checkIdentity checks the request's identity as request.Identity does,
// each refusal after the variable that set the field.
func (r *reader) checkIdentity(s *Settings) {
	err := s.Request.Validate()
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if ce, ok := errors.AsType[*idem.ConfigError](e); ok {
			if name := settingVar(ce.Package + "." + ce.Field); name != "" {
				r.bad("%s: %w", r.label(name), e)
				continue
			}
		}
		r.errs = append(r.errs, e)
	}
}

// checkSQS refuses the back-off's SQS settings without the back-off: in
// Lambda mode only the back-off talks to SQS, so either is a mistake, not
// a setting; and a back-off queue other than the consumed one.
func (r *reader) checkSQS(s *Settings) {
	if !s.Backoff {
		for _, v := range []struct{ name, value string }{{"IDEMQ_SQS_ENDPOINT", s.SQSEndpoint}, {"IDEMQ_QUEUE_URL", s.QueueURL}} {
			if v.value != "" && !(v.name == "IDEMQ_SQS_ENDPOINT" && s.Consumer.QueueURL != "") {
				r.bad("%s is set but IDEMQ_BACKOFF is false: only the in-progress back-off talks to SQS", v.name)
			}
		}
	}
	if s.QueueURL != "" && s.Consumer.QueueURL != "" && s.QueueURL != s.Consumer.QueueURL {
		r.bad("IDEMQ_QUEUE_URL and IDEMQ_CONSUMER_QUEUE_URL name different queues: in consumer mode the back-off uses the consumed queue; unset IDEMQ_QUEUE_URL")
	}
}

// checkExpiry refuses an expiry no queue can use: shorter than SQS's
// shortest retention, every redelivery would find its record gone.
func (r *reader) checkExpiry(s *Settings) {
	if s.RecordExpiry > 0 && s.RecordExpiry < queue.MinRetention {
		r.bad("%s=%s is shorter than any SQS queue keeps a message (%s): every redelivery would find its record gone and run the work again; "+
			"size it with queue.RecordLifetime (the CDK stack does), or leave it unset for the library's %s",
			"IDEMQ_RECORD_EXPIRY", s.RecordExpiry, queue.MinRetention, idem.DefaultExpiry)
	}
}

// checkClaim checks the claim's settings as far as the library does not:
// whether they hold against each other is idem.Config's check, and
// against the consumer's default lease the worker's, made as the handler
// is wired.
//
//   - On Lambda a heartbeat needs a lease: without IDEMQ_LEASE the lease
//     is the invocation's time left plus a margin, which already covers
//     all an invocation can run, and the library would silently make the
//     beat at most half of it.
//   - No expiry can be shorter than SQS's shortest retention.
//   - With the queue's settings, the expiry (the library's default when
//     unset) must cover the message lifetime (queue.CheckExpiry without
//     the dead-letter queue: a shorter one runs redelivered work again;
//     shorter only than a redrive needs is a warning, Warnings), and a
//     lease must let a crashed worker's message be retried
//     (queue.CheckLease).
func (r *reader) checkClaim(s *Settings) {
	if s.Heartbeat != 0 && s.Lease == 0 && s.Consumer.QueueURL == "" {
		r.bad("%s=%s is set without %s: the default lease is the invocation's time left + %s, which covers all it can run, and a beat would be cut to half of it; "+
			"set %s (shorter than the function's timeout, at least twice the beat) to use a heartbeat, or unset %s",
			"IDEMQ_HEARTBEAT", s.Heartbeat, "IDEMQ_LEASE", idem.DefaultLeaseMargin, "IDEMQ_LEASE", "IDEMQ_HEARTBEAT")
	}
	r.checkExpiry(s)
	if s.Queue == (queue.Settings{}) {
		return
	}
	inQueue := s.Queue
	inQueue.DeadLetterRetention = 0
	if err := queue.CheckExpiry(inQueue, s.EffectiveExpiry()); err != nil {
		r.bad("IDEMQ_RECORD_EXPIRY=%s against IDEMQ_QUEUE: %v", s.EffectiveExpiry(), err)
	}
	if s.Lease > 0 {
		if err := queue.CheckLease(s.Queue, s.Lease, s.Backoff); err != nil {
			r.bad("IDEMQ_LEASE=%s against IDEMQ_QUEUE: %v", s.Lease, err)
		}
	}
}

// checkFrontDoor checks front-door mode's settings and fills in its
// scope: on Lambda the IAM caller's, unless told there is none (AuthType
// NONE); off Lambda no request carries an IAM caller.
func (r *reader) checkFrontDoor(s *Settings) {
	fd := &s.FrontDoor
	if fd.QueueURL == "" && r.getenv("IDEMQ_FRONTDOOR_QUEUE_URL") == "" {
		r.bad("IDEMQ_FRONTDOOR_QUEUE_URL is required with IDEMQ_MODE=frontdoor: the URL of the worker's queue")
	}
	if s.Request.Namespace == "" {
		r.bad("IDEMQ_NAMESPACE is required with IDEMQ_MODE=frontdoor: the worker's namespace, under which the front door reads its records")
	}
	switch {
	case fd.Scope == "" && fd.Addr == "":
		fd.Scope = ScopeIAM
	case fd.Scope == "":
		fd.Scope = ScopeNone
	case fd.Scope != ScopeNone && fd.Addr != "":
		r.bad("IDEMQ_FRONTDOOR_SCOPE=%s with IDEMQ_FRONTDOOR_ADDR: a plain HTTP server has no IAM caller to scope keys by; set IDEMQ_FRONTDOOR_SCOPE=%s (one key space for every caller)", fd.Scope, ScopeNone)
	}
}

// EffectiveExpiry is the record expiry the handler will use:
// RecordExpiry, or the library's default (idem.DefaultExpiry).
func (s Settings) EffectiveExpiry() time.Duration {
	if s.RecordExpiry > 0 {
		return s.RecordExpiry
	}
	return idem.DefaultExpiry
}
