package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/idem"
)

// The reference worker's consumer mode (lambda/: IDEMQ_CONSUMER_QUEUE_URL
// runs it as a consumer of that queue; IDEMQ_SQS_ENDPOINT is where it
// reaches SQS, for its receives, deletes, extensions and back-offs).
const (
	envConsumerQueueURL   = "IDEMQ_CONSUMER_QUEUE_URL"
	envConsumerGrace      = "IDEMQ_CONSUMER_GRACE_PERIOD"
	envConsumerMaxRunTime = "IDEMQ_CONSUMER_MAX_RUN_TIME"
	envConsumerBatches    = "IDEMQ_CONSUMER_MAX_BATCHES"
	envSQSEndpoint        = "IDEMQ_SQS_ENDPOINT"
)

// The faults only a consumer run has, on top of loadtest's. The others
// are applied as the consumer run's parts can: ShortVisibility by the
// provider (the consumer must extend the visibility), CrashDuringCall by
// the provider's hook (kill -9 of the calling process), CrashBeforeAck by
// the SQS fault proxy (kill -9 of the process whose DeleteMessageBatch
// holds the message, before it reaches the server), BrokerDuplicate by
// the SQS fault proxy (standard queues), ProducerResend by the producer.
const (
	// SigtermDuringCall: the calling process gets SIGTERM as the key's
	// first call starts: it stops receiving and lets its running work
	// finish within its grace period; the runner then starts another.
	// Picked per key.
	SigtermDuringCall loadtest.Fault = "sigterm-during-call"
	// SigtermLongCall: of the keys SigtermDuringCall picks, those whose
	// call (Config.SlowCall) outlasts the grace period: the work is cut,
	// and its message must come back. Picked per key.
	SigtermLongCall loadtest.Fault = "sigterm-long-call"
	// LostExtension: the keys whose call takes ConsumerSettings.LongCall
	// (several visibility timeouts) and whose messages' first deliveries
	// have their visibility extensions answered as accepted by the SQS
	// fault proxy without being passed on: the message really comes back
	// while its call runs, and must not run again. Picked per key.
	LostExtension loadtest.Fault = "lost-extension"
	// duplicateNow: of the broker's duplicates, those handed out in the
	// same receive answer as the message (the others go to a later one).
	duplicateNow loadtest.Fault = "broker-duplicate-now"
)

// CauseSigterm: the message came back because the process holding it was
// stopped by SIGTERM before its work finished.
const CauseSigterm loadtest.Cause = "stopped by SIGTERM"

// ConsumerFaults are every fault a consumer run has, standard queue.
func ConsumerFaults(seed uint64) loadtest.Faults {
	f := AllFaults(seed)
	// A kill as a process deletes must happen in each run (the test
	// requires every fault): at AllFaults' 3 % of 150 keys it picked about
	// 4 messages, and a clean clone's run on 2026-12-04 had none.
	f.Rates[loadtest.CrashBeforeAck] = 0.06
	f.Rates[SigtermDuringCall] = 0.04
	f.Rates[SigtermLongCall] = 0.5
	f.Rates[LostExtension] = 0.04
	return f
}

// ConsumerSmall is the consumer run inside `go test ./...`: 4 processes
// receiving up to 10 messages at a time, one batch at a time each (as
// Lambda instances), a standard queue, every fault on.
func ConsumerSmall(seed uint64) Config {
	c := Small(seed)
	c.Variant, c.Requests, c.Backoff = Consumer, 150, true
	c.Faults = ConsumerFaults(seed)
	c.Consumer = ConsumerSettings{Grace: time.Second, MaxBatches: 1, MaxRunTime: 30 * time.Second, LongCall: 6 * time.Second}
	return c
}

// ConsumerFull is `make pipeline`'s standard consumer run. Its claims
// take the consumer's default lease (IDEMQ_LEASE and IDEMQ_HEARTBEAT
// unset: consumer.DefaultShortLease, renewed every consumer.DefaultHeartbeat),
// so the keys of the processes killed during a call come back as they
// would in production: the report says after how long.
func ConsumerFull(seed uint64) Config {
	c := ConsumerSmall(seed)
	c.Requests, c.Poison, c.Instances = 300, 3, 6
	c.Lease, c.Heartbeat = 0, 0
	return c
}

