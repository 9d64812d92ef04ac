package idemqcdk

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Limits Lambda places on the function and its SQS event source.
const (
	maxTimeout        = 15 * time.Minute
	minMemoryMB       = 128
	maxMemoryMB       = 10240
	maxBatchSize      = 10000
	maxFIFOBatchSize  = 10
	minMaxConcurrency = 2
	maxMaxConcurrency = 1000
	// visibilityFactor is AWS's guidance: a queue feeding Lambda has a
	// visibility timeout of at least 6 × the function timeout (plus the
	// batching window).
	visibilityFactor = 6
)

// settings are WorkerProps with the defaults filled in and checked.
type settings struct {
	timeout, retention, visibility, window, expiry time.Duration
	// dlqRetention is the dead-letter queue's retention: deadLetterRetention for
	// a Worker's, the user's queue's for an Attachment.
	dlqRetention                                  time.Duration
	memoryMB, maxReceives, batchSize, concurrency int // concurrency: NoMaxConcurrency for none
	fifo, backoff, blobs                          bool
	// existingQueue says the queue's settings are those of a queue that
	// exists (an Attachment's, or CheckQueue's), not ones the Worker
	// chooses: the messages then suggest no default.
	existingQueue bool
	arch          architecture
	tracing       Tracing           // TracingOff, TracingOTel or TracingXRay
	layerArn      string            // the collector layer's ARN (TracingLayerArn, checked); unused with tracing off
	pollers       *pollerSettings   // nil: on-demand polling
	capacity      *capacitySettings // nil: no capacity provider
	// blobDays is how long the bucket keeps a result, in days
	// (WorkerProps.BlobExpiryDays, or blobExpiryDays of expiry), and
	// blobPrefix the key prefix of results (WorkerProps.BlobPrefix, or
	// defaultBlobPrefix); 0 and "" without blobs.
	blobDays   int
	blobPrefix string
	// replicas are the regions of the record table's replicas, besides
	// the stack's, and witness its witness region ("": none): with them,
	// the table is multi-Region strongly consistent. keepV020 keeps the
	// table v0.2.0 deployed (resolveTable).
	replicas []string
	witness  string
	keepV020 bool

	// stream are the settings of the stream an Attachment attaches to
	// (AttachmentProps.Stream), which sized expiry; nil for a queue.
	stream *queue.Stream

	// request is WorkerProps.Request, checked, its key source defaulted
	// to request.DefaultKeyField: who a request is, given to the worker
	// and the front door through idemqenv (requestEnv).
	request request.Identity
	// checking says s is a trial of a fix (passes): its messages suggest
	// none in turn.
	checking bool
	// warnings are annotations for settings that deploy but may cost
	// receives, results or dead letters; each says what to change.
	warnings []warning
}

// queue is the queue's settings, its dead-letter queue's retention
// included, for handler's record lifetime arithmetic.
func (s settings) queue() queue.Settings {
	return queue.Settings{
		Retention:           s.retention,
		VisibilityTimeout:   s.visibility,
		MaxReceives:         s.maxReceives,
		BatchingWindow:      s.window,
		DeadLetterRetention: s.dlqRetention,
		FIFO:                s.fifo,
	}
}

// deadLetterStay is the least time a message is kept in the dead-letter
// queue once it has moved there. SQS drops a standard queue's message the
// dead-letter queue's retention after it was first sent, not after it
// moved, and it may move as late as the queue's retention; a FIFO queue's
// message is kept the dead-letter queue's retention from its move.
func (s settings) deadLetterStay() time.Duration {
	if s.fifo {
		return s.dlqRetention
	}
	return max(s.dlqRetention-s.retention, 0)
}

