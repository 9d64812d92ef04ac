package contract

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

var (
	cases = flag.Int("contract.cases", 1500, "how many random requests the property test sends through every part")
	first = flag.Uint64("contract.seed", 1, "the first case's seed")
)

// One request, one key, one record: for random bodies, key rules,
// namespaces and scopes, the record key the producer reports
// (Sent.RecordKey), the key the handler claims (at the store) for the
// message the producer put on the queue, the key the command's key path
// makes of the key typed and of the body (the worker's identity read
// back from its variables, and its request.Reader), and the execution the dispatcher names
// (durable.ExecutionName of it) are one key; a second delivery, and the
// same request re-sent by the producer, reach the record the first
// made: the work runs once.
func TestOneKeyEveryPart(t *testing.T) {
	t.Parallel()
	failures := 0
	byRule, frontDoor := map[rule]int{}, map[rule]int{}
	for seed := *first; seed < *first+uint64(*cases); seed++ {
		c := generate(seed)
		byRule[c.rule]++
		posted, err := checkCase(context.Background(), c)
		if err != nil {
			t.Errorf("%v\n%v", err, c)
			if failures++; failures == 10 {
				t.Fatal("10 cases failed; stopping")
			}
		}
		if posted {
			frontDoor[c.rule]++
		}
	}
	t.Logf("%d cases from seed %d: %v; through the front door: %v", *cases, *first, byRule, frontDoor)
	for r := range rules {
		// A front door's Idempotency-Key is printable ASCII: about half
		// the keys of the field and attribute rules can be posted.
		if byRule[r] == 0 || frontDoor[r] < byRule[r]/3 {
			t.Errorf("%d cases of the %s rule, %d through the front door: the generator lost its spread", byRule[r], r, frontDoor[r])
		}
	}
}

// checkCase sends c through every part and returns what disagreed, and
// whether the front door could take it (an Idempotency-Key is printable
// ASCII).
func checkCase(ctx context.Context, c sample) (posted bool, _ error) {
	err := checkParts(ctx, c, &posted)
	return posted, err
}

