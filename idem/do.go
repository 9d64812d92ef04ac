package idem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idemq/idemq/internal/leasectx"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/internal/storekit"
)

// Func is the work done once per key. Its result is stored and handed to
// every later duplicate.
type Func func(ctx context.Context) ([]byte, error)

// Outcome says what Do did.
type Outcome int

// The outcomes of Do. Only Executed, Replayed, and Superseded with
// Result.Holder StatusCompleted, settle the caller's request; the others
// leave it to be tried again.
const (
	// Executed: the work ran now and its result was stored, with its staged
	// writes (or, with Result.Omitted, the key was settled without it).
	Executed Outcome = iota + 1
	// Replayed: the work had already run; Value is its stored result (nil
	// with Result.Omitted).
	Replayed
	// InProgress: another worker holds the key; the work has not been done
	// here and Value is nil. Try again after LeaseUntil (zero when the
	// store did not say: a claim refused with ErrWriteConflict).
	InProgress
	// Superseded: the work ran now, but its completion was refused because
	// another claim owns the key (this claim's lease had passed and the key
	// was taken over). Value is the fresh result, not stored; the error
	// wraps ErrLeaseLost. Result.Holder says whether the key is settled:
	// StatusCompleted, by that claim's execution; StatusInProgress, not
	// yet — that claim may still fail, and only a retry of this request
	// (which replays its result, waits for it, or runs the work again)
	// can tell.
	Superseded
	// NotStored: the work ran now, but neither its result nor its staged
	// writes could be stored (a store error, a staged write's condition, a
	// record that is gone). Value is the fresh result and the error says
	// why. The key is not settled: a retry runs the work again, once the
	// claim is released (Do tries) or its lease passes.
	NotStored
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Executed:
		return "executed"
	case Replayed:
		return "replayed"
	case InProgress:
		return "in progress"
	case Superseded:
		return "superseded"
	case NotStored:
		return "not stored"
	}
	return "unknown"
}

// Result is what Do returns.
type Result struct {
	Outcome Outcome
	// Value is the fresh or the stored result.
	Value []byte
	// TookOver is set when the key was claimed over a lease that had passed
	// or a record that had expired.
	TookOver bool
	// LeaseUntil is, for InProgress, when a claim by this worker may
	// take the key over: the holder's lease end as stored plus
	// Config.ClockSkew (TakeOverAt), by this worker's clock.
	LeaseUntil time.Time
	// ExpiresAt is when the key's record expires: as completed, for
	// Executed; as stored, for Replayed. A copy of the result kept
	// elsewhere (a cache) must not outlive it.
	ExpiresAt time.Time
	// Holder is, for Superseded, the status of the record the other claim
	// owns: StatusCompleted (the key is settled) or StatusInProgress (it
	// is not, yet).
	Holder Status
	// Omitted is set when the work's result was too large to store
	// (ErrResultTooLarge) and the key was completed without it, so the work
	// is not run again. When Executed, Value is the fresh result and Do
	// also returns an error wrapping ErrResultTooLarge; when Replayed,
	// Value is nil: nothing was stored to replay.
	Omitted bool
}