// ConsumerSmallFIFO is the FIFO consumer run inside `go test ./...`: as
// SmallFIFO (12 groups, a 4 s visibility timeout, a 4.4 s slow call) with
// 36 keys, every fault a FIFO queue can have.
func ConsumerSmallFIFO(seed uint64) Config {
	c := SmallFIFO(seed)
	// The consumer receives up to 10 at a time (fauxqs hands out one
	// message per group per receive).
	c.Variant, c.Requests, c.BatchSize = Consumer, 36, 10
	c.Faults = FIFOFaults(seed)
	c.Faults.Rates[loadtest.ShortVisibility] = 0.1
	c.Faults.Rates[loadtest.CrashBeforeAck] = 0.1
	c.Faults.Rates[SigtermDuringCall] = 0.15
	c.Faults.Rates[SigtermLongCall] = 0.5
	c.Faults.Rates[LostExtension] = 0.1
	c.Consumer = ConsumerSettings{Grace: time.Second, MaxBatches: 1, MaxRunTime: 30 * time.Second, LongCall: 6 * time.Second}
	return c
}

// ConsumerFullFIFO is `make pipeline`'s FIFO consumer run.
func ConsumerFullFIFO(seed uint64) Config {
	c := ConsumerSmallFIFO(seed)
	c.Requests, c.Poison, c.Groups, c.Instances = 60, 2, 12, 6
	return c
}

// stopSlack is how much longer than its grace period a SIGTERM-ed
// process may take to exit: the consumer's cancel wait, its process exit.
const stopSlack = 8 * time.Second

// consumerProcs returns the run's processes (nil if not a consumer run),
// for trace.
func (r *runner) consumerProcs() []*ConsumerProc {
	if r.con == nil {
		return nil
	}
	r.con.mu.Lock()
	defer r.con.mu.Unlock()
	return append([]*ConsumerProc(nil), r.con.order...)
}

