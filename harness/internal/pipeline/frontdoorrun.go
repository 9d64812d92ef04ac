package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/internal/netfault"
)

// RunFrontDoor runs cfg: it starts the front door and the consumers, posts
// every key from concurrent clients, and alongside them hostile requests
// (hostileRequests), reads every key's status until it is 200, waits for
// the queue to drain, and checks that each key was enqueued once and
// called once, that each status is the provider's answer for its key,
// that the reused key's other payload was refused and never ran, and that
// each hostile request was answered as the threat model says and neither
// enqueued nor ran.
func RunFrontDoor(ctx context.Context, parts Parts, cfg FrontDoorConfig) (*FrontDoorReport, error) {
	// Config.Variant Consumer: the processes' environment names their SQS
	// endpoint here (workerEnv), and the store has no faults.
	r := &runner{parts: parts, cfg: Config{Variant: Consumer}, suffix: randomSuffix()}
	defer r.close()
	f := &fdRun{r: r, cfg: cfg, reqs: loadtest.Workload(cfg.Keys), seen: map[string]int{}, sends: map[string]int{},
		bodies: map[string][]string{}, accepted: map[string][]string{}, results: map[string][]byte{}}
	f.rep = FrontDoorReport{Keys: cfg.Keys, Posts: cfg.Posts, KeyFields: cfg.KeyFields, Answers: map[int]int{}, Polls: map[int]int{}, MessagesPerKey: map[int]int{}}
	return f.run(ctx)
}