// Do runs fn once per key, whatever the number of calls with that key, on
// any number of workers. It claims the key with one atomic write, runs fn,
// and stores its result; a later call gets the stored result (Replayed)
// without running fn, and a call while another worker holds the key gets
// InProgress. If fn fails or panics, the claim is released so that a retry
// can run it again, and the error (or panic) is passed on with Outcome 0.
//
// fingerprint identifies the payload; a call whose fingerprint differs from
// the one stored for the key fails with ErrPayloadMismatch. Pass "" to skip
// the check. A fingerprint of Fingerprint's form is stored in 22 bytes
// (the first 128 bits of its digest), and the long and short forms of
// one fingerprint match.
//
// Errors are *Error values naming the key. A nil s or fn, or a setting
// that cannot be safe (Config.Validate), fails the call before anything is
// sent, with an *Error for op "claim" wrapping a *ConfigError that names
// it. When fn succeeded, the Outcome
// says what became of its result, from the completion's own answer:
// Executed (stored), Superseded (refused because another claim owns the
// key; Result.Holder says whether that claim has completed it) or
// NotStored (anything else: the claim is released, and whatever that
// release answers, the key is not settled). Do returns the fresh Value
// with each, and an error with the last two.
//
// Do sends the completion once, and the release after a completion that
// failed once: retrying a request is the store's client's job, one
// retryer per call, so that the attempts of two layers never multiply.
// Each store retries a completion that failed with an error that may be
// transient (a lost connection, a timeout, throttling) itself, which is
// safe because a completion already applied for the same owner, with the
// same result, succeeds. The worst case of one completion is the store's
// attempts: 6 requests with dynamostore, pgstore's (4),
// redisstore's go-redis client's 1 + MaxRetries (4 by default); a result
// too large to store adds a second completion without it, with as many;
// a completion that fails adds one release, with the store's attempts for
// it. All of them run under the settle context, so none is sent, and no
// pause between two is waited out, past the settle deadline (below): what
// the completion leaves of it is the release's, and a claim whose release
// found no time left is left to its lease.
//
// A result longer than Config.CompressAbove is stored gzip-compressed when
// that makes it smaller, and decompressed when it is replayed: Value is
// always the result as fn returned it. A stored result that cannot be
// decoded (corrupt, in an unknown encoding, or expanding past
// Config.MaxDecodedBytes) fails the call with ErrUnreadableResult, for op
// "replay", and Outcome 0.
//
// With Config.Blobs, a stored result longer than Config.OffloadAbove is
// put in the blob store first, under a name unique to this execution, and
// the record completed with a pointer to it; a replay reads and checks the
// object, and fails with ErrUnreadableResult when it is missing or does not
// match. A put that fails is a completion that failed: NotStored.
//
// A result too large to store, even compressed, still settles the key: Do
// completes the record without it (Completion.OmittedBytes, the size fn
// returned), returns Executed with Omitted set, the fresh Value and an
// error wrapping ErrResultTooLarge, and later calls get Replayed with
// Omitted set and no Value, without running fn. If that completion fails
// too (after its own attempts), the outcome is NotStored (or Superseded)
// as above.
//
// The completion or release after fn is sent even when ctx has ended, by
// the settle deadline: the one its runner put in ctx (the SQS handler's,
// inside its deadline reserve), else ctx's own deadline, else 30 seconds
// after fn returned.
func Do(ctx context.Context, s Store, key Key, fingerprint string, fn Func, opts ...Option) (Result, error) {
	c, err := NewConfig(opts...)
	if err != nil {
		return Result{}, &Error{Op: OpClaim, Key: key, Err: err}
	}
	return c.Do(ctx, s, key, fingerprint, fn)
}

// Do is the package's Do with the settings of c, which may be a Config
// made by hand (its zero fields take their defaults) or by NewConfig.
//
// It goes through the phases of a claim, each a method of attempt:
// claim the key (or answer from the record that holds it), run the work,
// store its result, and, when the completion fails, settle what is left.
func (c Config) Do(ctx context.Context, s Store, key Key, fingerprint string, fn Func) (Result, error) {
	if s == nil {
		return Result{}, &Error{Op: OpClaim, Key: key, Err: &ConfigError{Package: "idem", Field: "store", Err: optkit.ErrNil}}
	}
	if fn == nil {
		return Result{}, &Error{Op: OpClaim, Key: key, Err: &ConfigError{Package: "idem", Field: "fn", Err: optkit.ErrNil}}
	}
	c, err := c.resolve()
	if err != nil {
		return Result{}, &Error{Op: OpClaim, Key: key, Err: err}
	}
	if key == "" {
		return Result{}, &Error{Op: OpClaim, Err: ErrNoKey}
	}
	return newAttempt(ctx, c, s, key).do(ctx, fingerprint, fn)
}

// attempt is one Do call: its settings, its store and key, and the claim
// it makes, shared by its phases.
type attempt struct {
	c     Config
	s     Store
	key   Key
	now   time.Time     // when the call began, by c.Clock
	lease time.Duration // the claim's lease
	beat  time.Duration // how often the heartbeat extends it; 0: never
	owner string        // the claim's owner token
}

func newAttempt(ctx context.Context, c Config, s Store, key Key) *attempt {
	now := c.Clock.Now()
	lease, beat := c.leaseOf(ctx, now)
	return &attempt{c: c, s: s, key: key, now: now, lease: lease, beat: beat, owner: storekit.NewOwner()}
}

// do claims the key, then runs fn and stores its result, or answers from
// the record that holds the key.
func (a *attempt) do(ctx context.Context, fingerprint string, fn Func) (Result, error) {
	claim, err := a.claim(ctx, fingerprint)
	if err != nil {
		return Result{}, err
	}
	if !claim.Claimed {
		return a.answerFromHolder(ctx, claim.Record, fingerprint)
	}
	value, writes, stopBeats, runErr := run(ctx, a.s, a.key, a.owner, a.lease, a.beat, a.c, fn)
	defer stopBeats()
	// The claim is ours: settle it even if the caller's context is done,
	// but not past the settle deadline.
	settle, cancel := settleContext(ctx)
	defer cancel()
	if runErr != nil {
		stopBeats()
		return Result{}, a.releaseAfterRun(settle, runErr)
	}
	return a.store(settle, claim, value, writes, stopBeats)
}