// waitDrained returns once everything is sent and nothing is left in the
// queue nor waiting in the proxy, twice in a row a second apart.
func (c *conRun) waitDrained(ctx context.Context, sent func() bool) error {
	quiet := 0
	for quiet < 2 {
		select {
		case <-ctx.Done():
			return nil // the cause is the run's
		case <-time.After(time.Second):
		}
		n, err := c.r.queue.Pending(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("pipeline: queue depth: %w", err)
		}
		if sent() && n == 0 && c.proxy.Waiting() == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	return nil
}

// slot keeps one process running: it starts one, and when a fault killed
// or stopped it, another. When stop closes it stops its process with
// SIGTERM and waits for it. A process that exits on its own fails the run.
func (c *conRun) slot(ctx context.Context, i int, stop <-chan struct{}) error {
	for gen := 1; ; gen++ {
		name := fmt.Sprintf("c%d.%d", i, gen)
		p, err := c.start(name)
		if err != nil {
			return err
		}
		final := false
		watch := time.NewTicker(500 * time.Millisecond)
	wait:
		for {
			select {
			case <-p.Exited():
				break wait
			case <-stop:
				final = true
				c.mu.Lock()
				c.stopping = true
				if _, ok := c.termAt[name]; !ok {
					c.termAt[name] = time.Now()
				}
				c.mu.Unlock()
				p.Term()
				stop = nil
			case <-ctx.Done():
				p.Kill()
				<-p.Exited()
				watch.Stop()
				return nil
			case <-watch.C:
				c.mu.Lock()
				at, ok := c.termAt[name]
				c.mu.Unlock()
				if ok && time.Since(at) > c.r.cfg.Consumer.Grace+stopSlack && p.Alive() {
					// Reported, not a violation: a time on a loaded
					// machine proves nothing; the kill keeps the run going.
					c.mu.Lock()
					c.rep.SlowStops++
					c.mu.Unlock()
					p.Kill()
				}
			}
		}
		watch.Stop()
		c.settle(p)
		switch {
		case final:
			return nil
		case p.stopped() == "":
			return fmt.Errorf("pipeline: consumer %s exited on its own (%v); its output:\n%s", name, p.err, p.logs.tail(3000))
		}
		select {
		case <-stop:
			return nil
		default:
		}
	}
}

// start starts process name: the worker's environment, its own SQS port
// and provider URL, the consumer's settings.
func (c *conRun) start(name string) (*ConsumerProc, error) {
	r := c.r
	env := append(r.workerEnv(name),
		envConsumerQueueURL+"="+r.queue.URL,
		envSQSEndpoint+"="+c.proxy.Listen(name),
		envConsumerGrace+"="+r.cfg.Consumer.Grace.String(),
		envConsumerMaxRunTime+"="+r.cfg.Consumer.MaxRunTime.String(),
		envConsumerBatches+"="+fmt.Sprint(r.cfg.Consumer.MaxBatches),
	)
	if !r.cfg.Backoff {
		env = append(env, "IDEMQ_BACKOFF=false")
	}
	p, err := startConsumerProc(name, r.parts.Bootstrap, env)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.procs[name] = p
	c.order = append(c.order, p)
	c.rep.Started++
	c.mu.Unlock()
	return p, nil
}

// settle notes what an exited process left: every message it held and
// did not delete comes back, and its key may be called again (the answer
// lost with the process, or the work cut at the end of the grace period).
func (c *conRun) settle(p *ConsumerProc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.held[p.Name]
	delete(c.held, p.Name)
	how := p.stopped()
	if how == "terminated" && !c.stopping {
		c.rep.LeftByTerminated += len(held)
	}
	keys := map[string]bool{}
	for _, k := range held {
		if k != "" && !keys[k] {
			keys[k] = true
			c.r.mu.Lock()
			c.r.lostWork[k]++
			c.r.mu.Unlock()
		}
	}
	for k, m := range c.calls {
		for id, proc := range m {
			if proc == p.Name {
				delete(m, id)
			}
		}
		if len(m) == 0 {
			delete(c.calls, k)
		}
	}
}

func (c *conRun) violate(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

// callTime is the provider's time for a call: the runner's, SlowCall for
// the SIGTERM keys whose work must outlast the grace period, LongCall for
// the keys whose extensions are lost.
func (c *conRun) callTime(prompt string) time.Duration {
	key := c.r.keyOf[prompt]
	f := c.r.cfg.Faults
	switch {
	case f.Picks(LostExtension, key):
		return c.r.cfg.Consumer.LongCall
	case f.Picks(SigtermDuringCall, key) && f.Picks(SigtermLongCall, key):
		return c.r.cfg.SlowCall
	}
	return c.r.callTime(key)
}

// callStarted notes the call until it is over and, on the first call of
// a key SigtermDuringCall picks, stops its caller with SIGTERM.
func (c *conRun) callStarted(call loadtest.Call) (done func()) {
	key := c.r.keyOf[call.Key]
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[key] == nil {
		c.calls[key] = map[string]string{}
	}
	c.calls[key][call.ID] = call.Instance
	if at, ok := c.killedAt[key]; ok && !c.recovered[key] {
		// The key's next call after its caller died: its claim was
		// taken over.
		c.recovered[key] = true
		c.rep.Recovery = append(c.rep.Recovery, time.Since(at))
	}
	done = func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.calls[key], call.ID)
		if len(c.calls[key]) == 0 {
			delete(c.calls, key)
		}
	}
	p := c.procs[call.Instance]
	if p == nil || c.stopping || !c.r.cfg.Faults.Picks(SigtermDuringCall, key) || c.termed[key] {
		return done
	}
	c.termed[key] = true
	if _, termed := c.termAt[p.Name]; termed || p.stopped() != "" || !p.Alive() {
		return done
	}
	c.termAt[p.Name] = time.Now()
	c.rep.Terminated++
	p.Term()
	return done
}