func (f *fdRun) run(ctx context.Context) (*FrontDoorReport, error) {
	r, cfg := f.r, f.cfg
	var err error
	if r.queue, err = CreateQueue(ctx, NewSQSClient(r.parts.SQS), "idemq-fd-"+r.suffix, 10*time.Second, 5, false); err != nil {
		return nil, err
	}
	counter, err := startProxy(r.parts.SQS, f.countSends)
	if err != nil {
		return nil, err
	}
	r.cleanups = append(r.cleanups, counter.Close)
	r.provider = loadtest.NewProvider(loadtest.WithCallTime(cfg.CallTime))
	r.cleanups = append(r.cleanups, r.provider.Close)
	if r.store, err = r.startDynamoDB(ctx); err != nil {
		return nil, err
	}

	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	door, err := f.startFrontDoor(envMode+"=frontdoor", envFrontDoorQueue+"="+r.queue.URL,
		envFrontDoorAddr+"="+addr, envSQSEndpoint+"="+counter.URL)
	if err != nil {
		return nil, err
	}
	if err := waitServing(ctx, door, addr); err != nil {
		return nil, err
	}
	lose, err := netfault.Start(addr, f.filter)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	r.cleanups = append(r.cleanups, lose.Close)
	f.base = "http://" + lose.Addr() + frontDoorPath
	scoped, err := f.startScopedDoor(ctx, counter.URL)
	if err != nil {
		return nil, err
	}
	procs := []*ConsumerProc{door}
	for i := range cfg.Consumers {
		p, err := f.start(fmt.Sprintf("c%d", i), envConsumerQueueURL+"="+r.queue.URL, envSQSEndpoint+"="+r.parts.SQS,
			envConsumerGrace+"=1s", envConsumerMaxRunTime+"=30s", envConsumerBatches+"=1")
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
	}

	start := time.Now()
	var wg sync.WaitGroup
	poster := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	reader := &http.Client{Timeout: 30 * time.Second}
	wg.Go(func() { f.hostile(ctx, addr) })
	wg.Go(func() { f.scoped(ctx, scoped) })
	for i, q := range f.reqs {
		wg.Go(func() { f.postKey(ctx, poster, i, q) })
		wg.Go(func() { f.poll(ctx, reader, q.Key) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		f.mu.Lock()
		read, polls := len(f.results), formatSorted(f.rep.Polls, "%d ×%d")
		f.mu.Unlock()
		return nil, fmt.Errorf("pipeline: front-door run: %w, %d of %d keys' status read 200 (GET %s); the front door's output:\n%s",
			err, read, len(f.reqs), polls, door.logs.tail(3000))
	}
	left, err := f.drained(ctx)
	if err != nil {
		return nil, err
	}
	f.rep.Elapsed = time.Since(start)
	f.checkHostile(ctx, addr)
	for _, p := range procs {
		if !p.Alive() {
			f.rep.violate("%s exited during the run (%v); its output:\n%s", p.Name, p.err, p.logs.tail(2000))
		}
		stopProc(p)
	}
	dead, err := r.queue.DeadLetters(ctx)
	if err != nil {
		return nil, err
	}
	f.rep.Left, f.rep.DeadLettered = left, len(dead)
	f.check(procs)
	return &f.rep, nil
}

// check fills the report's counts and violations.
func (f *fdRun) check(procs []*ConsumerProc) {
	rep := &f.rep
	for _, p := range procs {
		if p.Name != "frontdoor" {
			rep.Worker.add(ParseWorkerLog(p.Logs()))
		}
		for line := range strings.Lines(p.Logs()) {
			if len(rep.Errors) < 5 && (strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`)) {
				rep.Errors = append(rep.Errors, fmt.Sprintf("%s: %.300s", p.Name, strings.TrimSpace(line)))
			}
		}
	}
	log := f.r.provider.Log()
	rep.ProviderCalls = len(log)
	calls := map[string][]loadtest.Call{} // prompt → calls
	counts := map[string]int{}
	for _, c := range log {
		calls[c.Key] = append(calls[c.Key], c)
		counts[c.Key]++
	}
	// answered says whether result is the worker's completion of a call
	// the provider answered for prompt.
	answered := func(prompt string, result []byte) error {
		var res struct {
			ID      string `json:"id"`
			Content string `json:"content"`
		}
		kc := calls[prompt]
		switch err := json.Unmarshal(result, &res); {
		case err != nil:
			return fmt.Errorf("not the worker's completion JSON: %v: %.200s", err, result)
		case len(kc) == 0:
			return fmt.Errorf("it reads %.200s, and the provider was never called for it", result)
		case !slices.ContainsFunc(kc, func(c loadtest.Call) bool { return c.Answered && c.ID == res.ID && c.Content == res.Content }):
			return fmt.Errorf("it reads completion %s %q, which the provider did not answer for it", res.ID, clip(res.Content))
		}
		return nil
	}
	for i, q := range f.reqs {
		for _, a := range f.accepted[q.Key] {
			if result, ok := strings.CutPrefix(a, "200 "); ok {
				// A repeat after the worker completed: answered as a
				// status read is, with the result.
				if err := answered(q.Prompt, []byte(result)); err != nil {
					rep.violate("key %s: a POST was answered 200: %v", q.Key, err)
				}
				continue
			}
			want := fmt.Sprintf(`%d {"idempotency_key":%q,"status":"queued","status_url":%q}`, http.StatusAccepted, q.Key, frontDoorPath+"/"+q.Key)
			if a != want {
				rep.violate("key %s: a POST was answered %s, want %s", q.Key, a, want)
			}
		}
		if n := len(f.accepted[q.Key]); n < f.cfg.Posts {
			rep.violate("key %s: %d POSTs answered, want at least %d", q.Key, n, f.cfg.Posts)
		}
		n := f.sends[q.Key]
		rep.MessagesPerKey[n]++
		if n != 1 {
			rep.violate("key %s: the front door enqueued %d messages, want 1", q.Key, n)
		}
		for _, body := range f.bodies[q.Key] {
			if want := f.wantSent(q); body != want {
				rep.violate("key %s: the front door sent %.200s, want the body as posted, %.200s", q.Key, body, want)
			}
		}
		kc := calls[q.Prompt]
		if len(kc) != 1 {
			rep.violate("key %s: %d provider calls, want 1", q.Key, len(kc))
		}
		got, ok := f.results[q.Key]
		if !ok {
			rep.violate("key %s: its status never read 200", q.Key)
			continue
		}
		if err := answered(q.Prompt, got); err != nil {
			rep.violate("key %s: its status: %v", q.Key, err)
		}
		if i == f.cfg.Reused {
			if other := calls[bodyPrompt(f.otherPayload(q))]; len(other) != 0 {
				rep.violate("key %s: the payload refused under the reused key was called %d times", q.Key, len(other))
			}
			if rep.Reused != http.StatusUnprocessableEntity {
				rep.violate("key %s: reused with another payload, answered %d, want 422", q.Key, rep.Reused)
			}
		}
	}
	f.checkScoped(counts, answered)
	// Beside the keys: the scoped caller's request, and the raw
	// producer's (sent straight to the queue, not through the front door).
	if rep.ProviderCalls != len(f.reqs)+2 {
		rep.violate("%d provider calls for %d keys and the 2 scoped requests", rep.ProviderCalls, len(f.reqs))
	}
	if rep.Messages != len(f.reqs)+1 {
		rep.violate("%d messages taken by the queue from the front doors for %d keys and the scoped caller's", rep.Messages, len(f.reqs))
	}
	for status := range maps.Keys(rep.Polls) {
		if status != http.StatusOK && status != http.StatusAccepted && status != http.StatusNotFound {
			rep.violate("a status read was answered %d (%d times)", status, rep.Polls[status])
		}
	}
	if rep.Left != 0 || rep.DeadLettered != 0 {
		rep.violate("%d messages left in the queue and %d in its dead-letter queue, want none", rep.Left, rep.DeadLettered)
	}
	if rep.Lost == 0 || rep.Reposted < rep.Lost {
		rep.violate("%d answers cut, %d POSTs sent again: want answers cut, each posted again", rep.Lost, rep.Reposted)
	}
}

// Summary returns the report as a few lines, as Report.Summary does.
func (rep *FrontDoorReport) Summary() string {
	var b strings.Builder
	rule := "the body's idempotency_key"
	if rep.KeyFields {
		rule = "the body's fields " + keyFields + " (the Idempotency-Key a handle)"
	}
	fmt.Fprintf(&b, "front door (bootstrap, IDEMQ_MODE=frontdoor, plain HTTP) on dynamodb, the worker keyed by %s: %d keys, %d clients posting each at once, in %s\n",
		rule, rep.Keys, rep.Posts, rep.Elapsed.Round(1e7))
	fmt.Fprintf(&b, "  POST answers %s; %d answers cut by the proxy after the front door handled the request, %d POSTs sent again; the reused key's other payload: %d\n",
		formatSorted(rep.Answers, "%d ×%d"), rep.Lost, rep.Reposted, rep.Reused)
	fmt.Fprintf(&b, "  GET %s until each key's 200\n", formatSorted(rep.Polls, "%d ×%d"))
	b.WriteString(hostileSummary(rep) + "\n")
	b.WriteString(scopedSummary(rep))
	fmt.Fprintf(&b, "  queue: %d sends, %d messages taken (keys by messages: %s), %d left, %d dead-lettered\n",
		rep.Sends, rep.Messages, formatSorted(rep.MessagesPerKey, "%d ×%d"), rep.Left, rep.DeadLettered)
	w := rep.Worker
	fmt.Fprintf(&b, "  consumers: executed %d, replayed %d, in-progress retries %d, failed %d; provider calls %d for %d keys\n",
		w.Executed, w.Replayed, w.InProgress, w.Failed, rep.ProviderCalls, rep.Keys)
	for _, e := range rep.Errors {
		fmt.Fprintf(&b, "    logged: %s\n", e)
	}
	if len(rep.Violations) == 0 {
		b.WriteString("  no violation\n")
	}
	for _, v := range rep.Violations {
		fmt.Fprintf(&b, "  VIOLATION: %s\n", v)
	}
	return b.String()
}