func checkParts(ctx context.Context, c sample, posted *bool) error {
	q := &queue{}
	p, err := producer.New(q, queueURL, producer.WithRequest(c.id))
	if err != nil {
		return fmt.Errorf("producer.New: %w", err)
	}
	sent, err := p.Send(ctx, producer.Message{Key: c.value, Body: []byte(c.body), Scope: c.scope})
	if err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	key := sent.RecordKey
	if key == "" || !key.InNamespace(c.id.Namespace) {
		return fmt.Errorf("producer: record key %q is not in namespace %q", key, c.id.Namespace)
	}
	msgs := q.take()
	if len(msgs) != 1 {
		return fmt.Errorf("producer: %d messages on the queue, want 1", len(msgs))
	}
	msg := msgs[0]

	// The handler, over the message the producer sent, twice.
	st := newStore()
	var runs atomic.Int32
	h, err := handler.New(st, func(context.Context, events.SQSMessage) ([]byte, error) {
		runs.Add(1)
		return []byte(`"done"`), nil
	}, handler.WithRequest(c.id), handler.WithLogger(discard))
	if err != nil {
		return fmt.Errorf("handler.New: %w", err)
	}
	for range 2 {
		resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{msg}})
		if err != nil || len(resp.BatchItemFailures) != 0 {
			return fmt.Errorf("handler: %+v, %v", resp, err)
		}
	}
	for _, k := range st.claims() {
		if k != key {
			return fmt.Errorf("handler claimed %q; the producer reported %q", k, key)
		}
	}

	// The producer re-sends the request (its answer was lost): a new
	// message, the same record.
	if _, err := p.Send(ctx, producer.Message{Key: sent.Key, Body: []byte(c.body), Scope: c.scope}); err != nil {
		return fmt.Errorf("producer, re-sent: %w", err)
	}
	resent := q.take()
	if len(resent) != 1 || resent[0].Body != msg.Body {
		return fmt.Errorf("re-sent: %d messages %+v; want one with the first body %q", len(resent), resent, msg.Body)
	}
	if resp, err := h(ctx, events.SQSEvent{Records: resent}); err != nil || len(resp.BatchItemFailures) != 0 {
		return fmt.Errorf("handler, re-sent: %+v, %v", resp, err)
	}
	if n := runs.Load(); n != 1 {
		return fmt.Errorf("the work ran %d times for two deliveries and a re-send, want once", n)
	}

	// The command's key path: the worker's Identity as its variables hold
	// it (written and read back by idemqenv, from request.Fields' table),
	// its request.Reader, and the key as an operator types it (the value
	// the producer reported, as the log shows it) or the body. The
	// command's own wrapping of them (cmd/idemq/internal/recordkey: the
	// body, --raw, what it refuses) is held to the handler's key by its
	// tests in the command's module.
	env := idemqenv.Settings{Program: idemqenv.Command, Request: c.id}.Environ()
	read, err := idemqenv.ReadFor(idemqenv.Command, func(name string) string { return env[name] })
	if err != nil {
		return fmt.Errorf("command, the worker's variables %v: %w", env, err)
	}
	r, err := request.NewReader(read.Request)
	if err != nil {
		return fmt.Errorf("command, the worker's identity %+v: %w", read.Request, err)
	}
	id, err := r.ID(sent.Key, c.scope)
	if err != nil || id.Key != key {
		return fmt.Errorf("command, key %q: %q, %v; want %q", sent.Key, id.Key, err, key)
	}
	typed := id.Key
	if c.rule.readsBody() {
		bodyMsg := events.SQSMessage{Body: msg.Body}
		if c.scope != "" {
			bodyMsg.MessageAttributes = map[string]events.SQSMessageAttribute{
				request.ScopeAttribute: {DataType: "String", StringValue: &c.scope},
			}
		}
		fromBody, err := r.ReadKey(bodyMsg)
		if err != nil || fromBody.Key != key {
			return fmt.Errorf("command, --body: %q, %v; want %q", fromBody.Key, err, key)
		}
	}
	rec, ok, err := st.Get(ctx, typed)
	if err != nil || !ok || rec.Status != idem.StatusCompleted {
		return fmt.Errorf("command: the record of %q: %+v, %v, %v; want the handler's, completed", typed, rec, ok, err)
	}
	if page, err := st.List(ctx, idem.ListRequest{Namespace: c.id.Namespace}); err != nil || len(page.Records) != 1 || page.Records[0].Key != key {
		return fmt.Errorf("command: list of namespace %q: %+v, %v; want the one record", c.id.Namespace, page.Records, err)
	}

	// The dispatcher names the execution after the record key.
	inv := &invoker{}
	d, err := durable.New(inv, "work:prod", durable.WithRequest(c.id), durable.WithLogger(discard))
	if err != nil {
		return fmt.Errorf("durable.New: %w", err)
	}
	for _, m := range []events.SQSMessage{msg, resent[0]} {
		start, err := d.Dispatch(ctx, m)
		if err != nil {
			return fmt.Errorf("dispatcher: %w", err)
		}
		if start.Key != key || start.Name != durable.ExecutionName(string(key)) {
			return fmt.Errorf("dispatcher: key %q named %s; want %q named %s", start.Key, start.Name, key, durable.ExecutionName(string(key)))
		}
	}
	for _, name := range inv.names {
		if name != durable.ExecutionName(string(key)) {
			return fmt.Errorf("dispatcher invoked %s, want %s", name, durable.ExecutionName(string(key)))
		}
	}

	// The front door: the same request posted by a client, the message it
	// enqueued run by the handler, the result read back at the status
	// URL. With the key in a body field or an attribute the client's
	// Idempotency-Key is the key; with fields or a func the body makes the
	// key and the Idempotency-Key is the client's handle for the POST.
	header := sent.Key
	if c.rule == ruleFields || c.rule == ruleFunc {
		header = c.handle
	}
	if !printableASCII(header) {
		return nil // no Idempotency-Key header can carry it
	}
	*posted = true
	fq := &queue{}
	fd, err := newFrontDoor(st.Store, fq, c.id, c.scope)
	if err != nil {
		return fmt.Errorf("frontdoor.New: %w", err)
	}
	post := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/requests", strings.NewReader(c.body))
		r.Header.Set("Idempotency-Key", sfString(header))
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, r)
		return w
	}
	w := post()
	if w.Code == http.StatusBadRequest && slices.Contains(unroutable, header) {
		// A key the front door cannot give a status URL ("." and ".."
		// lose their segment) may be refused, enqueuing nothing.
		if n := len(fq.take()); n != 0 {
			return fmt.Errorf("front door: refused the key (400 %s) and enqueued %d messages", w.Body, n)
		}
		return nil
	}
	if w.Code != http.StatusAccepted {
		return fmt.Errorf("front door: POST answered %d %s", w.Code, w.Body)
	}
	location := w.Header().Get("Location")
	if seg, ok := strings.CutPrefix(location, "/requests/"); !ok || strings.Contains(seg, "/") {
		return fmt.Errorf("front door: Location %q, want /requests/ and the key as one segment", location)
	} else if got, err := url.PathUnescape(seg); err != nil || got != header {
		return fmt.Errorf("front door: Location %q names the key %q (%v), want %q", location, got, err, header)
	}
	posts := fq.take()
	if len(posts) != 1 {
		return fmt.Errorf("front door: %d messages enqueued, want 1", len(posts))
	}
	before := len(st.claims())
	if resp, err := h(ctx, events.SQSEvent{Records: posts}); err != nil || len(resp.BatchItemFailures) != 0 {
		return fmt.Errorf("handler, the front door's message: %+v, %v", resp, err)
	}
	for _, k := range st.claims()[before:] {
		if k != key {
			return fmt.Errorf("handler claimed %q for the front door's message; the producer's was %q", k, key)
		}
	}
	if n := runs.Load(); n != 1 {
		return fmt.Errorf("the work ran %d times once the front door's message came, want once", n)
	}
	if start, err := d.Dispatch(ctx, posts[0]); err != nil || start.Key != key {
		return fmt.Errorf("dispatcher, the front door's message: key %q, %v; want %q", start.Key, err, key)
	}
	get := httptest.NewRequest(http.MethodGet, location, nil)
	gw := httptest.NewRecorder()
	fd.ServeHTTP(gw, get)
	if gw.Code != http.StatusOK || gw.Body.String() != `"done"` {
		return fmt.Errorf("front door: GET %s answered %d %s; want 200 and the worker's result", location, gw.Code, gw.Body)
	}
	if w := post(); w.Code >= 300 || len(fq.take()) != 0 {
		return fmt.Errorf("front door: a retried POST answered %d %s, or enqueued again", w.Code, w.Body)
	}
	return nil
}

// unroutable are the only keys a front door may refuse for want of a
// status URL (their path segment is lost to dot-segment removal); every
// other printable key a POST takes must be read back at its URL.
var unroutable = []string{".", ".."}

// printableASCII reports whether s is printable ASCII: what an
// Idempotency-Key header carries.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}

// sfString spells s as a Structured Field String (RFC 8941): quoted, with
// '"' and '\\' escaped.
func sfString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// The generator makes what it says: every case's body is a JSON object
// that its Identity reads a key from, once stamped.
func TestGenerator(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		c := generate(seed)
		if err := c.id.Validate(); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if _, err := request.NewReader(c.id); err != nil {
			t.Fatal(err)
		}
		if generate(seed).body != c.body {
			t.Fatalf("seed %d makes two bodies", seed)
		}
	}
}