// callEnded, once a call's time has passed, kills its caller before the
// answer is sent on the first call of a key CrashDuringCall picks.
func (c *conRun) callEnded(call loadtest.Call) error {
	key := c.r.keyOf[call.Key]
	c.mu.Lock()
	p := c.procs[call.Instance]
	c.mu.Unlock()
	if p == nil || !c.r.cfg.Faults.Picks(loadtest.CrashDuringCall, key) {
		return nil
	}
	c.r.mu.Lock()
	first := !c.r.crashedKeys[key]
	c.r.crashedKeys[key] = true
	c.r.mu.Unlock()
	if !first {
		return nil
	}
	c.mu.Lock()
	c.rep.KilledDuringCall++
	c.killedAt[key] = time.Now()
	c.mu.Unlock()
	p.Kill()
	return errors.New("caller killed")
}

// received classifies each delivery by why it came, as the event source
// mapping does, and notes who holds it.
func (c *conRun) received(proc string, msgs []sqsMessage, isCopy []bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rep.Receives++
	batch := map[string]bool{}
	for i, m := range msgs {
		key := bodyKey(m.Body)
		cause := c.cause(m, key, isCopy[i])
		c.deliveries[cause]++
		if cause == loadtest.CauseVisibility {
			c.rep.BackDuringCall++
			// Reported, not a violation: an extension a second late on a
			// loaded machine would be one. That the key did not run
			// again is the check (one call per key).
			if c.lost[m.MessageID] {
				c.rep.BackAfterLost++
			}
		}
		if _, ok := c.firstRH[m.MessageID]; !ok {
			c.firstRH[m.MessageID] = m.ReceiptHandle
		}
		c.seen[m.MessageID] = true
		if key != "" {
			if _, ok := c.firstOf[key]; !ok {
				c.firstOf[key] = m.MessageID
			}
		}
		if c.held[proc] == nil {
			c.held[proc] = map[string]string{}
		}
		c.held[proc][m.MessageID] = key
		c.holder[m.MessageID] = proc
		batch[m.MessageID] = true
	}
	// A process receives only when a batch may start: with MaxBatches
	// batches at once, its last MaxBatches answers are what it runs.
	run := append(c.running[proc], batch)
	c.running[proc] = run[max(0, len(run)-max(1, c.r.cfg.Consumer.MaxBatches)):]
}

// cause is why m reached a process; c.mu is held.
func (c *conRun) cause(m sqsMessage, key string, isCopy bool) loadtest.Cause {
	switch {
	case isCopy:
		return loadtest.CauseDuplicate
	case !c.seen[m.MessageID]:
		if first, ok := c.firstOf[key]; ok && key != "" && first != m.MessageID {
			return loadtest.CauseResend
		}
		return loadtest.CauseFirst
	}
	prev := c.procs[c.holder[m.MessageID]]
	switch {
	case prev == nil:
		return loadtest.CauseRetry
	case prev.stopped() == "killed":
		return loadtest.CauseCrash
	case prev.stopped() == "terminated":
		return CauseSigterm
	}
	// Came back during the call: its holder runs the batch it is in, and
	// is in a call for its key.
	running := false
	for _, b := range c.running[prev.Name] {
		running = running || b[m.MessageID]
	}
	if _, holds := c.held[prev.Name][m.MessageID]; holds && running && prev.Alive() {
		for _, proc := range c.calls[key] {
			if proc == prev.Name {
				return loadtest.CauseVisibility
			}
		}
	}
	// An item failure, a back-off, a give-back while stopping, or the
	// visibility timeout after the work: the proxy cannot tell them apart.
	return loadtest.CauseRetry
}