// checkQueue checks the queue's settings in s against each other and
// against the function's timeout: what SQS accepts, the visibility
// timeout against the timeout (refused under it, a warning under the
// batching window and the timeout together: checkVisibility), a crashed
// worker's retry (checkCrashRetry), and how long a dead letter is sure to
// stay (a warning: checkDeadLetterStay). Messages name each setting by
// label(field).
func (s *settings) checkQueue(label func(field string) string) error {
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case !inSeconds(s.retention, queue.MinRetention, queue.MaxRetention):
		return bad("Retention", "%s %s must be whole seconds from %s to %s", label("Retention"), s.retention, queue.MinRetention, queue.MaxRetention)
	case s.maxReceives < queue.MinMaxReceives || s.maxReceives > queue.MaxMaxReceives:
		return bad("MaxReceives", "%s %d must be from %d to %d", label("MaxReceives"), s.maxReceives, queue.MinMaxReceives, queue.MaxMaxReceives)
	case !inSeconds(s.visibility, time.Second, queue.MaxVisibility):
		return bad("VisibilityTimeout", "%s %s must be whole seconds from 1s to %s", label("VisibilityTimeout"), s.visibility, queue.MaxVisibility)
	case s.dlqRetention != 0 && !inSeconds(s.dlqRetention, queue.MinRetention, queue.MaxRetention):
		return bad("DeadLetterRetention", "%s %s must be whole seconds from %s to %s", label("DeadLetterRetention"), s.dlqRetention, queue.MinRetention, queue.MaxRetention)
	}
	if err := s.checkVisibility(label); err != nil {
		return err
	}
	if err := s.checkCrashRetry(label); err != nil {
		return err
	}
	s.checkDeadLetterStay(label)
	return nil
}

// passes reports whether s with change applied passes checkQueue with no
// warning of the id given ("": any warning will do): the test every fix a
// message suggests passes before it is suggested.
func (s settings) passes(change func(*settings), id string) bool {
	t := s
	t.warnings, t.checking = nil, true
	change(&t)
	return t.checkQueue(fieldName) == nil && !slices.ContainsFunc(t.warnings, func(w warning) bool { return w.id == id })
}

// checkVisibility refuses a visibility timeout shorter than the
// function's timeout (Lambda refuses such an event source: a message would
// show again while its first receive still runs) and warns of one shorter
// than the batching window and the timeout together: a message received
// at the start of a batching window is run as late as the window's end,
// up to the timeout, so it can show again while its function still runs
// it. Its second receive then finds its key in progress and spends one of
// the message's receives, or more without the back-off. AWS's guidance of
// 6 × the timeout + the window also leaves room for Lambda's retries of a
// throttled invocation; under it, but over the window and the timeout, a
// message cannot show again while its function runs, and nothing is said.
func (s *settings) checkVisibility(label func(field string) string) error {
	run := s.window + s.timeout
	var fixes []string
	try := func(fix string, change func(*settings)) {
		if !s.checking && s.passes(change, WarningVisibility) {
			fixes = append(fixes, fix)
		}
	}
	switch {
	case s.visibility < s.timeout:
		fix := fmt.Sprintf("raise %s to at least %s", label("VisibilityTimeout"), run)
		if guidance := visibilityFactor*s.timeout + s.window; !s.checking && !s.existingQueue && s.passes(func(t *settings) { t.visibility = guidance }, WarningVisibility) {
			fix += fmt.Sprintf(" (left unset it is 6 × %s + %s = %s)", label("Timeout"), label("BatchingWindow"), guidance)
		}
		try(fix, func(t *settings) { t.visibility = run })
		if t := s.visibility - s.window; t >= time.Second {
			try(fmt.Sprintf("lower %s to at most %s", label("Timeout"), t), func(u *settings) { u.timeout = t })
		}
		if len(fixes) == 0 {
			fixes = append(fixes, fmt.Sprintf("raise %s to at least %s", label("VisibilityTimeout"), run))
		}
		return &SettingError{Field: "VisibilityTimeout", Msg: fmt.Sprintf(
			"%s %s is shorter than %s %s, which Lambda refuses: a message would show again while its first receive still runs; %s",
			label("VisibilityTimeout"), s.visibility, label("Timeout"), s.timeout, strings.Join(fixes, ", or "))}
	case s.visibility < run:
		again := "a second receive finds it in progress and leaves it for one every " + label("VisibilityTimeout") + " while the first run's lease lasts, each spending a receive"
		if s.backoff {
			again = "a second receive finds it in progress and holds it until the first run's lease ends (the back-off), spending a receive"
		}
		try(fmt.Sprintf("raise %s to at least %s", label("VisibilityTimeout"), run), func(t *settings) { t.visibility = run })
		if w := s.visibility - s.timeout; w < s.window {
			try(fmt.Sprintf("lower %s to at most %s", label("BatchingWindow"), w), func(t *settings) { t.window = w })
		}
		s.warnings = append(s.warnings, warning{WarningVisibility, fmt.Sprintf(
			"%s %s is shorter than %s %s + %s %s = %s: a message received at the start of a batching window and run to the timeout shows again while its function still runs it; "+
				"%s; %s", label("VisibilityTimeout"), s.visibility, label("BatchingWindow"), s.window, label("Timeout"), s.timeout, run, again, strings.Join(fixes, ", or "))})
	}
	return nil
}

