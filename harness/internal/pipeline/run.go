package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/harness/internal/loadtest"
)

// Run sends cfg's workload through a fresh queue to cfg.Variant, with the
// faults switched on, and reports what happened. It checks the guarantee
// for the idemq variant (Report.Violations); progress, if not nil, gets a
// line a second.
func Run(ctx context.Context, parts Parts, cfg Config, progress io.Writer) (*Report, error) {
	r := &runner{parts: parts, cfg: cfg, progress: progress, suffix: randomSuffix()}
	defer r.close()
	return r.run(ctx)
}

func randomSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (r *runner) close() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func (r *runner) run(ctx context.Context) (*Report, error) {
	cfg := r.cfg
	r.reqs = loadtest.Workload(cfg.Requests)
	r.keyOf = make(map[string]string, len(r.reqs))
	for _, q := range r.reqs {
		r.keyOf[q.Prompt] = q.Key
	}
	r.crashedKeys, r.lostWork = map[string]bool{}, map[string]int{}
	if cfg.FIFO {
		r.groupOf, r.firstID = make(map[string]string, len(r.reqs)), map[string]string{}
		for i, q := range r.reqs {
			r.groupOf[q.Key] = fmt.Sprintf("g%02d", i%max(cfg.Groups, 1))
		}
	}
	if cfg.Variant == Consumer {
		return r.runConsumer(ctx)
	}
	if cfg.Backoff && cfg.Variant != Idemq {
		return nil, fmt.Errorf("pipeline: back-off is the reference worker's (%s), not %s's", Idemq, cfg.Variant)
	}

	var err error
	sqsClient := NewSQSClient(r.parts.SQS)
	if r.queue, err = CreateQueue(ctx, sqsClient, "idemq-"+r.suffix, cfg.Visibility, cfg.MaxReceives, cfg.FIFO); err != nil {
		return nil, err
	}
	if err := r.startProducer(r.parts.SQS); err != nil {
		return nil, err
	}
	if cfg.Backoff {
		if r.sqsProxy, err = NewSQSProxy(r.parts.SQS); err != nil {
			return nil, err
		}
		r.cleanups = append(r.cleanups, r.sqsProxy.Close)
	}
	popts := []loadtest.ProviderOption{
		loadtest.WithCallTimeFunc(func(prompt string) time.Duration { return r.callTime(r.keyOf[prompt]) }),
		loadtest.WithCallHook(r.onCall),
	}
	if cfg.Answers != (Sizes{}) {
		content, err := r.contentFunc()
		if err != nil {
			return nil, err
		}
		popts = append(popts, loadtest.WithContent(content))
	}
	if cfg.Blobs {
		if cfg.Variant != Idemq {
			return nil, fmt.Errorf("pipeline: a result bucket is the reference worker's (%s), not %s's", Idemq, cfg.Variant)
		}
		if err := r.startBlobs(ctx); err != nil {
			return nil, err
		}
	}
	r.provider = loadtest.NewProvider(popts...)
	r.cleanups = append(r.cleanups, r.provider.Close)
	invokers, err := r.startFunction(ctx)
	if err != nil {
		return nil, err
	}

	start := time.Now()
	var sent atomic.Bool
	var resent int
	var sendErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		defer sent.Store(true)
		for i := range cfg.Poison {
			if sendErr = r.sendPoison(ctx, i); sendErr != nil {
				return
			}
		}
		send := r.send
		if cfg.FIFO {
			send = r.sendFIFO
		}
		resent, sendErr = loadtest.Send(ctx, r.reqs, cfg.Faults, cfg.ResendGap, send)
	})
	stopProgress := r.showProgress(start)
	esm := loadtest.ESM{
		Source: r.queue, Instances: invokers, BatchSize: cfg.BatchSize, BatchingWindow: cfg.BatchingWindow,
		PollWait: time.Second, Timeout: cfg.Timeout, Faults: cfg.Faults, OnInvocation: r.onInvocation,
	}
	stats, err := esm.Run(ctx, sent.Load)
	stopProgress()
	wg.Wait()
	if err = errors.Join(err, sendErr); err != nil {
		return nil, err
	}
	return r.report(ctx, stats, resent, time.Since(start))
}

// sendPoison sends the i-th message without a key; on FIFO in a message
// group of its own, so it holds no key's group while it fails its way to
// the dead-letter queue.
func (r *runner) sendPoison(ctx context.Context, i int) error {
	body := fmt.Sprintf(`{"model":"test-model","prompt":"poison %d: no key"}`, i)
	if !r.cfg.FIFO {
		return r.queue.Send(ctx, body)
	}
	id := fmt.Sprintf("poison-%d", i)
	_, err := r.queue.SendFIFO(ctx, body, id, id)
	return err
}

// onCall kills the calling instance during the first call of a key that
// CrashDuringCall picks: the call is billed, the answer never arrives.
func (r *runner) onCall(c loadtest.Call) error {
	key := r.keyOf[c.Key]
	in := r.byName[c.Instance]
	if in == nil || !r.cfg.Faults.Picks(loadtest.CrashDuringCall, key) {
		return nil
	}
	r.mu.Lock()
	first := !r.crashedKeys[key]
	r.crashedKeys[key] = true
	r.mu.Unlock()
	if !first {
		return nil
	}
	in.Crash()
	return errors.New("caller killed")
}