// duplicate picks the broker's duplicates: at a message's first delivery,
// on a standard queue.
func (c *conRun) duplicate(m sqsMessage) (dup, now bool) {
	f := c.r.cfg.Faults
	if c.r.cfg.FIFO || m.Attributes["MessageGroupId"] != "" || !f.Picks(loadtest.BrokerDuplicate, m.MessageID) {
		return false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[m.MessageID] || c.copied[m.MessageID] {
		return false, false
	}
	c.copied[m.MessageID] = true
	c.rep.Copies++
	nowF := loadtest.Faults{Seed: f.Seed, Rates: map[loadtest.Fault]float64{duplicateNow: 0.5}}
	return true, nowF.Picks(duplicateNow, m.MessageID)
}

// loseChange counts visibility changes and loses the extensions of the
// first delivery of the messages of a key LostExtension picks.
func (c *conRun) loseChange(proc string, m sqsMessage, seconds int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rep.Changes++
	if seconds <= 0 {
		return false
	}
	c.rep.Extensions++
	f := c.r.cfg.Faults
	key := bodyKey(m.Body)
	if !f.Picks(LostExtension, key) || c.firstRH[m.MessageID] != m.ReceiptHandle {
		return false
	}
	c.rep.LostExtensions++
	c.lost[m.MessageID] = true
	return true
}

// beforeDelete checks that every message proc asks to delete has its key
// COMPLETED, and kills proc if the delete holds a message CrashBeforeAck
// picks (once per message).
func (c *conRun) beforeDelete(proc string, msgs []sqsMessage) bool {
	c.checkDeletes(proc, msgs)
	f := c.r.cfg.Faults
	c.mu.Lock()
	p := c.procs[proc]
	kill := false
	for _, m := range msgs {
		if m.MessageID != "" && f.Picks(loadtest.CrashBeforeAck, m.MessageID) && !c.killedBD[m.MessageID] {
			c.killedBD[m.MessageID] = true
			kill = true
		}
	}
	if kill && p != nil && p.Alive() && p.stopped() == "" {
		c.rep.KilledBeforeDelete++
	} else {
		kill = false
	}
	c.mu.Unlock()
	if kill {
		p.Kill()
	}
	return kill
}

// checkDeletes reads each message's record as the delete goes out: only a
// COMPLETED key's message may be deleted.
func (c *conRun) checkDeletes(proc string, msgs []sqsMessage) {
	var wg sync.WaitGroup
	for _, m := range msgs {
		key := bodyKey(m.Body)
		switch {
		case m.MessageID == "":
			c.violate("%s deleted receipt handle %.40s…, which no receive handed out", proc, m.ReceiptHandle)
			continue
		case key == "":
			c.violate("%s deleted message %s, which has no key", proc, m.MessageID)
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rec, ok, err := c.r.store.records.Get(ctx, clientKey(key))
			c.mu.Lock()
			defer c.mu.Unlock()
			c.rep.DeletesChecked++
			switch {
			case err != nil:
				if c.checkErr == nil {
					c.checkErr = fmt.Errorf("pipeline: read the record of %s as its message was deleted: %w", key, err)
				}
			case !ok:
				c.violations = append(c.violations, fmt.Sprintf("%s deleted message %s of key %s, which has no record", proc, m.MessageID, key))
			case rec.Status != idem.StatusCompleted:
				c.violations = append(c.violations, fmt.Sprintf("%s deleted message %s of key %s while its record was %s", proc, m.MessageID, key, rec.Status))
			}
		})
	}
	wg.Wait()
}

func (c *conRun) onDeleted(_ string, msgs []sqsMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		if m.MessageID == "" {
			continue
		}
		c.deleted[m.MessageID] = true
		for _, h := range c.held {
			delete(h, m.MessageID)
		}
	}
}

func (c *conRun) onSent(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent[id] = true
}

// lastFailures is, per message id, why its last delivery came back: the
// handler's last "record comes back" line for it, else what was done to
// the process that held it last.
func (c *conRun) lastFailures() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	last := map[string]time.Time{}
	for _, p := range c.order {
		for _, l := range comesBack(p.Logs()) {
			if l.at.After(last[l.id]) || last[l.id].IsZero() {
				out[l.id], last[l.id] = l.err, l.at
			}
		}
	}
	for id, proc := range c.holder {
		if _, ok := out[id]; ok || c.deleted[id] {
			continue
		}
		switch c.procs[proc].stopped() {
		case "killed":
			out[id] = "process killed (kill -9)"
		case "terminated":
			out[id] = "process stopped (SIGTERM)"
		}
	}
	return out
}