// claim is the claim phase: one atomic write that takes the key, or
// returns the record that holds it. A claim refused with ErrWriteConflict
// is the key held by another claimant (InProgress).
func (a *attempt) claim(ctx context.Context, fingerprint string) (Claim, error) {
	claim, err := a.s.Claim(ctx, a.c.NewClaim(a.key, a.owner, fingerprint, a.now, a.lease))
	if errors.Is(err, ErrWriteConflict) {
		// Another writer is at the key: never a claim, whatever else
		// the error says.
		return claimConflict(a.key), nil
	}
	if err != nil {
		return Claim{}, wrap(OpClaim, a.key, err)
	}
	return claim, nil
}

// answerFromHolder is the outcome of a claim that found the key held:
// Replayed from a completed record, InProgress from a live claim.
func (a *attempt) answerFromHolder(ctx context.Context, rec Record, fingerprint string) (Result, error) {
	if fingerprint != "" && rec.Fingerprint != "" && !sameFingerprint(rec.Fingerprint, fingerprint) {
		return Result{}, &Error{Op: OpClaim, Key: a.key, Err: ErrPayloadMismatch}
	}
	switch rec.Status {
	case StatusCompleted:
		if rec.OmittedBytes > 0 {
			return Result{Outcome: Replayed, Omitted: true, ExpiresAt: rec.ExpiresAt}, nil
		}
		value, err := a.c.replay(ctx, &rec)
		if err != nil {
			// Fail closed: a result that cannot be read is not an
			// empty one.
			return Result{}, &Error{Op: OpReplay, Key: a.key, Err: err}
		}
		return Result{Outcome: Replayed, Value: value, ExpiresAt: rec.ExpiresAt}, nil
	case StatusInProgress:
		return Result{Outcome: InProgress, LeaseUntil: a.c.TakeOverAt(rec.LeaseUntil)}, nil
	}
	// Fail closed: a holder nobody can read is not a result.
	return Result{}, &Error{Op: OpClaim, Key: a.key, Err: fmt.Errorf("the store returned a holder with status %q", rec.Status)}
}

// releaseAfterRun frees the claim of work that failed, so a retry can run
// it again, and returns the work's error (with the release's, if any).
func (a *attempt) releaseAfterRun(settle context.Context, runErr error) error {
	if relErr := a.s.Release(settle, a.key, a.owner); relErr != nil {
		runErr = errors.Join(runErr, wrap(OpRelease, a.key, relErr))
	}
	return &Error{Op: OpRun, Key: a.key, Err: runErr}
}

// store is the completion phase: it stores the work's value (offloaded to
// the blob store, or omitted when too large) with its staged writes, and
// returns Executed, or what settleFailedCompletion makes of a completion
// that failed.
func (a *attempt) store(settle context.Context, claim Claim, value []byte, writes []any, stopBeats func()) (Result, error) {
	stored, encoding := []byte(nil), storekit.EncodingRaw
	if !a.c.DiscardResult {
		stored, encoding = a.c.encode(value)
	}
	comp := Completion{
		Key:       a.key,
		Owner:     a.owner,
		Result:    stored,
		Encoding:  encoding,
		ExpiresAt: a.c.CompletionExpiry(a.c.Clock.Now()),
		Writes:    writes,
	}
	res := Result{Outcome: Executed, Value: value, TookOver: claim.Previous != nil, ExpiresAt: comp.ExpiresAt}
	// A result offloaded to the blob store is written before the
	// completion; if the completion then fails, its object is left to
	// expire. A failed put is a completion that failed: NotStored.
	// The heartbeat goes on until the object is put: a large put can
	// outlast what the lease has left, and another worker must not take
	// the key over meanwhile. It stops before the completion, which needs
	// no extension racing it.
	var err error
	comp.Result, comp.Encoding, err = a.c.offload(settle, a.key, a.owner, comp.Result, comp.Encoding)
	stopBeats()
	if err == nil {
		err = a.s.Complete(settle, comp)
	}
	var tooLarge error
	if errors.Is(err, ErrResultTooLarge) {
		// The work is done and must not run again for want of room: settle
		// the key without the result (and with the staged writes).
		tooLarge = err
		comp.Result, comp.Encoding, comp.OmittedBytes = nil, storekit.EncodingRaw, max(len(value), 1)
		err = a.s.Complete(settle, comp)
		if err == nil {
			res.Omitted = true
			return res, wrap(OpComplete, a.key, tooLarge)
		}
	}
	if err == nil {
		return res, nil
	}
	return a.settleFailedCompletion(settle, res, tooLarge, err)
}

