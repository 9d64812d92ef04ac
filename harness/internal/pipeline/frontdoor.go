package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/netfault"
)

// FrontDoorConfig is a front-door run (RunFrontDoor): the reference
// worker in front-door mode serving plain HTTP, consumer processes of the
// same worker draining its queue into the provider, on DynamoDB Local,
// driven by concurrent HTTP clients through a TCP proxy that loses
// answers.
type FrontDoorConfig struct {
	// Keys is how many requests (Idempotency-Keys) the clients post.
	Keys int
	// Posts is how many clients post each key at once.
	Posts int
	// LoseEvery picks every LoseEvery-th key (the first included): one
	// client posts it alone first and the proxy cuts the answer after the
	// front door accepted and enqueued it; the proxy cuts the answer to a
	// POST of its burst too. Each client whose answer is cut posts again.
	LoseEvery int
	// Reused is the index of the key that is posted once more, after its
	// burst, with another payload: it must be refused (422) and never run.
	Reused int
	// Consumers is how many consumer processes drain the queue.
	Consumers int
	// CallTime is the provider's time for a call.
	CallTime time.Duration
	// KeyFields keys the worker, the front door and its producer by two
	// body fields, document_id and version (IDEMQ_KEY_FIELDS), instead of
	// the body's idempotency_key: each key's body carries them, and its
	// Idempotency-Key is the POST's handle, not the worker's key.
	KeyFields bool
}

// FrontDoorSmall is the front-door run inside `go test ./...`: 60 keys
// posted 10 times at once each, every 4th key's first answer lost, 2
// consumer processes.
func FrontDoorSmall() FrontDoorConfig {
	return FrontDoorConfig{Keys: 60, Posts: 10, LoseEvery: 4, Reused: 7, Consumers: 2, CallTime: 50 * time.Millisecond}
}

// FrontDoorReport is what a front-door run did, and what it broke.
type FrontDoorReport struct {
	Keys, Posts int // keys, and clients posting each at once
	// Answers counts every answer the clients read to a POST by status
	// (409s and 503s were retried); Lost the answers the proxy cut after
	// the front door handled the request, Reposted the POSTs the clients
	// sent again after getting no answer.
	Answers        map[int]int
	Lost, Reposted int
	// Reused is the status the reused key's other payload was answered.
	Reused int
	// Polls counts the status reads (GET) by status, until each key's 200.
	Polls map[int]int
	// KeyFields is FrontDoorConfig.KeyFields.
	KeyFields bool
	// Sends counts the front door's SendMessage requests, Messages those
	// the queue took; MessagesPerKey the keys by how many messages they
	// have (want Keys × 1).
	Sends, Messages int
	MessagesPerKey  map[int]int
	ProviderCalls   int
	Worker          WorkerCounts // the consumers' counts
	// Left and DeadLettered are the messages in the queue and its
	// dead-letter queue at the end.
	Left, DeadLettered int
	// Hostile counts the answers to the hostile requests sent alongside
	// the normal traffic (hostileRequests), by status.
	Hostile map[int]int
	// Scoped counts the answers of the scoped front door to the scoped
	// callers (scoped), by status, but for acme's status reads.
	Scoped map[int]int
	// Errors are the first warnings and errors the processes logged.
	Errors  []string
	Elapsed time.Duration

	// Violations lists every broken guarantee; empty for a correct run.
	Violations []string
}

func (rep *FrontDoorReport) violate(format string, args ...any) {
	rep.Violations = append(rep.Violations, fmt.Sprintf(format, args...))
}

// The reference worker's front-door mode (worker.NewFrontDoor, lambda/frontdoor.go).
const (
	envMode             = "IDEMQ_MODE"
	envFrontDoorQueue   = "IDEMQ_FRONTDOOR_QUEUE_URL"
	envFrontDoorAddr    = "IDEMQ_FRONTDOOR_ADDR"
	frontDoorPath       = "/requests"
	frontDoorHeaderKey  = "Idempotency-Key"
	frontDoorMaxRetries = 200
	envKeyFields        = "IDEMQ_KEY_FIELDS"
	keyFields           = "document_id,version"
)

// fdRun is a front-door run's state.
type fdRun struct {
	r    *runner
	cfg  FrontDoorConfig
	reqs []loadtest.Request
	base string // the front door's URL through the proxy that loses answers

	mu       sync.Mutex
	rep      FrontDoorReport
	seen     map[string]int      // key → POSTs the proxy saw
	sends    map[string]int      // key → messages the queue took
	bodies   map[string][]string // key → the bodies of those messages
	accepted map[string][]string
	results  map[string][]byte // key → the 200 body of its status
	hostiles []hostileAnswer   // the hostile requests' answers
	// scopedAnswers are the scoped callers' answers, scopedResult acme's
	// 200 body (scoped).
	scopedAnswers []scopedAnswer
	scopedResult  []byte
}

// start starts a process of the worker named name with the run's
// environment (its key rule included: one for the front door and the
// consumers) and extra.
func (f *fdRun) start(name string, extra ...string) (*ConsumerProc, error) {
	return f.startWith(name, append(f.env(name), extra...))
}