// finish adds the consumer's report to rep and checks that no message was
// lost: every message the server took was deleted (with its key
// COMPLETED, as checked at the delete and in Report's checks), is in the
// dead-letter queue, or is still in the queue.
func (c *conRun) finish(ctx context.Context, rep *Report) error {
	r := c.r
	left, err := r.queue.Pending(ctx)
	if err != nil {
		return err
	}
	dead := map[string]bool{}
	for _, d := range rep.DeadLetters {
		dead[d.MessageID] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.order {
		rep.Worker.add(ParseWorkerLog(p.Logs()))
		for line := range strings.Lines(p.Logs()) {
			if len(c.rep.Errors) < 5 && (strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`)) &&
				!strings.Contains(line, "idemq: record comes back") {
				c.rep.Errors = append(c.rep.Errors, fmt.Sprintf("%s: %.300s", p.Name, strings.TrimSpace(line)))
			}
		}
	}
	rep.Restarts = c.rep.Started - c.rep.Processes
	c.rep.Sent, c.rep.Deleted, c.rep.DeadLettered, c.rep.Left = len(c.sent), len(c.deleted), len(dead), left
	lost := 0
	for id := range c.sent {
		if !c.deleted[id] && !dead[id] {
			lost++
		}
	}
	if lost > left {
		rep.violate("%d messages neither deleted nor in the dead-letter queue, and %d left in the queue: %d lost", lost, left, lost-left)
	}
	for id := range dead {
		if c.deleted[id] {
			rep.violate("message %s was deleted and is in the dead-letter queue", id)
		}
	}
	if c.rep.Sent == 0 || c.rep.DeletesChecked < c.rep.Deleted {
		rep.violate("%d messages sent, %d deleted, %d of them checked as deleted", c.rep.Sent, c.rep.Deleted, c.rep.DeletesChecked)
	}
	for _, v := range c.violations {
		rep.violate("%s", v)
	}
	cr := c.rep
	rep.Consumer = &cr
	rep.Consumer.SigtermDeliveries = c.deliveries[CauseSigterm]
	return nil
}

// logLine is a handler "record comes back" line.
type logLine struct {
	id, err string
	at      time.Time
}

// comesBack reads the handler's "record comes back" lines (JSON from
// log/slog) out of a process's output.
func comesBack(out string) []logLine {
	var lines []logLine
	for line := range strings.Lines(out) {
		if !strings.Contains(line, `"idemq: record comes back"`) {
			continue
		}
		var l struct {
			Time time.Time `json:"time"`
			ID   string    `json:"message_id"`
			Err  string    `json:"err"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.ID != "" {
			lines = append(lines, logLine{id: l.ID, err: l.Err, at: l.Time})
		}
	}
	return lines
}

// summary is the consumer's lines of Report.Summary.
func (cr *ConsumerReport) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  consumers: %d at once, %d started; killed (kill -9) during a call %d, as they deleted %d; stopped (SIGTERM) during a call %d, leaving %d messages to come back (%d slow to stop)\n",
		cr.Processes, cr.Started, cr.KilledDuringCall, cr.KilledBeforeDelete, cr.Terminated, cr.LeftByTerminated, cr.SlowStops)
	fmt.Fprintf(&b, "  queue: %d receives, %d broker duplicates added, %d deliveries after a SIGTERM; visibility changes %d (%d extensions, %d lost); came back during the call %d (%d after a lost extension)\n",
		cr.Receives, cr.Copies, cr.SigtermDeliveries, cr.Changes, cr.Extensions, cr.LostExtensions, cr.BackDuringCall, cr.BackAfterLost)
	fmt.Fprintf(&b, "  messages: %d sent, %d deleted (%d deletes checked against their record), %d dead-lettered, %d left in the queue\n",
		cr.Sent, cr.Deleted, cr.DeletesChecked, cr.DeadLettered, cr.Left)
	if len(cr.Recovery) > 0 {
		sorted := slices.Sorted(slices.Values(cr.Recovery))
		fmt.Fprintf(&b, "  crashed keys: %d of the %d keys whose process was killed during the call were called again, after %s (min), %s (median), %s (max) from the kill; lease %s\n",
			len(sorted), cr.KilledDuringCall, sorted[0].Round(time.Millisecond), sorted[len(sorted)/2].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond), cr.Lease)
	}
	for _, e := range cr.Errors {
		fmt.Fprintf(&b, "    logged: %s\n", e)
	}
	return b.String()
}