// checkDeadLetterStay warns of a dead letter sure to stay less than
// minDeadLetterStay in the dead-letter queue, naming the settings that
// would make it stay longer.
func (s *settings) checkDeadLetterStay(label func(field string) string) {
	stay := s.deadLetterStay()
	if stay >= minDeadLetterStay {
		return
	}
	var fixes []string
	try := func(fix string, change func(*settings)) {
		if !s.checking && s.passes(change, WarningDeadLetterStay) {
			fixes = append(fixes, fix)
		}
	}
	if s.dlqRetention < deadLetterRetention {
		try(fmt.Sprintf("raise %s to %s (SQS's longest)", label("DeadLetterRetention"), deadLetterRetention), func(t *settings) { t.dlqRetention = deadLetterRetention })
	}
	if r := s.dlqRetention - minDeadLetterStay; !s.fifo && r >= queue.MinRetention {
		try(fmt.Sprintf("lower %s to at most %s", label("Retention"), r), func(t *settings) { t.retention = r })
	}
	if r := deadLetterRetention - minDeadLetterStay; len(fixes) == 0 && !s.fifo {
		try(fmt.Sprintf("raise %s to %s and lower %s to at most %s", label("DeadLetterRetention"), deadLetterRetention, label("Retention"), r),
			func(t *settings) { t.dlqRetention, t.retention = deadLetterRetention, r })
	}
	fix := "answer the dead-letter alarm at once"
	if len(fixes) > 0 {
		fix = strings.Join(fixes, ", or ")
	}
	s.warnings = append(s.warnings, warning{WarningDeadLetterStay, fmt.Sprintf(
		"%s %s leaves a dead letter as little as %s in the dead-letter queue (which keeps messages %s) before SQS drops it, under %s: a standard queue's message keeps its first enqueue time, "+
			"and SQS keeps none longer than %s; the dead-letter expiry alarm goes off after %s; %s",
		label("Retention"), s.retention, stay, s.dlqRetention, minDeadLetterStay, deadLetterRetention, deadLetterExpiryAge(stay), fix)})
}

// resolveExpiry sets s.expiry: given, it must cover the message lifetime
// (a warning when it does not cover a redrive from the dead-letter queue
// too); unset, it is queue.RecordLifetime of the queue's settings, the
// dead-letter queue's retention included.
func (s *settings) resolveExpiry(given time.Duration, label func(field string) string) error {
	life, err := queue.RecordLifetime(s.queue(), s.timeout)
	if err != nil {
		// checkQueue refuses what RecordLifetime does, and more; a
		// *queue.SettingError names the setting all the same.
		field := "RecordExpiry"
		if se, ok := errors.AsType[*queue.SettingError](err); ok {
			field = se.Setting
		}
		return &SettingError{Field: field, Msg: fmt.Sprintf("cannot size the record expiry (%s)", label(field)), Err: err}
	}
	if given == 0 {
		s.expiry = life
		return nil
	}
	// Shorter than the queue's own message lifetime, an ordinary
	// redelivery would find its record gone: refused. Shorter only than a
	// redrive from the dead-letter queue needs: deployed, with a warning
	// saying which redrives run the work again.
	s.expiry = given
	inQueue := s.queue()
	inQueue.DeadLetterRetention = 0
	if err := queue.CheckExpiry(inQueue, s.expiry); err != nil {
		return &SettingError{Field: "RecordExpiry",
			Msg: fmt.Sprintf("%s %s is too short; raise it, or leave it unset for the computed %s", label("RecordExpiry"), s.expiry, life),
			Err: err}
	}
	if err := queue.CheckExpiry(s.queue(), s.expiry); err != nil {
		s.warnings = append(s.warnings, warning{WarningRecordExpiry, fmt.Sprintf(
			"%s %s does not cover a redrive from the dead-letter queue, which keeps messages %s: a message redriven more than %s after it was sent "+
				"(%s less the message lifetime %s) may find its record expired and run its work again; leave %s unset for the computed %s",
			label("RecordExpiry"), s.expiry, s.dlqRetention, s.expiry-inQueue.MessageLifetime(), label("RecordExpiry"), inQueue.MessageLifetime(), label("RecordExpiry"), life)})
	}
	return nil
}