// env is the environment of the worker's process name, with the run's
// key rule: one for the front door and the consumers.
func (f *fdRun) env(name string) []string {
	env := f.r.workerEnv(name)
	if f.cfg.KeyFields {
		env = append(env, envKeyFields+"="+keyFields)
	}
	return env
}

// startFrontDoor starts the front door: frontDoorEnv and extra.
func (f *fdRun) startFrontDoor(extra ...string) (*ConsumerProc, error) {
	return f.startWith("frontdoor", append(f.frontDoorEnv("frontdoor"), extra...))
}

// frontDoorEnv is the environment of front-door process name: the
// worker's (its key rule included) less the variables front-door mode
// does not read (its provider), which it refuses.
func (f *fdRun) frontDoorEnv(name string) []string {
	var env []string
	for _, kv := range f.env(name) {
		name, _, _ := strings.Cut(kv, "=")
		if v, ok := idemqenv.Lookup(name); ok && !v.Programs.Has(idemqenv.FrontDoor) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// startWith starts process name with env.
func (f *fdRun) startWith(name string, env []string) (*ConsumerProc, error) {
	p, err := startConsumerProc(name, f.r.parts.Bootstrap, env)
	if err != nil {
		return nil, err
	}
	f.r.cleanups = append(f.r.cleanups, func() { stopProc(p) })
	return p, nil
}

// stopProc stops p with SIGTERM and waits for it, killing it after 15 s.
func stopProc(p *ConsumerProc) {
	if !p.Alive() {
		return
	}
	p.Term()
	select {
	case <-p.Exited():
	case <-time.After(15 * time.Second):
		p.Kill()
		<-p.Exited()
	}
}

// freeAddr returns a free 127.0.0.1 port, for the front door to listen on.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("pipeline: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitServing waits until the front door answers HTTP on addr.
func waitServing(ctx context.Context, door *ConsumerProc, addr string) error {
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := c.Get("http://" + addr + frontDoorPath + "/not-a-key")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-door.Exited():
			return fmt.Errorf("pipeline: the front door exited (%v); its output:\n%s", door.err, door.logs.tail(3000))
		case <-ctx.Done():
			return fmt.Errorf("pipeline: the front door did not serve on %s: %w; its output:\n%s", addr, ctx.Err(), door.logs.tail(3000))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// countSends passes every request to the SQS server on, counting the
// messages per key that the queue took from the front door.
func (f *fdRun) countSends(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.") != "SendMessage" {
		rp.ServeHTTP(w, r)
		return
	}
	var in struct {
		MessageBody string `json:"MessageBody"`
	}
	_ = json.Unmarshal(body, &in)
	sw := &statusWriter{ResponseWriter: w}
	rp.ServeHTTP(sw, r)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rep.Sends++
	if sw.status == http.StatusOK {
		key := sentKey(in.MessageBody)
		f.rep.Messages++
		f.sends[key]++
		f.bodies[key] = append(f.bodies[key], in.MessageBody)
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// postKeyHeader finds a POST's Idempotency-Key in what a client sends.
var postKeyHeader = regexp.MustCompile(`^POST [^\r\n]*\r\n(?s:.*?)\r\n(?i:Idempotency-Key): "([^"]+)"\r\n`)

// filter is the proxy's: of each key LoseEvery picks, it loses the answer
// to the first POST (posted alone) and the third (one of its burst).
func (f *fdRun) filter(req []byte) netfault.Verdict {
	m := postKeyHeader.FindSubmatch(req)
	if m == nil {
		return netfault.Pass
	}
	key := string(m[1])
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen[key]++
	if n := f.seen[key]; f.picked(key) && (n == 1 || n == 3) {
		f.rep.Lost++
		return netfault.LoseAnswer
	}
	return netfault.Pass
}

// picked says whether LoseEvery picks key.
func (f *fdRun) picked(key string) bool {
	i := slices.IndexFunc(f.reqs, func(q loadtest.Request) bool { return q.Key == key })
	return i >= 0 && f.cfg.LoseEvery > 0 && i%f.cfg.LoseEvery == 0
}

// postKey posts q: alone first if picked, then from Posts clients at once;
// the reused key then once more with another payload.
func (f *fdRun) postKey(ctx context.Context, c *http.Client, i int, q loadtest.Request) {
	body := f.payload(q)
	if f.picked(q.Key) {
		f.post(ctx, c, q.Key, body, true)
	}
	var wg sync.WaitGroup
	for range f.cfg.Posts {
		wg.Go(func() { f.post(ctx, c, q.Key, body, true) })
	}
	wg.Wait()
	if i != f.cfg.Reused {
		return
	}
	status := f.post(ctx, c, q.Key, f.otherPayload(q), false)
	f.mu.Lock()
	f.rep.Reused = status
	f.mu.Unlock()
}

// payload is the body q is posted with: q.Payload(), or, keyed by
// fields, the same with document_id (q's key) and version 1 first.
func (f *fdRun) payload(q loadtest.Request) string {
	if !f.cfg.KeyFields {
		return q.Payload()
	}
	return `{"document_id":` + quote(q.Key) + `,"version":1,` + q.Payload()[1:]
}

// otherPayload is the payload the reused key is posted with the second
// time: another prompt (keyed by fields, of the same document).
func (f *fdRun) otherPayload(q loadtest.Request) string {
	other := loadtest.Request{Key: q.Key, Prompt: "another request under " + q.Key}
	return f.payload(other)
}

// wantSent is the message the front door must send for q: the body as
// posted, with the key put first when the worker reads it from
// idempotency_key, else nothing put in it.
func (f *fdRun) wantSent(q loadtest.Request) string {
	if f.cfg.KeyFields {
		return f.payload(q)
	}
	return `{"idempotency_key":` + quote(q.Key) + `,` + q.Payload()[1:]
}

// quote is s as a JSON string.
func quote(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

// sentKey is the request key of a message the front door sent: its
// idempotency_key, or, keyed by fields, its document_id.
func sentKey(body string) string {
	if k := bodyKey(body); k != "" {
		return k
	}
	var b struct {
		DocumentID string `json:"document_id"`
	}
	_ = json.Unmarshal([]byte(body), &b)
	return b.DocumentID
}

// post posts body under key until it is answered with neither 409 nor
// 503, posting again when no answer came (the proxy cut it): the client
// that retries with the same key. It returns the last status, and with
// keep notes it and the answer's body for the check.
func (f *fdRun) post(ctx context.Context, c *http.Client, key, body string, keep bool) int {
	status, answer := f.postOnce(ctx, c, key, body)
	if keep {
		f.mu.Lock()
		f.accepted[key] = append(f.accepted[key], fmt.Sprintf("%d %s", status, bytes.TrimSpace(answer)))
		f.mu.Unlock()
	}
	return status
}

func (f *fdRun) postOnce(ctx context.Context, c *http.Client, key, body string) (int, []byte) {
	for range frontDoorMaxRetries {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.base, strings.NewReader(body))
		if err != nil {
			return 0, []byte(err.Error())
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(frontDoorHeaderKey, `"`+key+`"`)
		resp, err := c.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return 0, []byte(ctx.Err().Error())
			}
			f.mu.Lock()
			f.rep.Reposted++
			f.mu.Unlock()
			continue
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			f.mu.Lock()
			f.rep.Reposted++
			f.mu.Unlock()
			continue
		}
		f.mu.Lock()
		f.rep.Answers[resp.StatusCode]++
		f.mu.Unlock()
		if resp.StatusCode != http.StatusConflict && resp.StatusCode != http.StatusServiceUnavailable {
			return resp.StatusCode, out
		}
		// Retry-After says 1 s; a client may come back sooner.
		select {
		case <-ctx.Done():
			return 0, []byte(ctx.Err().Error())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return 0, []byte("no final answer")
}

// poll reads key's status until it is 200 and keeps that answer.
func (f *fdRun) poll(ctx context.Context, c *http.Client, key string) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.base+"/"+key, nil)
		if err != nil {
			return
		}
		if resp, err := c.Do(req); err == nil {
			out, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			f.mu.Lock()
			f.rep.Polls[resp.StatusCode]++
			if resp.StatusCode == http.StatusOK && err == nil {
				f.results[key] = out
			}
			f.mu.Unlock()
			if resp.StatusCode == http.StatusOK && err == nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// drained waits until the queue holds nothing twice in a row a second
// apart (the consumers delete a message after its key is COMPLETED, so
// after its status reads 200), and returns what it holds then.
func (f *fdRun) drained(ctx context.Context) (int, error) {
	for quiet := 0; quiet < 2; {
		select {
		case <-ctx.Done():
			n, _ := f.r.queue.Pending(context.Background())
			return n, nil // reported: a message left is a violation
		case <-time.After(time.Second):
		}
		n, err := f.r.queue.Pending(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			return 0, fmt.Errorf("pipeline: queue depth: %w", err)
		case err == nil && n == 0:
			quiet++
		default:
			quiet = 0
		}
	}
	return 0, nil
}

// bodyPrompt is a payload's prompt: the provider's key of its call.
func bodyPrompt(body string) string {
	var b struct {
		Prompt string `json:"prompt"`
	}
	_ = json.Unmarshal([]byte(body), &b)
	return b.Prompt
}

// hostileReq is one request a hostile caller sends the front door, and
// the answer docs/frontdoor.md's threat model gives it.
type hostileReq struct {
	what   string
	method string
	target string   // the request target, sent as written (escapes, dot segments)
	header []string // header lines, sent as written (a client library would refuse some)
	body   string
	want   int
	// check, when set, names the key whose status must read 404 after the
	// run: a refused POST leaves nothing behind.
	check string
}

// hostileAnswer is what one hostile request was answered.
type hostileAnswer struct {
	req         hostileReq
	status      int
	contentType string
	retryAfter  string
	err         error
}

// scopedAnswer is one answer of the scoped front door, for the check.
type scopedAnswer struct {
	what   string
	want   int
	status int
	err    error
}