// settleFailedCompletion is the outcome of a completion that failed with
// err (after tooLarge, when the result was too large to store): Superseded
// when another claim owns the key, else NotStored, after freeing the key
// if it may still be ours.
func (a *attempt) settleFailedCompletion(settle context.Context, res Result, tooLarge, err error) (Result, error) {
	// The outcome is decided here, from the completion's own answer, before
	// anything else is asked of the store.
	if lost, ok := errors.AsType[*LeaseLostError](err); ok && lost.Superseded() {
		res.Outcome, res.Holder = Superseded, lost.Status
		return res, completeError(a.key, tooLarge, err)
	}
	res.Outcome = NotStored
	var relErr error
	if !errors.Is(err, ErrLeaseLost) {
		// Not stored and maybe still ours: free the key so a retry is not
		// blocked until the lease passes. What the release answers (even a
		// lost lease, when an earlier attempt of it was applied) changes
		// nothing: the key is not settled.
		if relErr = a.s.Release(settle, a.key, a.owner); relErr != nil {
			relErr = wrap(OpRelease, a.key, relErr)
		}
	}
	return res, completeError(a.key, tooLarge, err, relErr)
}

// completeError is the error of a completion that did not settle the key:
// an *Error for op "complete" whose cause joins errs (nil ones left out),
// each the cause of a store's *Error for the key.
func completeError(key Key, errs ...error) error {
	var causes []error
	for _, err := range errs {
		if e, ok := err.(*Error); ok && e.Key == key && e.Op == OpComplete {
			err = e.Err
		}
		if err != nil {
			causes = append(causes, err)
		}
	}
	return &Error{Op: OpComplete, Key: key, Err: errors.Join(causes...)}
}

// settleContext is the context a claim is settled under: not cancelled
// with ctx, but ended by the settle deadline. Deadlines are the system
// clock's, as every context's are, whatever Config.Clock says.
func settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	settle := context.WithoutCancel(ctx)
	if t, ok := leasectx.SettleDeadline(ctx); ok {
		return context.WithDeadline(settle, t)
	}
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(settle, d)
	}
	return context.WithTimeout(settle, defaultSettleTimeout)
}

// run calls fn with a stage for writes, a heartbeat if asked for, and a
// release of the claim if fn panics. A goroutine that exits inside fn
// (runtime.Goexit) is taken for a crash: its claim is left to its lease.
// When fn returns, the heartbeat goes on until the caller calls stopBeats
// (more than once is harmless): the result's put to a blob store is
// covered too. If fn panics or exits, run stops it.
func run(ctx context.Context, s Store, key Key, owner string, lease, beat time.Duration, c Config, fn Func) (value []byte, writes []any, stopBeats func(), err error) {
	st := &stage{}
	ctx = context.WithValue(ctx, stageKey{}, st)
	stopBeats = func() {}
	if beat > 0 {
		ctx, stopBeats = heartbeat(ctx, s, key, owner, lease, beat, c)
	}
	returned := false
	defer func() {
		if !returned { // fn panicked or called runtime.Goexit
			stopBeats()
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			stopBeats()
			settle, cancel := settleContext(ctx)
			_ = s.Release(settle, key, owner)
			cancel()
			panic(p)
		}
	}()
	value, err = fn(ctx)
	returned = true
	if err == nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrLeaseLost) {
			err = cause
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	return value, st.writes, stopBeats, err
}

// heartbeat renews the claim every interval until stop is called: the
// lease by a whole lease, and the record's expiry as a claim sets it, so a
// live lease never outlasts its record. It cancels the returned context
// with ErrLeaseLost when the lease is gone. stop cancels an extension
// under way before it waits for it.
func heartbeat(ctx context.Context, s Store, key Key, owner string, lease, interval time.Duration, c Config) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	beatCtx, stopBeats := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-beatCtx.Done():
				return
			case <-t.C:
				err := s.Extend(beatCtx, c.NewExtension(key, owner, c.Clock.Now(), lease))
				if errors.Is(err, ErrLeaseLost) {
					cancel(ErrLeaseLost)
					return
				}
				// Other errors: the lease still runs; try again next tick.
			}
		}
	})
	return ctx, func() {
		stopBeats()
		wg.Wait()
		cancel(nil)
	}
}

type stageKey struct{}

type stage struct {
	mu     sync.Mutex
	writes []any
	closed bool
}

// Stage adds a store-specific write to be committed atomically with the
// result of the work running under ctx, so the record and the write cannot
// disagree. Call it through your store's typed Stage (dynamostore.Stage
// takes a types.TransactWriteItem), which catches a wrong type when it is
// compiled; a type the store does not commit fails the completion with
// ErrUnsupportedWrite.
// It fails outside a Func run by Do, or after the Func returned.
func Stage(ctx context.Context, write any) error {
	st, ok := ctx.Value(stageKey{}).(*stage)
	if !ok {
		return errors.New("idem: Stage called outside a Func run by Do")
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return errors.New("idem: Stage called after the Func returned")
	}
	st.writes = append(st.writes, write)
	return nil
}

// wrap makes err an *Error for op and key, unless it already is one.
func wrap(op Op, key Key, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, Key: key, Err: err}
}