// checkCrashRetry rejects settings under which a message whose worker
// crashed (or lost the answer) mid-call ends in the dead-letter queue with
// its work undone: queue.CheckLease's rule, for the lease the function
// has (the invocation's time left plus idem.DefaultLeaseMargin), with
// messages naming the settings. The crashed worker's claim holds the key
// until its lease ends, up to window + timeout + idem.DefaultLeaseMargin
// after the receive. Each receive before then finds the record in progress
// and spends one of the message's receives: one every visibility timeout
// without back-off, one in all with it (the back-off holds the message
// until the lease ends: the lease is far under 12 h).
// queue.Settings.InProgressReceives counts them. At least one
// receive must be left after that, and the message must still be retained
// when it comes.
func (s settings) checkCrashRetry(label func(field string) string) error {
	lease := s.window + s.timeout + idem.DefaultLeaseMargin
	inProgress := s.queue().InProgressReceives(lease, s.backoff)
	how := fmt.Sprintf("one every %s %s while the lease runs", label("VisibilityTimeout"), s.visibility)
	if s.backoff {
		how = "one with back-off on"
	}
	if need := inProgress + 2; s.maxReceives < need {
		var fixes []string
		if !s.checking {
			try := func(fix string, change func(*settings)) {
				if s.passes(change, "") {
					fixes = append(fixes, fix)
				}
			}
			try(fmt.Sprintf("raise %s to at least %d", label("MaxReceives"), need), func(t *settings) { t.maxReceives = need })
			// The least visibility under which the receives that find
			// the claim in progress leave two: floor(lease / v) at most
			// MaxReceives - 2.
			if k := time.Duration(s.maxReceives - 1); k > 0 {
				v := (lease / k).Truncate(time.Second) + time.Second
				try(fmt.Sprintf("raise %s to at least %s", label("VisibilityTimeout"), v), func(t *settings) { t.visibility = v })
			}
			if !s.backoff {
				try(fmt.Sprintf("turn on the in-progress back-off (%s)", label("DisableBackoff")), func(t *settings) { t.backoff = true })
			}
		}
		if len(fixes) == 0 {
			fixes = append(fixes, fmt.Sprintf("lower %s", label("Timeout")))
		}
		return &SettingError{Field: "MaxReceives", Msg: fmt.Sprintf(
			"%s %d lets a message whose worker crashed mid-call reach the dead-letter queue with its work undone: "+
				"its claim holds the key for a lease of up to %s + %s + %s margin = %s, receives that find it in progress spend %d (%s), "+
				"and a retry needs one more after the first; %s",
			label("MaxReceives"), s.maxReceives, label("BatchingWindow"), label("Timeout"), idem.DefaultLeaseMargin, lease,
			inProgress, how, strings.Join(fixes, ", or "))}
	}
	if retry := lease + s.visibility; s.retention < retry {
		return &SettingError{Field: "Retention", Msg: fmt.Sprintf(
			"%s %s ends before a message whose worker crashed mid-call can be retried (its lease, up to %s, then up to %s %s): "+
				"the queue would drop it with its work undone; raise %s to at least %s",
			label("Retention"), s.retention, lease, label("VisibilityTimeout"), s.visibility, label("Retention"), retry)}
	}
	return nil
}

// inSeconds reports whether d is a whole number of seconds within lo..hi.
func inSeconds(d, lo, hi time.Duration) bool {
	return d%time.Second == 0 && d >= lo && d <= hi
}

// pollerSettings are Pollers with the defaults filled in.
type pollerSettings struct{ min, max int }

// capacitySettings are CapacityProvider with the defaults filled in.
type capacitySettings struct {
	subnets, securityGroups []string
	maxConcurrency, ratio   int
}

// fieldName labels a setting by its WorkerProps field.
func fieldName(field string) string { return field }

// deadLetterExpiryAge is the age in the dead-letter queue at which the
// dead-letter expiry alarm goes off for a queue whose dead letters are
// sure to stay for stay: half of it, to the minute, and at least a minute.
func deadLetterExpiryAge(stay time.Duration) time.Duration {
	return max((stay / 2).Truncate(time.Minute), time.Minute)
}