// onInvocation notes the keys of a batch whose instance died during it:
// their paid-for answers may be lost, and a take-over calls again, once
// per such batch at most.
func (r *runner) onInvocation(inv loadtest.Invocation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if inv.Failure == "error" && len(r.errs) < 5 {
		r.errs = append(r.errs, inv.Err.Error())
	}
	if inv.Failure != "crash" || inv.Err == nil {
		return
	}
	inBatch := map[string]bool{}
	for _, m := range inv.Event.Records {
		if k := bodyKey(m.Body); k != "" && !inBatch[k] {
			inBatch[k] = true
			r.lostWork[k]++
		}
	}
}

func (r *runner) showProgress(start time.Time) func() {
	if r.progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				calls := len(r.provider.Log())
				if r.naive != nil {
					c, _ := r.naive.results()
					calls = 0
					for _, n := range c {
						calls += n
					}
				}
				n, _ := r.queue.Pending(context.Background())
				fmt.Fprintf(r.progress, "  %-30s %5.1fs  provider calls %4d  messages in the queue %4d\n",
					r.cfg.Variant, time.Since(start).Seconds(), calls, n)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// runConsumer is Run for the Consumer variant.
func (r *runner) runConsumer(ctx context.Context) (*Report, error) {
	cfg := r.cfg
	c := &conRun{r: r, procs: map[string]*ConsumerProc{}, held: map[string]map[string]string{},
		running: map[string][]map[string]bool{}, seen: map[string]bool{}, firstOf: map[string]string{}, firstRH: map[string]string{}, holder: map[string]string{},
		deleted: map[string]bool{}, sent: map[string]bool{}, copied: map[string]bool{}, killedBD: map[string]bool{},
		termed: map[string]bool{}, calls: map[string]map[string]string{}, lost: map[string]bool{},
		termAt: map[string]time.Time{}, killedAt: map[string]time.Time{}, recovered: map[string]bool{}, deliveries: map[loadtest.Cause]int{}}
	c.rep.Processes = cfg.Instances
	c.rep.Lease = cfg.Lease
	if c.rep.Lease == 0 {
		c.rep.Lease = consumer.DefaultShortLease
	}
	r.con = c
	var err error
	if c.proxy, err = NewSQSFaultProxy(r.parts.SQS, faultHooks{
		received: c.received, duplicate: c.duplicate, loseChange: c.loseChange,
		beforeDelete: c.beforeDelete, deleted: c.onDeleted, sent: c.onSent,
	}); err != nil {
		return nil, err
	}
	r.cleanups = append(r.cleanups, c.proxy.Close)
	// The runner's own requests (sends, queue depth, dead letters) pass
	// through the proxy's producer port, which notes the ids sent.
	producerPort := c.proxy.Listen(producerProc)
	if r.queue, err = CreateQueue(ctx, NewSQSClient(producerPort), "idemq-"+r.suffix, cfg.Visibility, cfg.MaxReceives, cfg.FIFO); err != nil {
		return nil, err
	}
	if err := r.startProducer(producerPort); err != nil {
		return nil, err
	}
	r.provider = loadtest.NewProvider(
		loadtest.WithCallTimeFunc(c.callTime),
		loadtest.WithCallStartHook(c.callStarted),
		loadtest.WithCallHook(c.callEnded),
	)
	r.cleanups = append(r.cleanups, r.provider.Close)
	if r.store, err = r.startStore(ctx); err != nil {
		return nil, err
	}

	start := time.Now()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := make(chan struct{})
	var slots sync.WaitGroup
	for i := range cfg.Instances {
		slots.Go(func() {
			if err := c.slot(runCtx, i, stop); err != nil {
				cancel(err)
			}
		})
	}
	var sent atomic.Bool
	var resent int
	var sendErr error
	var prod sync.WaitGroup
	prod.Go(func() {
		defer sent.Store(true)
		for i := range cfg.Poison {
			if sendErr = r.sendPoison(runCtx, i); sendErr != nil {
				return
			}
		}
		send := r.send
		if cfg.FIFO {
			send = r.sendFIFO
		}
		resent, sendErr = loadtest.Send(runCtx, r.reqs, cfg.Faults, cfg.ResendGap, send)
	})
	stopProgress := r.showProgress(start)
	drainErr := c.waitDrained(runCtx, sent.Load)
	close(stop)
	slots.Wait()
	stopProgress()
	prod.Wait()
	if err := errors.Join(drainErr, context.Cause(runCtx), sendErr); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	// A killed process's long poll may still be answered to the proxy:
	// take what the hooks counted under their lock.
	c.mu.Lock()
	checkErr := c.checkErr
	stats := loadtest.Stats{Invocations: c.rep.Receives, Deliveries: maps.Clone(c.deliveries), Deleted: len(c.deleted),
		BatchFailures: map[string]int{}}
	c.mu.Unlock()
	if checkErr != nil {
		return nil, checkErr
	}
	stats.LastFailure = c.lastFailures()
	rep, err := r.report(ctx, stats, resent, elapsed)
	if err != nil {
		return nil, err
	}
	return rep, c.finish(ctx, rep)
}
